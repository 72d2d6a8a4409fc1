"""The PyTorch harness: a causal transformer, positional encodings, the trainer, the
in-distribution / length-generalization / LLM experiment lines, the results store and
the sweep executors."""
