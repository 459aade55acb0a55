"""Learning merges: the trainer and its navigation of the history, restoring a saved history,
the training configuration, tie rules, the incremental pair index and its queue, the cold
(array) index, batch merging, long words and initial symbols.

Imports :mod:`bpe_core.encoding`, :mod:`bpe_core.history` and below.
"""
