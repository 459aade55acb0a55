"""What the studio does with trained histories: compare runs and rules, what-if runs from a
step, compression figures, and the step-by-step walk-through.

Imports :mod:`bpe_core.io` and below; the command line sits above it.
"""
