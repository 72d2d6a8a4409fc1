"""``llamacpp.float32_gguf``: a quantised GGUF written again at float32 keeps every weight
as the quantised file decodes it and every metadata field (checked on a small file built
here; no llama.cpp needed)."""

from __future__ import annotations

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from theorybench.errors import ConfigError  # noqa: E402
from theorybench.experiments.llm.llamacpp import float32_gguf  # noqa: E402


def _quantised(path, rng):
    w = gguf.GGUFWriter(path, arch="llama")
    w.add_block_count(2)
    w.add_name("tiny")
    w.add_file_type(int(gguf.LlamaFileType.MOSTLY_Q8_0))
    w.add_token_list(["<s>", "a", "b"])
    w.add_key_value("llama.rope.freq_base", 10000.0, gguf.GGUFValueType.FLOAT32)
    q8 = rng.standard_normal((8, 64)).astype(np.float32)
    w.add_tensor("blk.0.attn_q.weight", gguf.quants.quantize(q8, gguf.GGMLQuantizationType.Q8_0),
                 raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("output_norm.weight", rng.standard_normal(64).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_weights_and_metadata_survive(tmp_path):
    src, dst = tmp_path / "q.gguf", tmp_path / "f.gguf"
    _quantised(src, np.random.default_rng(0))
    assert float32_gguf(src, dst) == dst
    a, b = gguf.GGUFReader(src), gguf.GGUFReader(dst)
    assert [t.name for t in a.tensors] == [t.name for t in b.tensors]
    assert {t.tensor_type for t in b.tensors} == {gguf.GGMLQuantizationType.F32}
    assert gguf.GGMLQuantizationType.Q8_0 in {t.tensor_type for t in a.tensors}
    for x, y in zip(a.tensors, b.tensors):
        assert list(x.shape) == list(y.shape)
        want = gguf.quants.dequantize(x.data, x.tensor_type)
        assert np.array_equal(np.asarray(y.data).reshape(want.shape), want)
    keys = [k for k in a.fields if not k.startswith("GGUF.")]
    assert keys == [k for k in b.fields if not k.startswith("GGUF.")]
    for k in keys:
        if k == "general.file_type":
            assert b.fields[k].contents() == int(gguf.LlamaFileType.ALL_F32)
        else:
            assert b.fields[k].contents() == a.fields[k].contents(), k
    assert not list(tmp_path.glob("*.part"))


def test_bad_inputs_say_what(tmp_path):
    src = tmp_path / "q.gguf"
    _quantised(src, np.random.default_rng(1))
    with pytest.raises(ConfigError, match="is the input"):
        float32_gguf(src, src)
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a gguf file at all")
    with pytest.raises(ConfigError, match="not a readable GGUF"):
        float32_gguf(junk, tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()
