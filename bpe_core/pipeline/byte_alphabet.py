"""GPT-2's byte-to-unicode alphabet: every byte gets a printable, non-whitespace character.

Hugging Face ``tokenizers`` (``ByteLevel``) and GPT-2's ``encoder.json`` display byte-level tokens
this way, so ``Ġ`` is a space and ``Ċ`` a newline. Sorting the 256 characters by code point gives
GPT-2's id order.

Example: ``bytes_to_display(" hi".encode())`` is ``"Ġhi"``.
"""


def _build_table() -> tuple[str, ...]:
    # Printable Latin-1 bytes keep their own code point; the other 68 bytes (controls, space,
    # 0x7F-0xA0, 0xAD) are shifted to 256 and up, in byte order.
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table = [""] * 256
    shifted = 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte] = chr(256 + shifted)
            shifted += 1
    return tuple(table)


BYTE_TO_CHAR: tuple[str, ...] = _build_table()
CHAR_TO_BYTE: dict[str, int] = {char: byte for byte, char in enumerate(BYTE_TO_CHAR)}
# str.translate table from a latin-1 decoded byte string to GPT-2 display characters.
LATIN1_TO_DISPLAY: dict[int, str] = dict(enumerate(BYTE_TO_CHAR))


def bytes_to_display(data: bytes) -> str:
    """Map bytes to GPT-2 display characters. Example: ``b"\\n"`` -> ``"Ċ"``."""
    return data.decode("latin-1").translate(LATIN1_TO_DISPLAY)


def display_to_bytes(text: str) -> bytes:
    """Inverse of :func:`bytes_to_display`; raises ``KeyError`` for a non-alphabet character."""
    return bytes(CHAR_TO_BYTE[char] for char in text)


def fallback_token(byte: int) -> str:
    """The token that spells a byte under byte fallback (SentencePiece's and Hugging Face's
    spelling). Example: ``fallback_token(10)`` is ``"<0x0A>"``."""
    return f"<0x{byte:02X}>"


def fallback_byte(token: str) -> int | None:
    """The byte a byte-fallback token spells, or ``None`` for any other token."""
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        digits = token[3:5]
        if all(char in "0123456789ABCDEF" for char in digits):
            return int(digits, 16)
    return None
