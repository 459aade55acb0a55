"""subword-nmt codes in and out, and minbpe .model in: against subword-nmt and tiktoken."""

import io
import itertools

import pytest
import tiktoken
from subword_nmt.apply_bpe import BPE
from subword_nmt.learn_bpe import learn_bpe

from bpe_core import Corpus, InputError, PipelineConfig, Trainer, TrainingConfig
from bpe_core.encoding.encoder import Encoder
from bpe_core.io.formats.codes import codes_text, read_codes, write_codes
from bpe_core.io.formats.minbpe_model import read_minbpe
from bpe_core.pipeline.byte_alphabet import display_to_bytes
from bpe_core.pipeline.pretokenize import MINBPE_GPT4_PATTERN
from tests.conftest import data_text

TEXT = "kjv_genesis_100k.txt"


def segmented(encoder: Encoder, line: str) -> list[str]:
    """Our segmentation of each word as apply_bpe prints it: ``th@@ e``, no ``</w>``."""
    out = []
    for word in line.split():
        parts = [t.removesuffix("</w>") for t in encoder.encode(word).tokens]
        parts = [p for p in parts if p]
        out.extend(p + "@@" for p in parts[:-1])
        out.append(parts[-1])
    return out


def test_codes_learned_by_subword_nmt_segment_here_as_apply_bpe_does(tmp_path):
    codes = io.StringIO()
    learn_bpe(io.StringIO(data_text(TEXT)), codes, 800, min_frequency=2)
    path = tmp_path / "codes"
    path.write_text(codes.getvalue(), encoding="utf-8")
    ours = read_codes(path)
    theirs = BPE(io.StringIO(codes.getvalue()))
    assert ours.config.attach_marker and len(ours.merges) == 800
    for line in data_text("shakespeare_200k.txt").splitlines()[:2000]:
        assert segmented(ours, line) == theirs.segment_tokens(line.split()), line
    write_codes(ours, tmp_path / "again")
    assert (tmp_path / "again").read_text(encoding="utf-8") == codes.getvalue()


@pytest.mark.parametrize("attached", [True, False])
def test_a_model_trained_here_as_codes_segments_identically_in_apply_bpe(attached, tmp_path):
    config = PipelineConfig(pretokenize="spaces", attach_marker=attached)  # as subword-nmt splits
    trainer = Trainer(Corpus.from_text(data_text(TEXT), config), TrainingConfig(tie_break="subword-nmt"))
    trainer.run(merges=600)
    ours = trainer.encoder()
    text = codes_text(ours)
    assert text.startswith("#version: 0.2\n") == attached
    theirs = BPE(io.StringIO(text))
    assert theirs.version == ((0, 2) if attached else (0, 1))
    for line in data_text("shakespeare_200k.txt").splitlines()[:2000]:
        if all(len(word) > 1 for word in line.split()):  # apply_bpe never merges a 1-letter word
            assert segmented(ours, line) == theirs.segment_tokens(line.split()), line
    write_codes(ours, tmp_path / "codes")
    again = read_codes(tmp_path / "codes")  # codes name no alphabet: compare the merges as strings

    def pairs(encoder):
        return [(encoder.keys[m.left], encoder.keys[m.right]) for m in encoder.merges]

    assert pairs(again) == pairs(ours) and again.config == ours.config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("#version: 0.2\nt h\nthe\n", "Line 3 .* is not two symbols"),
        ("#version: 0.2\nth e</w>\n", "uses 'th' before a merge makes it"),
        ("#version: 0.3\nt h\n", "has version '0.3'"),
    ],
)
def test_damaged_codes_are_refused_with_one_sentence(tmp_path, text, message):
    path = tmp_path / "codes"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_codes(path)


def test_codes_are_refused_for_models_they_cannot_hold():
    for config in (
        PipelineConfig(unit="byte"),
        PipelineConfig(end_of_word=None),
        PipelineConfig(lowercase=True),
    ):
        trainer = Trainer(Corpus.from_text("low lower lowest", config))
        trainer.run(merges=3)
        with pytest.raises(InputError, match="codes file"):
            codes_text(trainer.encoder())


