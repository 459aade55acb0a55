"""The built-in samples: the classic worked examples of BPE, each named after where it comes from
and opened with its natural settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bpe_core import PipelineConfig, TrainingConfig

SAMPLES_DIR = Path(__file__).resolve().parents[1] / "resources" / "samples"
GPT2_RANKS = SAMPLES_DIR.parent / "tokenizers" / "gpt2.tiktoken"
GPT2_SAMPLE_NAME = "GPT-2's real tokenizer, counted on Shakespeare"
GPT2_SAMPLE_TIP = (
    "GPT-2's 50,000 merges and 50,257 tokens with their own ids (<|endoftext|> is 50256), imported "
    "from its tiktoken ranks, with the Shakespeare sample attached so every merge has a count."
)
GPT2_TEST_TEXT = "Hello world! GPT-2 splits unusual words like Tokenization into pieces.<|endoftext|>"


@dataclass(frozen=True)
class Sample:
    name: str
    file: str
    description: str
    config: PipelineConfig = field(default_factory=PipelineConfig)
    training: TrainingConfig = field(default_factory=TrainingConfig)
    input_kind: str = "text"
    target_vocab: int | None = None  # the sample's own "Run to target"; None: run until no pair qualifies
    test_text: str = ""  # what the Encode pane shows for it

    @property
    def path(self) -> Path:
        return SAMPLES_DIR / self.file

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")


NO_MARKER = PipelineConfig(end_of_word=None)

SAMPLES = (
    Sample(
        "low · lower · newest · widest (Sennrich, Haddow and Birch 2016)",
        "low_lower_newest_widest.tsv",
        'Sennrich, Haddow and Birch\'s example, as the "Byte Pair Encoding" note by Jexus walks it '
        "through: word counts with </w> as its own symbol; ten merges give es, est, est</w>, lo, low, …",
        input_kind="counts",
        test_text="the lowest newer widest",
    ),
    Sample(
        "old · older · finest · lowest (a subword tokenization primer)",
        "old_older_finest_lowest.tsv",
        "The NLP example of a subword tokenization primer: word counts with </w>; e s (13), es t (13), "
        "est </w> (13), o l (10), ol d (10).",
        input_kind="counts",
        test_text="the oldest finest holder",
    ),
    Sample(
        "FRED FED TED BREAD (Pharo's BytePairEncoder)",
        "fred.txt",
        'The Pharo BytePairEncoder walk-through ("Understanding Byte Pair Encoding"): _ ends each word; '
        "D _ (9) then E D_ (6); ten merges until no pair occurs twice.",
        PipelineConfig(end_of_word="_"),
        test_text="FRED EATS BREAD",
    ),
    Sample(
        "aaabdaaabac as one sequence (Gage 1994)",
        "aaabdaaabac.txt",
        "The classic data-compression example (Gage 1994; Wikipedia's table): aa, then a tie between "
        "aa·a and a·b (try the tie rules).",
        PipelineConfig(pretokenize="none", end_of_word=None),
        test_text="aaabdaaabac",
    ),
    Sample(
        "hug pug pun bun hugs (Hugging Face LLM course)",
        "hug_pug_pun_bun_hugs.tsv",
        "The Hugging Face LLM course's BPE chapter, with its counts (hug 10, pug 5, pun 12, bun 4, "
        "hugs 5): base vocabulary b g h n p s u, then ug (20), un (16), hug (15).",
        NO_MARKER,
        input_kind="counts",
        test_text="hugs bun pugs",
    ),
    Sample(
        "FloydHub sentence (FloydHub BPE notebook)",
        "floydhub.txt",
        "The FloydHub BPE notebook's sentence: lowercased words, no end-of-word marker.",
        PipelineConfig(lowercase=True, end_of_word=None),
        test_text="Train deep learning models in the cloud",
    ),
    Sample(
        "Five sentences with <|endoftext|> (Hugging Face LLM course)",
        "hf_course.txt",
        "The Hugging Face LLM course's BPE chapter: lowercased, no marker, one special token; train to a "
        "vocabulary of 50.",
        PipelineConfig(lowercase=True, end_of_word=None, special_tokens=("<|endoftext|>",)),
        target_vocab=50,
        test_text="Hi my name is Jino<|endoftext|>I am trained",
    ),
    Sample(
        "Shakespeare, 60 kB (public domain)",
        "shakespeare.txt",
        "A larger text: whitespace words with </w>.",
        test_text="Before we proceed any further, hear me speak.",
    ),
)
DEFAULT_SAMPLE = SAMPLES[0]
