"""The worked examples BPE is taught with, each reproduced exactly: Sennrich et al. (2016), the
subword primer's old · older · finest · lowest, the FRED FED TED BREAD walk-through, and the
Hugging Face course's hug · pug · pun · bun · hugs."""

import pytest

from bpe_core import StopReason
from tests.helpers import merge_strings, segmentation_strings, trainer_for

LOW_LOWER = "low\t5\nlower\t2\nnewest\t6\nwidest\t3\n"
OLD_OLDER = "old\t7\nolder\t3\nfinest\t9\nlowest\t4\n"
FRED = "FRED FED TED BREAD AND TED FED FRED BREAD"


def test_sennrich_low_lower_newest_widest_ten_merges():
    trainer = trainer_for(LOW_LOWER, counts=True)
    assert trainer.run(merges=10) is StopReason.MERGES
    assert merge_strings(trainer) == [
        ("e", "s"),
        ("es", "t"),
        ("est", "</w>"),
        ("l", "o"),
        ("lo", "w"),
        ("n", "e"),
        ("ne", "w"),
        ("new", "est</w>"),
        ("low", "</w>"),
        ("w", "i"),
    ]
    assert [r.count for r in trainer.history] == [9, 9, 9, 7, 7, 6, 6, 6, 5, 3]
    # Stage 0 of the walk-through lists three pairs at 9: the tie is recorded with its candidates.
    first = trainer.record(1)
    assert first.ties == 3 and first.decided_by == "first-seen"
    assert [trainer.pair_string(p) for p in first.candidates] == ["('e', 's')", "('s', 't')", "('t', '</w>')"]
    assert segmentation_strings(trainer) == [
        ["low</w>"],
        ["low", "e", "r", "</w>"],
        ["newest</w>"],
        ["wi", "d", "est</w>"],
    ]


def test_subword_primer_old_older_finest_lowest():
    trainer = trainer_for(OLD_OLDER, counts=True)
    trainer.run(merges=5)
    assert merge_strings(trainer) == [("e", "s"), ("es", "t"), ("est", "</w>"), ("o", "l"), ("ol", "d")]
    assert [r.count for r in trainer.history] == [13, 13, 13, 10, 10]
    # 23 words, so 23 end-of-word markers, and 12 distinct initial tokens (the primer's table).
    assert trainer.initial_point.vocab_size == 12
    assert trainer.token_frequency(trainer.vocab.find("</w>")) == 23 - 13


def test_fred_walkthrough_with_underscore_marker():
    trainer = trainer_for(FRED, end_of_word="_")
    assert trainer.run() is StopReason.MIN_FREQUENCY
    assert merge_strings(trainer)[:2] == [("D", "_"), ("E", "D_")]
    assert [r.count for r in trainer.history[:2]] == [9, 6]
    assert trainer.position == 10
    final = dict(zip(trainer.corpus.words, segmentation_strings(trainer)))
    assert final == {
        "FRED": ["FRED_"],
        "FED": ["FED_"],
        "BREAD": ["BREAD_"],
        "AND": ["A", "N", "D_"],
        "TED": ["TED_"],
    }
    assert dict(zip(trainer.corpus.words, trainer.corpus.counts)) == {
        "FRED": 2,
        "FED": 2,
        "TED": 2,
        "BREAD": 2,
        "AND": 1,
    }
    encoding = trainer.encoder().encode("FRED EATS BREAD")
    assert encoding.tokens == ["FRED_", "E", "A", "T", "S", "_", "BREAD_"]
    # 15 symbols become 7 tokens; "S" never occurs in the corpus, so it is flagged unknown.
    assert [t for t, u in zip(encoding.tokens, encoding.unknown) if u] == ["S"]
    assert encoding.spans == [(0, 4), (5, 6), (6, 7), (7, 8), (8, 9), (9, 9), (10, 15)]


def test_fred_walkthrough_initial_pairs_table():
    trainer = trainer_for(FRED, end_of_word="_")
    counts = {
        (trainer.token_string(a), trainer.token_string(b)): c for (a, b), c in trainer.pair_counts().items()
    }
    assert counts == {
        ("N", "D"): 1,
        ("B", "R"): 2,
        ("A", "N"): 1,
        ("A", "D"): 2,
        ("F", "E"): 2,
        ("D", "_"): 9,
        ("R", "E"): 4,
        ("E", "A"): 2,
        ("T", "E"): 2,
        ("E", "D"): 6,
        ("F", "R"): 2,
    }


@pytest.mark.parametrize(
    ("rule", "merges"),
    [
        ("first-seen", [("a", "a"), ("aa", "a"), ("aaa", "b")]),
        ("hf", [("a", "a"), ("a", "b"), ("aa", "ab")]),  # the Wikipedia table: Z=aa, Y=ab, X=ZY
    ],
)
def test_compression_variant_aaabdaaabac(rule, merges):
    trainer = trainer_for("aaabdaaabac", pretokenize="none", end_of_word=None, rule=rule)
    assert trainer.pair_count((trainer.vocab.find("a"),) * 2) == 4  # overlapping pairs counted
    trainer.run()
    assert merge_strings(trainer) == merges
    assert trainer.record(2).ties == 2
    assert segmentation_strings(trainer) == [["aaab", "d", "aaab", "a", "c"]]


def test_hf_course_base_vocabulary_of_hug_pug_pun_bun_hugs():
    trainer = trainer_for("hug pug pun bun hugs", end_of_word=None)
    assert trainer.vocab.tokens == ["b", "g", "h", "n", "p", "s", "u"]


def test_hf_course_counts_merge_ug_then_un_then_hug():
    trainer = trainer_for("hug\t10\npug\t5\npun\t12\nbun\t4\nhugs\t5\n", counts=True, end_of_word=None)
    assert trainer.vocab.tokens == ["b", "g", "h", "n", "p", "s", "u"]
    trainer.run(merges=3)
    assert merge_strings(trainer) == [("u", "g"), ("u", "n"), ("h", "ug")]
    assert [r.count for r in trainer.history] == [20, 16, 15]


def test_hf_course_corpus_with_special_token():
    corpus = "\n".join(
        [
            "Hi my name is Jino",
            "I am sike years old",
            "This section shows several tokenizer algorithms.",
            "Hopefully, you will be able to understand how they are trained and generate tokens.",
            "Actually my name is Rohit",
        ]
    )
    trainer = trainer_for(corpus, lowercase=True, end_of_word=None, special_tokens=("<|endoftext|>",))
    assert trainer.vocab.tokens == ["<|endoftext|>", ",", ".", *"abcdefghijklmnoprstuvwyz"]
    trainer.run(vocab_size=50)
    assert trainer.vocab_size == 50
    assert merge_strings(trainer)[:3] == [("e", "r"), ("h", "i"), ("a", "m")]
    assert [r.count for r in trainer.history[:3]] == [4, 3, 3]


def test_two_process_counting_equals_one_process_in_content_and_order(monkeypatch):
    from collections import Counter

    from bpe_core.pipeline import pretokenize
    from tests.conftest import data_text

    # The real threshold is 4 MB; lowered, the data texts exercise the same two-process path.
    monkeypatch.setattr(pretokenize, "_PARALLEL_MIN", 100_000)
    text = "".join(
        data_text(name) for name in ("shakespeare_200k.txt", "kjv_genesis_100k.txt", "jargon_file_120k.txt")
    )
    for mode in ("whitespace", "gpt2", "words"):
        single = pretokenize.count_pieces(text, mode)
        double = pretokenize.count_pieces(text, mode, Counter(), workers=2)
        assert list(double.items()) == list(single.items()), mode
