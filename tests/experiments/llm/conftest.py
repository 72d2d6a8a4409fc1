"""A tiny random-weight GPT-2 with a word-level tokenizer over the task vocabulary, saved
to a local directory and reloaded with the hub disabled (no network, well under a second)."""

from __future__ import annotations

import json

import pytest

#: Words of the prompts of the tests (instruction words become [UNK], which is fine).
WORDS = ("0 1 Input: Output: Q: A: Answer with or . ( ) [ ] a b c d _ q1 q2 q3 q4 q5 q6 "
         "+ = Paris London The capital of France is").split()


def build_tiny(path, seed: int = 0, n_positions: int = 512):
    """Save a tiny GPT-2 and its tokenizer under ``path``; returns ``path``."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, decoders
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[EOS]", "\n", *WORDS])}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    # split on spaces *and* newlines (and keep the newline as a token of its own)
    tk.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split("\n", behavior="isolated"),
        pre_tokenizers.Split(" ", behavior="removed")])
    tk.decoder = decoders.WordPiece(prefix="##", cleanup=False)
    fast = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]",
                                   eos_token="[EOS]")
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=len(vocab), n_positions=n_positions, n_embd=32, n_layer=2,
                     n_head=2, bos_token_id=2, eos_token_id=2, pad_token_id=0,
                     tie_word_embeddings=False)  # tied: it just repeats the last token
    model = GPT2LMHeadModel(cfg)
    with torch.no_grad():  # larger logits: distinct greedy choices, no near-ties
        model.lm_head.weight.mul_(3.0)
    model.save_pretrained(path)
    fast.save_pretrained(path)
    return path


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory):
    pytest.importorskip("transformers")
    return build_tiny(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture
def tiny(tiny_dir, monkeypatch, one_torch_thread):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from theorybench.experiments.llm.local import LocalModel
    from theorybench.experiments.llm.models import model_from_dict

    cfg = model_from_dict({"name": "tiny", "backend": "local", "path": str(tiny_dir),
                           "context": 512, "batch_size": 3})
    return LocalModel.load(cfg)


@pytest.fixture
def models_file(tiny_dir, tmp_path, monkeypatch, one_torch_thread):
    """A model file with the tiny model as its one local entry."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = tmp_path / "models.json"
    path.write_text(json.dumps({"format": "theorybench-llm-models", "version": 1, "models": [
        {"name": "tiny", "backend": "local", "path": str(tiny_dir), "context": 512,
         "batch_size": 4}]}))
    return path
