"""Exports under other lm-eval versions than the installed one (issue 32: the sampler's
interface changed in lm-eval 0.4.10). Each folder of $THEORYBENCH_LMEVAL_PATHS
(os.pathsep-separated) holds an lm-eval installed with ``pip install --no-deps --target
FOLDER lm_eval==VERSION``; each runs lmeval_crosscheck.py in a subprocess with that folder
first on PYTHONPATH. Skipped when the variable is unset.

Checked so far (2026-12-05): 0.4.9.1 and 0.4.10, beside the installed 0.4.13. lm-eval
before 0.4.10 names transformers.AutoModelForVision2Seq, which transformers 5 dropped: with
transformers 5 such a folder needs that name replaced by AutoModelForImageTextToText in
its lm_eval/models/hf_vlms.py. 0.4.9.2 cannot run any --include_path task on its own
(its pretty_print_task assumes tasks under lm_eval/tasks; fixed in 0.4.10)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PATHS = [p for p in os.environ.get("THEORYBENCH_LMEVAL_PATHS", "").split(os.pathsep) if p]
SCRIPT = Path(__file__).with_name("lmeval_crosscheck.py")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not PATHS, reason="set THEORYBENCH_LMEVAL_PATHS")]


@pytest.mark.parametrize("folder", PATHS)
def test_export_under_another_lm_eval(folder, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join([folder, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "work")], env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(out["file"]).is_relative_to(folder)  # that lm-eval, not the installed one
    for mode in ("plain", "chat"):
        assert out[mode]["prompts_same"] and out[mode]["ll_gap"] < 1e-4, mode
    assert out["num_fewshot_1"] and out["generate"]["texts_same"]
    for theirs, ours in [*out["plain"]["metrics"].values(),
                         *out["generate"]["metrics"].values()]:
        assert theirs == pytest.approx(ours)
