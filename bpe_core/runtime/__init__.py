"""Runtime helpers every stage may use: bounded and atomic file access, pausing the garbage
collector around bulk work, giving freed memory back to the system.

Imports only :mod:`bpe_core.errors` and the standard library.
"""
