"""Checkpoints: state_dict + sidecar JSON, loaded with weights_only=True; a checkpoint
names its task and is refused for another; every field read is validated (issue 31)."""

import json
import warnings

import numpy as np
import pytest
import torch

from theorybench.errors import ConfigError
from theorybench.experiments import in_distribution
from theorybench.experiments.checkpoint import CheckpointWarning, load_checkpoint, save_checkpoint
from theorybench.experiments.data import TaskData
from theorybench.experiments.model import ModelConfig, Transformer
from theorybench.experiments.sharpness import measure
from theorybench.experiments.spec import RunSpec
from theorybench.experiments.trainer import TrainingConfig
from theorybench.tasks.digest import definition_digest


def test_checkpoint_roundtrip(tmp_path):
    spec = RunSpec("in_distribution", "any", n=8, encoding="t5",
                   training=TrainingConfig(steps=10, eval_every=5, eval_count=32,
                                           final_eval_count=32))
    in_distribution.run(spec, progress=False, checkpoint_dir=str(tmp_path))
    model, meta = load_checkpoint(tmp_path / f"{spec.key}.pt")
    assert meta["spec"] == spec.to_dict() and meta["config"]["encoding"] == "t5"
    data = TaskData("any", {}, [8])
    assert tuple(meta["vocab"]) == data.vocab
    x = data.sample(np.random.default_rng(0), 4).inputs
    with torch.no_grad():
        assert model(x).shape == (4, 8, len(data.label_vocab))
    state = torch.load(tmp_path / f"{spec.key}.pt", weights_only=True)
    assert all(torch.equal(state[k], v) for k, v in model.state_dict().items())


# ---- issue 31, cause 5: a checkpoint names its task and every field read is checked ----

def _saved(tmp_path, task="parity", n=5, params=None, key="k"):
    """A tiny untrained model of ``task`` saved as a sweep saves one (no training needed:
    only what the checkpoint says is under test)."""
    data = TaskData(task, dict(params or {}), [n])
    model = Transformer(ModelConfig(vocab_size=len(data.vocab),
                                    num_labels=len(data.label_vocab), layers=1, width=8,
                                    heads=1, max_positions=64),
                        torch.Generator().manual_seed(0))
    spec = RunSpec("in_distribution", task, tuple(sorted((params or {}).items())), n=n)
    return save_checkpoint(tmp_path, key, model, {"spec": spec.to_dict(), "vocab": data.vocab,
                                                  "labels": data.label_vocab})


def _edit(pt, change):
    side = pt.with_suffix(".json")
    meta = json.loads(side.read_text())
    change(meta)
    side.write_text(json.dumps(meta))


def test_sidecar_names_task_params_and_definition_digest(tmp_path):
    meta = json.loads(_saved(tmp_path, "khop", 8, {"k": 2}).with_suffix(".json").read_text())
    assert meta["checkpoint_version"] == 2
    assert meta["task"]["family"] == "khop" and meta["task"]["params"]["k"] == 2
    assert meta["task"]["digest"] == definition_digest("khop")


def test_a_parity_checkpoint_is_not_a_majority_model(tmp_path):
    # the old code compared only the vocabularies, which parity and majority share
    pt = _saved(tmp_path, "parity", 5)
    with pytest.raises(ConfigError, match=r"is a model of parity, not of majority"):
        measure("majority", 5, checkpoint=str(pt), batch=8, iters=1, perturbations=2)
    with pytest.raises(ConfigError, match="trained at n=5"):
        measure("parity", 7, checkpoint=str(pt), batch=8, iters=1, perturbations=2)
    r = measure("parity", 5, checkpoint=str(pt), batch=8, iters=1, perturbations=2)
    assert r.state == "trained"


def test_other_parameters_and_another_definition_are_refused(tmp_path):
    pt = _saved(tmp_path, "khop", 8, {"k": 2})
    with pytest.raises(ConfigError, match="khop:.*k=2.*not of khop:.*k=3"):
        load_checkpoint(pt, task="khop", params={"k": 3}, n=8)
    load_checkpoint(pt, task="khop", params={"k": 2}, n=8)
    _edit(pt, lambda m: m["task"].update(digest="0" * 16))
    with pytest.raises(ConfigError, match="defined differently"):
        load_checkpoint(pt, task="khop", params={"k": 2}, n=8)