def minbpe_file(pattern: str, merges: list[tuple[int, int]], specials: dict[str, int]) -> str:
    """A .model file as minbpe's ``Tokenizer.save`` writes it."""
    lines = ["minbpe v1", pattern, str(len(specials))]
    lines += [f"{token} {token_id}" for token, token_id in specials.items()]
    lines += [f"{a} {b}" for a, b in merges]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("at", [60000, 100257])
def test_a_minbpe_model_may_number_its_special_tokens_apart(tmp_path, at):
    """As minbpe's own tests do, a few merges trained with GPT-4's special tokens at 100257 and
    up (refused as "far beyond" before, with 64 merges)."""
    path = tmp_path / "gpt4like.model"
    specials = [f"<|endoftext|> {at}", f"<|endofprompt|> {at + 19}"]
    path.write_text("minbpe v1\n\n2\n" + "\n".join(specials) + "\n104 105\n", encoding="utf-8")
    encoder = read_minbpe(path)
    assert encoder.encode_ids("hi<|endoftext|><|endofprompt|>", allow_special=True) == [256, at, at + 19]


@pytest.mark.parametrize(
    ("pattern", "mode"),
    [
        (r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""", "gpt2"),
        (MINBPE_GPT4_PATTERN, "gpt4-minbpe"),
    ],
)
def test_a_minbpe_model_keeps_its_ids_and_encodes_as_its_ranks_do(tmp_path, pattern, mode):
    config = PipelineConfig(unit="byte", pretokenize=mode, end_of_word=None)
    trainer = Trainer(Corpus.from_text(data_text(TEXT), config), TrainingConfig(tie_break="first-seen"))
    trainer.run(merges=400)
    # minbpe numbers bytes by value: token ids of the merges in those terms.
    ids = {i: display_to_bytes(key)[0] for i, key in enumerate(trainer.vocab.keys[:256])}
    ids.update({256 + k: 256 + k for k in range(trainer.position)})
    merges = [(ids[r.pair[0]], ids[r.pair[1]]) for r in trainer.history]
    path = tmp_path / "toy.model"
    path.write_text(minbpe_file(pattern, merges, {"<|endoftext|>": 256 + len(merges)}), encoding="utf-8")
    ours = read_minbpe(path)
    ranks = {bytes([b]): b for b in range(256)}
    for k, (a, b) in enumerate(merges):
        made = {v: k for k, v in ranks.items()}
        ranks[made[a] + made[b]] = 256 + k
    theirs = tiktoken.Encoding(
        "minbpe", pat_str=pattern, mergeable_ranks=ranks, special_tokens={"<|endoftext|>": 256 + len(merges)}
    )
    text = data_text("shakespeare_200k.txt")[:100_000] + " <|endoftext|> the end \n\n "
    assert ours.encode_ids(text, allow_special=True) == theirs.encode(text, allowed_special="all")
    assert ours.config.pretokenize == mode and ours.keys[256 + len(merges)] == "<|endoftext|>"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("minbpe v2\n\n0\n", "does not start with 'minbpe v1'"),
        ("minbpe v1\n\\d+\n0\n", "pattern BPE Studio does not know"),
        ("minbpe v1\n\nx\n", "number of special tokens"),
        ("minbpe v1\n\n0\n97 300\n", "Line 4 .* two ids of tokens made before it"),
        ("minbpe v1\n\n1\n<s> 5\n97 98\n", "the special token '<s>' the id of a byte or merge"),
        ("minbpe v1\n\n1\n<s> 99999999\n97 98\n", "'<s>' the id 99,999,999, far beyond its 257 tokens"),
        # two tokens for one id (its first merge was read as a special token)
        ("minbpe v1\n\n2\n<a> 300\n<b> 300\n104 101\n", "the special tokens '<a>' and '<b>' the same id 300"),
    ],
)
def test_damaged_minbpe_models_are_refused_with_one_sentence(tmp_path, text, message):
    path = tmp_path / "bad.model"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_minbpe(path)


def minbpe_encode(model: str, text: str) -> list[int]:
    """What minbpe's ``load`` then ``encode`` give for a model without a split pattern or special
    tokens: ``load`` reads the merges into a dict in order (a pair listed again takes the later
    id), ``encode`` merges the pair of lowest id until none is left."""
    merges: dict[tuple[int, int], int] = {}
    for idx, line in enumerate(model.splitlines()[3:], start=256):
        left, right = map(int, line.split())
        merges[(left, right)] = idx
    ids = list(text.encode("utf-8"))
    while len(ids) >= 2:
        pair = min(itertools.pairwise(ids), key=lambda p: merges.get(p, float("inf")))
        if pair not in merges:
            break
        out, i = [], 0
        while i < len(ids):
            if ids[i : i + 2] == list(pair):
                out.append(merges[pair])
                i += 2
            else:
                out.append(ids[i])
                i += 1
        ids = out
    return ids


def test_a_minbpe_merge_listed_twice_takes_its_later_id_as_minbpe_loads_it(tmp_path):
    model = minbpe_file("", [(97, 98), (98, 99), (97, 98), (258, 99)], {})
    path = tmp_path / "dup.model"
    path.write_text(model, encoding="utf-8")
    ours = read_minbpe(path)
    for text in ["abc", "ab", "abcabc", "aabbcc", "bcab"]:
        assert ours.encode_ids(text) == minbpe_encode(model, text), text
    assert ours.encode_ids("ab") == [258] and ours.keys[256] == ""  # 256 names no token any more


def test_a_minbpe_model_using_the_id_of_a_merge_listed_again_later_is_refused(tmp_path):
    # minbpe itself fails to load it: its vocabulary has no token 256 once (97, 98) is 258.
    path = tmp_path / "dup.model"
    path.write_text(minbpe_file("", [(97, 98), (256, 99), (97, 98)], {}), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"^Line 6 .* lists the merge of line 4 again, yet line 5 uses its earlier id 256,"
    ):
        read_minbpe(path)


def test_a_codes_merge_listed_twice_keeps_its_first_place_as_apply_bpe_does(tmp_path):
    codes = "#version: 0.2\na b\nb c</w>\na b\n"
    path = tmp_path / "codes"
    path.write_text(codes, encoding="utf-8")
    ours, theirs = read_codes(path), BPE(io.StringIO(codes))
    for line in ["abc", "ab bc abc", "aabbc"]:
        assert segmented(ours, line) == theirs.segment_tokens(line.split()), line


def test_an_imported_minbpe_model_with_a_merge_listed_twice_opens_as_a_session(tmp_path):
    from bpe_core.io.imported import trainer_from_encoder

    path = tmp_path / "dup.model"
    path.write_text(minbpe_file("", [(97, 98), (98, 99), (97, 98)], {}), encoding="utf-8")
    encoder = read_minbpe(path)
    trainer = trainer_from_encoder(encoder)
    assert trainer.position == 2
    assert trainer.encoder().encode_ids("abc ab") == encoder.encode_ids("abc ab") == [97, 257, 32, 258]


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_a_minbpe_model_with_windows_line_endings_reads_as_minbpe_reads_it(tmp_path, newline):
    # minbpe writes in text mode (CRLF on Windows) and reads with universal newlines.
    text = minbpe_file(MINBPE_GPT4_PATTERN, [(104, 105), (256, 115)], {"<|endoftext|>": 300})
    plain, windows = tmp_path / "plain.model", tmp_path / "windows.model"
    plain.write_text(text, encoding="utf-8")
    windows.write_bytes(text.replace("\n", newline).encode("utf-8"))
    ours = read_minbpe(windows)
    assert ours.keys == read_minbpe(plain).keys and ours.config.pretokenize == "gpt4-minbpe"
    assert ours.encode_ids("his hi<|endoftext|>", allow_special=True) == [257, 32, 256, 300]


@pytest.mark.parametrize(
    "text", ["#version: 0.2\na\x00 b\n", "a \x00\n", "#version: 0.2\nt h\nth\x00 e</w>\n"]
)
def test_a_nul_in_a_codes_file_is_refused_not_read_as_the_end_of_word_marker(tmp_path, text):
    path = tmp_path / "model.codes"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(
        InputError, match=r"^The codes file .* holds a NUL character on line \d, which text never has\.$"
    ):
        read_codes(path)


# Words holding what str.split() would split at (a tab, no-break and ideographic spaces) and the
# line breaks Python's codecs read lines at besides \r and \n (a line's last word keeps them).
ODD_WORDS = [
    "low",
    "lower",
    "newest",
    "widest",
    "lo\tw",
    "ne\u3000w",
    "es\xa0t",
    "a\x0bb",
    "c\x85d",
    "e\u2028f",
]
ODD_GAPS = [" ", "  ", "\n", "\r\n", "\r", " \n", "\n\n", " \r\n ", "\x1c", "\u2029 "]


def test_spaces_split_as_subword_nmt_reads_a_file_in_learning_and_applying(tmp_path):
    """``--pretokenize spaces``: subword-nmt's command line reads a file through ``codecs`` (lines
    cut as str.splitlines cuts them), strips "\\r\\n " from each line and splits it at spaces."""
    import codecs

    words = itertools.cycle(ODD_WORDS)
    gaps = itertools.cycle(ODD_GAPS[:7] + ODD_GAPS)  # (cycles of coprime lengths: every pairing)
    text = "".join(next(words) + next(gaps) for _ in range(4_000))
    path = tmp_path / "corpus.txt"
    path.write_bytes(text.encode("utf-8"))
    codes = io.StringIO()
    with codecs.open(str(path), encoding="utf-8") as stream:  # as `subword-nmt learn-bpe --input` reads
        learn_bpe(stream, codes, 40, min_frequency=2)
    # (split at \n alone: a word may hold U+2028, which splitlines would cut at)
    theirs = [tuple(line.split(" ")) for line in codes.getvalue().split("\n")[1:] if line]
    config = PipelineConfig(pretokenize="spaces", attach_marker=True)
    trainer = Trainer(Corpus.from_text(text, config), TrainingConfig(tie_break="subword-nmt"))
    trainer.run(merges=len(theirs))
    ours = trainer.encoder()
    assert pairs(ours) == theirs
    at_whitespace = Trainer(Corpus.from_text(text, PipelineConfig(attach_marker=True)))
    at_whitespace.set_tie_break("subword-nmt")
    at_whitespace.run(merges=len(theirs))
    assert pairs(at_whitespace.encoder()) != theirs  # str.split() splits what subword-nmt does not
    (tmp_path / "codes").write_text(codes.getvalue(), encoding="utf-8")
    assert read_codes(tmp_path / "codes").config.pretokenize == "spaces"
    apply = BPE(io.StringIO(codes.getvalue()))
    with codecs.open(str(path), encoding="utf-8") as stream:
        lines = list(stream)
    assert any("\x0b" in line or "\u2028" in line for line in lines)
    for line in lines[:400]:
        assert segmented_whole(ours, line) == apply.segment_tokens(line.strip("\r\n ").split(" ")), repr(line)


def pairs(encoder: Encoder) -> list[tuple[str, str]]:
    return [(encoder.tokens[m.left], encoder.tokens[m.right]) for m in encoder.merges]


def segmented_whole(encoder: Encoder, line: str) -> list[str]:
    """The line encoded whole (split by the encoder's own pre-tokenizer), as apply_bpe prints it."""
    out: list[str] = []
    word: list[str] = []
    for token in encoder.encode(line).tokens:
        if not token.endswith("</w>"):
            word.append(token)
            continue
        parts = [*word, token.removesuffix("</w>")]
        parts = [part for part in parts if part]
        out.extend(part + "@@" for part in parts[:-1])
        out.append(parts[-1])
        word = []
    return out
