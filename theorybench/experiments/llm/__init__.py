"""The llm line: few-shot evaluation of pretrained language models on the task families.

``prompts`` builds the prompts from template data (``prompts.json``); ``models`` reads the
model configuration (``models.json``); ``local`` (Hugging Face ``transformers``) and ``http``
(OpenAI-compatible endpoints) are the backends; ``scoring`` parses answers and computes the
metrics; ``export`` writes a task for the LM evaluation harness; ``evaluate`` runs one spec.
``transformers`` is an optional extra (``pip install .[llm]``): nothing here imports it at
module level.
"""
