"""Applying merges to text: the encoder (ids, spans and merge traces), its rank heap, long-text
cutting, and the numbering an imported tokenizer gives its tokens.

Imports only :mod:`bpe_core.pipeline` and below; the encoder never knows how its merges were
trained.
"""
