"""`theorybench construct`: output, JSON, saved models, and bad input (exit 2)."""

from __future__ import annotations

import json

import torch

from theorybench.constructions import SetTransformer


def test_text_output_has_shape_temperature_margin_certificate(cli):
    rc, out, err = cli("construct", "majority", "--n", "7", "--verify", "z3")
    assert rc == 0, err
    assert "shape: 1 layer(s), heads [1], width 2" in out
    assert "temperature:" in out and "margin: 1/n" in out
    assert "certificate [z3-all-n]: PROVED" in out and "status: proven" in out


def test_json_certificate_and_variant_syntax(cli):
    rc, out, _ = cli("construct", "dyck_bounded:D=2", "--n", "8", "--verify", "interval",
                     "--format", "json")
    d = json.loads(out)
    assert rc == 0 and d["task"] == {"task": "dyck_bounded", "n": 8, "k": 1, "D": 2}
    [cert] = d["certificates"]
    assert cert["method"] == "interval" and cert["status"] == "proved"
    assert cert["inputs"] == 256 and d["status"] == "verified at n=8"


def test_exhaustive_reports_both_dtypes(cli):
    rc, out, _ = cli("construct", "khop", "--n", "5", "--verify", "exhaustive", "--format",
                     "json")
    methods = [c["method"] for c in json.loads(out)["certificates"]]
    assert rc == 0 and methods == ["exhaustive-float64", "exhaustive-float32"]


def test_saved_model_loads_with_weights_only(cli, tmp_path):
    path = tmp_path / "index.pt"
    rc, out, _ = cli("construct", "index", "--n", "6", "--out", path)
    assert rc == 0 and "saved:" in out
    m = SetTransformer.from_bundle(torch.load(path, weights_only=True))
    x = torch.tensor([[0, 1, 0, 0, 1, 0, 1 + 5]])        # query q5 -> x_5 = 1
    assert m(x).item() > 0
    x[0, -1] = 1 + 4                                       # q4 -> x_4 = 0
    assert m(x).item() < 0


def test_bad_input_exits_2(cli):
    for argv, words in [
        (("parity", "--n", "4"), "no construction for task 'parity'"),
        (("dyck", "--n", "4"), "k=1 only"),
        (("majority", "--n", "4"), "odd"),
        (("index", "--n", "64", "--verify", "z3"), "--verify interval"),
        (("index", "--n", "64", "--verify", "exhaustive"), "one forward pass per input"),
        (("majority", "--n", "5", "--verify", "z3", "--timeout", "0"), "--timeout"),
        (("index", "--n", "5", "--verify", "sampled", "--samples", "0"), "--samples"),
        (("index", "--n", "5", "--samples", "100000000000"), "--samples"),
        (("majority", "--n", "5", "--verify", "z3", "--timeout", "nan"), "--timeout"),
        (("index", "--n", "3", "--out", "/"), "is a folder"),
        (("index", "--n", "3", "--out", "/nonexistent-dir/x.pt"), "does not exist"),
        (("majority", "--n", "65535", "--verify", "sampled"), "attention scores per row"),
        (("--program", "majority", "--n", "5000", "--verify", "sampled"), "use a smaller --n"),
    ]:
        rc, out, err = cli("construct", *argv)
        assert rc == 2 and words in err and "Traceback" not in err, (argv, err)


def test_range_gives_a_certificate_per_n_and_the_status(cli):
    rc, out, err = cli("construct", "index", "--n", "1..5", "--verify", "z3", "--format",
                       "json")
    d = json.loads(out)
    assert rc == 0 and d["ns"] == [1, 2, 3, 4, 5] and d["status"] == "verified <= 5"
    assert [c["n"] for c in d["certificates"]] == [1, 2, 3, 4, 5]
    assert all(c["status"] == "proved" for c in d["certificates"])
    rc, out, err = cli("construct", "majority", "--n", "3..7", "--verify", "interval")
    assert rc == 0 and "status: verified <= 7" in out and "skipping n=4, 6" in err
    rc, _, err = cli("construct", "index", "--n", "2,4", "--out", "x.pt")
    assert rc == 2 and "single --n" in err
