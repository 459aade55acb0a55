"""Files in and out: session files (write, validate, restore, model-only read, streaming),
imported tokenizers, corpus files, and the tokenizer formats' registry (``formats``).

Imports :mod:`bpe_core.training` and below.
"""
