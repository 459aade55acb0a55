"""tiktoken ranks in and out: exact ids against tiktoken itself."""

import itertools

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import Corpus, InputError, PipelineConfig, Trainer, TrainingConfig
from bpe_core.io.formats.recovery import LONGEST
from bpe_core.io.formats.tiktoken_ranks import encoder_from_ranks, merges_of, ranks_of, ranks_text, read_ranks
from tests.conftest import GPT2_RANKS, corpus_path, data_text

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
TEXTS = ("shakespeare_200k.txt", "kjv_genesis_100k.txt", "jargon_file_120k.txt")


@pytest.fixture(scope="module")
def gpt2():
    """Our encoder and tiktoken's, from the same file of GPT-2's ranks."""
    ranks = read_ranks(GPT2_RANKS)
    theirs = tiktoken.Encoding("gpt2-file", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    return encoder_from_ranks(ranks, "gpt2"), theirs


@pytest.mark.parametrize("name", TEXTS)
def test_gpt2_ranks_give_tiktokens_ids_exactly(gpt2, name):
    ours, theirs = gpt2
    text = data_text(name)
    assert ours.encode_ids(text) == theirs.encode_ordinary(text)
    assert ours.decode(ours.encode_ids(text)) == text


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=60))
def test_gpt2_ranks_on_any_unicode(gpt2, text):
    ours, theirs = gpt2
    assert ours.encode_ids(text) == theirs.encode_ordinary(text)


@pytest.mark.corpora
@pytest.mark.parametrize("name", ["tinyshakespeare.txt", "taylorswift.txt", "english_10mb.txt"])
def test_gpt2_ranks_on_the_shared_corpora(gpt2, name):
    ours, theirs = gpt2
    text = corpus_path(name).read_text(encoding="utf-8")
    assert ours.encode_ids(text) == theirs.encode_ordinary(text)


def test_ids_are_kept_and_a_round_trip_is_identical(tmp_path):
    ranks = read_ranks(GPT2_RANKS)
    encoder = encoder_from_ranks(ranks)
    assert len(encoder.keys) == 50256 and encoder.tokens[50255] == "Ġgazed"  # GPT-2's last merge
    path = tmp_path / "again.tiktoken"
    path.write_text(ranks_text(ranks_of(encoder)), encoding="ascii")
    assert read_ranks(path) == ranks
    assert path.read_bytes() == (GPT2_RANKS).read_bytes()


def test_a_model_trained_here_and_written_as_ranks_encodes_identically_in_tiktoken(tmp_path):
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(
        Corpus.from_text(data_text("shakespeare_200k.txt"), config), TrainingConfig(tie_break="hf")
    )
    trainer.run(merges=800)
    ours = trainer.encoder()
    path = tmp_path / "model.tiktoken"
    path.write_text(ranks_text(ranks_of(ours)), encoding="ascii")
    theirs = tiktoken.Encoding(
        "ours", pat_str=GPT2_PATTERN, mergeable_ranks=read_ranks(path), special_tokens={}
    )
    for name in TEXTS:
        text = data_text(name)
        assert theirs.encode_ordinary(text) == ours.encode_ids(text)
    # And read back: the same encoder, ids and all.
    assert encoder_from_ranks(read_ranks(path)).encode_ids(text) == ours.encode_ids(text)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"IQ== 0\nnot-base64! 1\n", "Line 2 .* not base64"),
        (b"IQ== 0\nIQ== 1\n", "Line 2 .* repeats a token"),
        (b"IQ== zero\n", "Line 1 .* not 'base64-token rank'"),
        (b"IQ== 0\nIg== 5\n", "not 0, 1, 2"),
    ],
)
def test_a_damaged_ranks_file_is_refused_with_one_sentence(tmp_path, content, message):
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message):
        read_ranks(path)


def test_ranks_that_are_not_byte_level_bpe_are_refused():
    with pytest.raises(InputError, match="lack the single byte 0"):
        encoder_from_ranks({b"a": 0})
    # "abcd" is ab + cd, both of lower rank, but merging in rank order makes a bc d first: said
    # so (it read "cannot be made from two tokens of lower rank", which is not so).
    unreachable = {bytes([b]): b for b in range(256)} | {b"bc": 256, b"ab": 257, b"cd": 258, b"abcd": 259}
    with pytest.raises(InputError, match="'abcd' of rank 259 is never made by merging its bytes"):
        encoder_from_ranks(unreachable)
    for config in (
        PipelineConfig(),
        PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None, lowercase=True),
        PipelineConfig(unit="byte", pretokenize="words", end_of_word=None),
        PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None, prefix_space=True),
        PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None, normalization="nfkc"),
    ):  # the file cannot say any of these: a reader would encode otherwise
        with pytest.raises(InputError, match="byte-level merges split by the GPT-2, cl100k or o200k"):
            ranks_of(Trainer(Corpus.from_text("a b", config)).encoder())


def test_a_token_longer_than_any_real_tokenizers_is_refused(tmp_path):
    import base64

    path = tmp_path / "long.tiktoken"
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'a' * (LONGEST + 1)).decode()} 256")
    path.write_text("\n".join(lines), encoding="ascii")
    with pytest.raises(InputError, match=f"a token of {LONGEST + 1:,} bytes"):
        read_ranks(path)


