"""How text becomes word types of base symbols: the pipeline's configuration, normalization,
pre-tokenization, the byte alphabet, the corpus of counted word types and the vocabulary.

Imports only :mod:`bpe_core.runtime` and :mod:`bpe_core.errors`.
"""
