"""subword-nmt codes in and out, and minbpe .model in (issue 10): against subword-nmt and tiktoken."""

import io

import pytest
import tiktoken
from subword_nmt.apply_bpe import BPE
from subword_nmt.learn_bpe import learn_bpe

from bpe_core import Corpus, InputError, PipelineConfig, Trainer, TrainingConfig
from bpe_core.byte_alphabet import display_to_bytes
from bpe_core.encoder import Encoder
from bpe_core.formats.codes import codes_text, read_codes, write_codes
from bpe_core.formats.minbpe_model import read_minbpe
from bpe_core.pretokenize import MINBPE_GPT4_PATTERN
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
    config = PipelineConfig(attach_marker=attached)
    trainer = Trainer(Corpus.from_text(data_text(TEXT), config), TrainingConfig(tie_break="subword-nmt"))
    trainer.run(merges=600)
    ours = Encoder.from_trainer(trainer)
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
        ("#version: 0.3\nt h\n", "has version 0.3"),
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
            codes_text(Encoder.from_trainer(trainer))


def minbpe_file(pattern: str, merges: list[tuple[int, int]], specials: dict[str, int]) -> str:
    """A .model file as minbpe's ``Tokenizer.save`` writes it."""
    lines = ["minbpe v1", pattern, str(len(specials))]
    lines += [f"{token} {token_id}" for token, token_id in specials.items()]
    lines += [f"{a} {b}" for a, b in merges]
    return "\n".join(lines) + "\n"


def test_a_minbpe_model_may_number_its_special_tokens_apart(tmp_path):
    path = tmp_path / "gpt4like.model"
    path.write_text("minbpe v1\n\n1\n<|endoftext|> 60000\n104 105\n", encoding="utf-8")
    encoder = read_minbpe(path)
    assert encoder.encode_ids("hi<|endoftext|>", allow_special=True) == [256, 60000]


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
        ("minbpe v1\n\n1\n<s> 5\n97 98\n", "an id of its bytes or merges"),
        ("minbpe v1\n\n1\n<s> 99999999\n97 98\n", "or one far beyond"),
    ],
)
def test_damaged_minbpe_models_are_refused_with_one_sentence(tmp_path, text, message):
    path = tmp_path / "bad.model"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_minbpe(path)
