"""Probe: one quick run of a NoPE row with Hugging Face's GPT-2 (the model class of Huang
et al.'s formal-language code, its position table replaced by zero as their NoPE model
does) in place of the toolkit's transformer; everything else (data, objective, trainer,
early stop, bins) is the toolkit's own. Needs ``transformers`` (the ``llm`` extra).

    python docs/reproductions/probes/gpt2_probe.py dyck1/nope 1

prints the run's accuracy per bin as one JSON line (see README.md beside it)."""
import json, sys, time
import torch
from torch import nn
from transformers import GPT2Config, GPT2Model
from theorybench.experiments import reproduce, length_generalization as lg
from theorybench.experiments.model import size_shape


class Zero(nn.Module):
    # transformers 5 adds wpe(position_ids) as a tensor; the authors' version took 0
    def forward(self, x):
        return torch.zeros((), dtype=torch.float32, device=x.device)


class HFGPT2(nn.Module):
    def __init__(self, spec, data, max_pos, gen):
        super().__init__()
        layers, heads, width = size_shape(spec.size)
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))
        cfg = GPT2Config(vocab_size=len(data.vocab), n_positions=max_pos, n_embd=width,
                         n_layer=layers, n_head=heads, attn_pdrop=0, resid_pdrop=0,
                         embd_pdrop=0)
        self.body = GPT2Model(cfg)
        assert spec.encoding == "nope"
        self.body.wpe = Zero()
        self.head = nn.Linear(width, len(data.label_vocab))

    def forward(self, tokens, positions=None, generator=None):
        return self.head(self.body(input_ids=tokens).last_hidden_state)

    def num_parameters(self):
        return sum(p.numel() for p in self.parameters())


lg.build_model = HFGPT2
row, seed = sys.argv[1], int(sys.argv[2])
planned = [p for p in reproduce.plan("huang2025", "quick", rows=[row]) if p.specs]
spec = [s for s in planned[0].specs if s.seed == seed][0]
t = time.time()
res = lg.run(spec, progress=False)
print(json.dumps(dict(row=row, seed=seed, bins=res["bins"], train=res["train_accuracy"],
                      steps=res["steps"], wall=round(time.time() - t))), flush=True)