@pytest.mark.parametrize("damage, message", [
    (lambda pt: pt.write_bytes(pt.read_bytes()[:300]), "cannot be read"),
    (lambda pt: pt.write_bytes(bytes(range(256)) * 4), "cannot be read"),
    (lambda pt: pt.write_bytes(b""), "cannot be read"),
    (lambda pt: torch.save({"x": torch.zeros(2)}, pt), "do not fit the config"),
    (lambda pt: torch.save([1, 2], pt), "not a state dict"),
    (lambda pt: pt.with_suffix(".json").unlink(), "no sidecar"),
    (lambda pt: pt.with_suffix(".json").write_text("{"), "not JSON"),
    (lambda pt: pt.with_suffix(".json").write_text("[]"), "not an object"),
    (lambda pt: pt.with_suffix(".json").write_text("9" * 5000), "not JSON"),
    (lambda pt: pt.with_suffix(".json").write_bytes(b"{\xff}"), "not UTF-8"),
    (lambda pt: _edit(pt, lambda m: m.pop("config")), "no field 'config'"),
    (lambda pt: _edit(pt, lambda m: m.update(config=[])), "'config' is a list"),
    (lambda pt: _edit(pt, lambda m: m["config"].update(width="8")), "'width' is a string"),
    (lambda pt: _edit(pt, lambda m: m["config"].update(width=16)), "do not fit the config"),
    (lambda pt: _edit(pt, lambda m: m["config"].update(depth=2)), "unknown field"),
    (lambda pt: _edit(pt, lambda m: m["config"].update(heads=0)), "'heads' is 0, not a positive"),
    (lambda pt: _edit(pt, lambda m: m["config"].update(dropout=2.5)), "not a probability"),
    (lambda pt: _edit(pt, lambda m: m["config"].update(encoding="nop")), "config:"),
    (lambda pt: _edit(pt, lambda m: m.pop("vocab")), "no field 'vocab'"),
    (lambda pt: _edit(pt, lambda m: m.update(vocab=["0"])), "'vocab' has 1 entries"),
    (lambda pt: _edit(pt, lambda m: m.update(labels="01")), "'labels' is a string"),
    (lambda pt: _edit(pt, lambda m: m.update(task="parity")), "'task' is a string"),
    (lambda pt: _edit(pt, lambda m: m["task"].pop("digest")), "task field 'digest'"),
    (lambda pt: _edit(pt, lambda m: m.update(checkpoint_version=99)), "newer theorybench"),
    (lambda pt: _edit(pt, lambda m: m.update(checkpoint_version="2")), "checkpoint_version"),
])
def test_damaged_checkpoints_name_the_file_and_field(tmp_path, damage, message):
    pt = _saved(tmp_path)
    damage(pt)
    with pytest.raises(ConfigError, match=message) as err:
        load_checkpoint(pt, task="parity", n=5)
    assert str(tmp_path) in str(err.value)


def test_old_checkpoints_are_accepted_with_a_note_only_when_their_spec_matches(tmp_path):
    """Chosen rule: a checkpoint saved before the ``task`` field is accepted with a warning
    when its run spec names the same family and parameters (only the definition digest
    cannot be checked); without a spec it is refused."""
    pt = _saved(tmp_path)
    _edit(pt, lambda m: (m.pop("task"), m.pop("checkpoint_version")))
    notes = []
    load_checkpoint(pt, task="parity", n=5, warn=notes.append)
    assert len(notes) == 1 and "cannot be checked" in notes[0]
    with pytest.warns(CheckpointWarning):
        load_checkpoint(pt, task="parity", n=5)
    with pytest.raises(ConfigError, match="is a model of parity, not of majority"):
        load_checkpoint(pt, task="majority", n=5, warn=notes.append)
    _edit(pt, lambda m: m.pop("spec"))
    with pytest.raises(ConfigError, match="no field 'task'.*re-train"):
        load_checkpoint(pt, task="parity", n=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_checkpoint(pt)  # without a task to check against: nothing to warn about


def test_cli_sharpness_refuses_a_checkpoint_of_another_task(cli, tmp_path):
    pt = _saved(tmp_path, "parity", 5)
    code, out, err = cli("sharpness", "majority", "--n", "5", "--trained", pt)
    assert code == 2 and "model of parity, not of majority" in err and "Traceback" not in err
    pt.write_bytes(pt.read_bytes()[:100])
    code, out, err = cli("sharpness", "parity", "--n", "5", "--trained", pt)
    assert code == 2 and f"checkpoint {pt} cannot be read" in err
