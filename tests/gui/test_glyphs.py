"""How tokens are shown: what would draw nothing is made visible."""

from __future__ import annotations

import pytest

from app.glyphs import token_parts, visible
from bpe_core import PipelineConfig
from bpe_core.pipeline.byte_alphabet import BYTE_TO_CHAR


@pytest.mark.parametrize(
    ("token", "shown"),
    [
        ("\u200d", "⟨ZWJ⟩"),  # a joiner merged on its own: an empty cell and an empty chip before
        ("\ufe0f", "⟨VS16⟩"),
        ("\u0301", "◌\u0301"),  # a lone combining accent, on a dotted circle
        ("\u094d", "◌\u094d"),
        ("\U0001f468\u200d", "\U0001f468⟨ZWJ⟩"),  # looked the same as the man alone
        ("\u200d\U0001f469", "⟨ZWJ⟩\U0001f469"),
        ("\u200e", "⟨LRM⟩"),
        ("\u2063", "⟨U+2063⟩"),
        # drawn as meant: left as they are
        ("\U0001f468\u200d\U0001f469\u200d\U0001f467", "\U0001f468\u200d\U0001f469\u200d\U0001f467"),
        ("\u2764\ufe0f", "\u2764\ufe0f"),
        ("e\u0301", "e\u0301"),
        ("\u0915\u094d", "\u0915\u094d"),
        ("low", "low"),
        ("\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",) * 2,  # a flag's tags
        ("\u0600\u0661", "\u0600\u0661"),  # Arabic's number sign: a format character, visible
        ("\u0661\u06dd",) * 2,
    ],
)
def test_a_token_that_would_draw_nothing_or_look_like_another_is_shown_visibly(token, shown):
    config = PipelineConfig(end_of_word=None)
    assert visible(token, config) == shown
    assert token_parts(token, config) == (shown, "")


def test_invisible_characters_are_named_before_the_marker_and_in_byte_level_tokens():
    assert token_parts("\u200d</w>", PipelineConfig()) == ("⟨ZWJ⟩", "</w>")
    byte_level = PipelineConfig(unit="byte", end_of_word=None)
    zwj = "".join(BYTE_TO_CHAR[b] for b in "\u200d".encode())  # its bytes in GPT-2's alphabet
    assert visible(zwj, byte_level) == "⟨ZWJ⟩"
