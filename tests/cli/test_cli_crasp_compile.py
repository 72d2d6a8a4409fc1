"""`theorybench crasp compile`: the compiled model is checked and saved."""

import json


def test_cli_crasp_compile_checks_and_saves(cli, tmp_path):
    import torch
    out = tmp_path / "m.pt"
    code, text, _ = cli("crasp", "compile", "majority", "--max-len", "8", "--check",
                        "--out", out, "--format", "json")
    assert code == 0
    res = json.loads(text)
    assert res["certificate"]["status"] == "verified" and res["n"] == 8
    assert isinstance(torch.load(out, weights_only=True), dict)
