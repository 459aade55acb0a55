"""Ids as tokenizer files give them: possibly with gaps (a tokenizer exported part way through
its merges keeps the ids of its special tokens), never so sparse that holding them would take
far more memory than the tokens do."""


def sparse_limit(tokens: int) -> int:
    """The first id too large for a file of ``tokens`` tokens."""
    return 4 * tokens + 65_536