@pytest.mark.parametrize("merges", [0, 3])
def test_a_model_whose_special_tokens_come_first_is_refused_for_tiktoken(merges):
    """Trained here, special tokens take the first ids; with no merge the export wrote an empty
    file and said it wrote 257 tokens (found by an adversarial pass)."""
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None, special_tokens=("<s>",))
    trainer = Trainer(Corpus.from_text("fred fed ted bread", config))
    trainer.run(merges=merges)
    with pytest.raises(InputError, match="special tokens do not come after its ranks"):
        ranks_of(trainer.encoder())


# -- recovering the merges: the same as byte-level BPE of each token, without its cost --------


def merges_by_bpe(ranks: dict[bytes, int]) -> list[tuple[int, int]] | int:
    """The merges as the definition gives them: each token's bytes merged by BPE with the ranks
    below its own (tiktoken's rule: the adjacent pair whose join ranks lowest, leftmost first)
    must end in two tokens, its pair; else the rank of the first token that does not."""
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        parts = [token[i : i + 1] for i in range(len(token))]
        while len(parts) > 2:
            found = [(ranks.get(a + b, rank), i) for i, (a, b) in enumerate(itertools.pairwise(parts))]
            best, i = min(found)
            if best >= rank:
                break
            parts[i : i + 2] = [parts[i] + parts[i + 1]]
        if len(parts) == 2:
            merges.append((ranks[parts[0]], ranks[parts[1]]))
        elif len(parts) > 2:
            return rank
    return merges


def recovered(ranks: dict[bytes, int]) -> list[tuple[int, int]] | int:
    try:
        return [(m.left, m.right) for m in merges_of(ranks)[1]]
    except InputError as error:
        return int(error.args[0].split("rank ")[1].split()[0])


@st.composite
def grown_ranks(draw) -> dict[bytes, int]:
    """Ranks grown by joining two tokens at random, over a few bytes: many tokens have several
    cuts into two tokens, and some cannot be made from two of lower rank at all."""
    ranks = {bytes([b]): b for b in range(256)}
    tokens = [b"a", b"b", b"c"]
    for _ in range(draw(st.integers(1, 40))):
        joined = draw(st.sampled_from(tokens)) + draw(st.sampled_from(tokens))
        if joined not in ranks and len(joined) <= 24:
            ranks[joined] = len(ranks)
            tokens.append(joined)
    return ranks


@st.composite
def long_grown_ranks(draw) -> dict[bytes, int]:
    """Ranks grown by joining recent tokens to any: they pass 128 bytes, where prefixes are
    found by hashing them (bpe_core.io.formats.recovery)."""
    ranks = {bytes([b]): b for b in range(256)}
    tokens = [b"a", b"b"]
    for _ in range(draw(st.integers(1, 30))):
        joined = draw(st.sampled_from(tokens[-4:])) + draw(st.sampled_from(tokens))
        if joined not in ranks and len(joined) <= 300:
            ranks[joined] = len(ranks)
            tokens.append(joined)
    return ranks


@settings(max_examples=1500, deadline=None)
@given(ranks=grown_ranks())
def test_recovered_merges_are_what_bpe_of_each_token_makes(ranks):
    assert recovered(ranks) == merges_by_bpe(ranks)


@settings(max_examples=40, deadline=None)
@given(ranks=long_grown_ranks())
def test_recovered_merges_of_long_tokens_are_what_bpe_of_each_token_makes(ranks):
    assert recovered(ranks) == merges_by_bpe(ranks)


def test_runs_and_alternations_as_long_as_a_ranks_file_holds_are_recovered_as_bpe_makes_them():
    ranks = {bytes([b]): b for b in range(256)}
    for length in range(2, LONGEST + 1):
        ranks[b"x" * length] = len(ranks)
        ranks[(b"xy" * length)[:length]] = len(ranks)
        ranks[(b"zzw" * length)[:length]] = len(ranks)
    expected = merges_by_bpe({t: r for t, r in ranks.items() if len(t) <= 160})  # the rest takes minutes
    assert recovered(ranks)[: len(expected)] == expected
    half = b"x" * (LONGEST // 2)
    assert [ranks[half], ranks[half]] == list(recovered(ranks)[-3])  # the longest run: two halves


def test_ranks_written_here_are_read_back_here_with_tokens_of_thousands_of_bytes(tmp_path):
    """Runs of a byte make tokens of 1,024 bytes and more, which tiktoken reads: the file written
    was refused when read back (at most 512 bytes a token were read)."""
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(Corpus.from_text(" ".join(["a" * 2000] * 3), config), TrainingConfig(tie_break="hf"))
    trainer.run()
    ranks = ranks_of(trainer.encoder())
    assert max(map(len, ranks)) >= 1024
    path = tmp_path / "long.tiktoken"
    path.write_text(ranks_text(ranks), encoding="ascii")
    theirs = tiktoken.Encoding("long", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})
    ours = encoder_from_ranks(read_ranks(path))
    for text in ["a" * 1500, "a" * 2000 + " " + "a" * 7, "b aa"]:
        assert ours.encode_ids(text) == theirs.encode_ordinary(text)
    # Longer than a ranks file is read here: refused on export, in one sentence.
    trainer = Trainer(Corpus.from_text(" ".join(["a" * (2 * LONGEST + 1)] * 3), config), TrainingConfig())
    trainer.run()
    with pytest.raises(InputError, match=r"^The model has a token of [0-9,]+ bytes .* export it as"):
        ranks_of(trainer.encoder())
