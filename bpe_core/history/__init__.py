"""What happened: merge records, the merge line they form (columns of machine integers), the
tree of branches, and the events the trainer announces.

Imports only :mod:`bpe_core.pipeline` and below; never the trainer or the encoder.
"""
