"""Tokenizer files of other tools, read and written (one module per format, no Qt)."""
