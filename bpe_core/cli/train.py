"""``bpe-studio train``: learn merges from a corpus file, then print a summary (or the merges as
JSON), save the model with ``-o`` and a walk-through with ``--walkthrough``.

Sessions, the walk-through and the compare tool (for ``--json``) are imported only by the runs
that use them: a bare ``train`` loads the corpus and the trainer, nothing else.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import TYPE_CHECKING, TextIO

from bpe_core.cli.common import TO_STDOUT, VISIBLE, CountProgress, ProgressBar, amount, write_out
from bpe_core.cli.options import (
    counting_given,
    field_of,
    note_field_unread,
    note_lines_unread,
    note_records_on_stdin,
    pipeline_of,
    stdin_kind_of,
    tie_break_option,
    training_options,
)
from bpe_core.errors import ConfigError
from bpe_core.history.merge_line import LineView
from bpe_core.io.corpus_files import counts_files, load_corpus
from bpe_core.io.counts_file import is_counts_file, states_pipeline
from bpe_core.io.sources import STDIN, refuse_overwriting_inputs
from bpe_core.runtime.fileio import check_writable, replaced_together, write_atomic
from bpe_core.runtime.gc_pause import without_gc
from bpe_core.training.config import TrainingConfig
from bpe_core.training.trainer import Trainer

if TYPE_CHECKING:
    from bpe_core.pipeline.config import PipelineConfig
    from bpe_core.pipeline.corpus import Corpus
    from bpe_core.tools.compare import Run


def options_train(parser: argparse.ArgumentParser) -> None:
    training_options(parser)
    tie_break_option(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="MODEL.json",
        help="save the model/session here (- writes it to standard output)",
    )
    parser.add_argument("--json", action="store_true", help="print the merges as one JSON object")
    parser.add_argument(
        "--walkthrough",
        metavar="FILE.md",
        help="write every iteration as a lesson document (HTML if FILE ends in .html; - to standard output)",
    )


# The collector paused for the whole command, not only while merging: once training ends, the
# first collection would re-scan the hundreds of thousands of containers the engine holds (none
# of them in a cycle) while the output is written, a tenth of a run's time.
@without_gc
def run_train(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    started = time.perf_counter()
    config = pipeline_of(args)
    training = TrainingConfig(
        min_frequency=args.min_frequency, tie_break=args.tie_break, merges_per_pass=args.merges_per_pass
    )
    to_stdout = [path for path in (args.output, args.walkthrough) if path == TO_STDOUT]
    if len(to_stdout) > 1 or (to_stdout and args.json):
        raise ConfigError(
            "Only one of -o -, --walkthrough - and --json can write to standard output; "
            "name a file for the others."
        )
    files = [path for path in (args.output, args.walkthrough) if path is not None and path != TO_STDOUT]
    for path in files:
        check_writable(path)  # now, not after minutes of training
    if len(files) == 2 and _same_path(*files):
        raise ConfigError(f"-o and --walkthrough both name {args.output!r}; one would replace the other.")
    refuse_overwriting_inputs(files, args.file)
    trainer = Trainer(corpus_of_inputs(args, config, stderr), training)
    note_counts_order(args, [training], stderr)
    note_unstated_pipeline(args, stderr)
    bar = ProgressBar(
        stderr, args.merges or (max(0, args.vocab_size - trainer.vocab_size) if args.vocab_size else 0)
    )
    base_size = trainer.vocab_size
    reason = trainer.run(merges=args.merges, vocab_size=args.vocab_size, progress=bar.update)
    bar.close()
    message = reason.value
    if args.vocab_size is not None and args.vocab_size < base_size:
        message = (
            f"the vocabulary starts with {base_size:,} tokens (special tokens and the alphabet), "
            f"more than the {args.vocab_size:,} requested, so no merge was made"
        )
    with replaced_together():  # the model and its walk-through: both new, or both as they were
        if args.output:
            from bpe_core.io.session import session_text

            _write(args.output, session_text(trainer), stdout)
        if args.walkthrough:
            from bpe_core.tools.walkthrough import walkthrough

            html_output = args.walkthrough.lower().endswith((".html", ".htm"))
            source = ", ".join(os.path.basename(name) or name for name in args.file)
            _write(args.walkthrough, walkthrough(trainer, html_output=html_output, source=source), stdout)
    if args.json:
        # One write: json.dump streams thousands of tiny writes, several times slower.
        stdout.write(
            json.dumps(_train_json(trainer, reason.name.lower(), message), ensure_ascii=False) + "\n"
        )
    else:
        # Beside a model written to standard output, the summary goes where messages go.
        out = stderr if to_stdout else stdout
        _train_summary(trainer, message, time.perf_counter() - started, args.output, out)
    return 0


def _write(path: str, text: str, stdout: TextIO) -> None:
    """``text`` written to the file ``path`` atomically, or to ``stdout`` where it is ``-``."""
    if path == TO_STDOUT:
        write_out(text, stdout)
    else:
        write_atomic(path, text)


def corpus_of_inputs(args: argparse.Namespace, config: PipelineConfig, stderr: TextIO) -> Corpus:
    """The corpus of the inputs ``train`` and ``compare`` were given, counted with progress;
    counts files bring the pipeline that counted them (the corpus's ``config``), refused where
    an option given says otherwise."""
    note_records_on_stdin(args, stderr)
    note_field_unread(args, stderr)
    note_lines_unread(args, stderr)
    progress = CountProgress(stderr)
    # A command-line process has no threads, so counting may fork its workers.
    corpus = load_corpus(
        args.file,
        config,
        args.input,
        progress.update,
        args.workers,
        field_of(args),
        fork=True,
        stdin_kind=stdin_kind_of(args),
        chosen=counting_given(args),
        lines=args.lines,
    )
    progress.close()
    return corpus


def note_counts_order(args: argparse.Namespace, trainings: list[TrainingConfig], stderr: TextIO) -> None:
    """Say, once, that a rule going by text order meets word counts ``count`` wrote (sorted by
    count, so keeping no text order): its ties go by the counts' order, and may differ from
    training on the text itself. A list of word counts of one's own (``low 5``) is left
    unremarked: its order is its author's, as the README says first-seen follows."""
    by_order = [t.rule.spec for t in trainings if t.rule.depends_on_position]
    if (
        args.input == "counts"
        and by_order
        and any(
            is_counts_file(name)
            for name in counts_files(args.file)
            if name != STDIN  # read already
        )
    ):
        stderr.write(
            f"bpe-studio: note: word counts keep no text order, so {by_order[0]} breaks ties "
            "in the counts' order and may merge otherwise than on the text; hf, subword-nmt and "
            "lexicographic merge the same either way.\n"
        )


def note_unstated_pipeline(args: argparse.Namespace, stderr: TextIO) -> None:
    """Say, once, that counts whose header states no pipeline (counted with the defaults, or
    written before headers said) are taken as pieces of the counting options given: counted
    otherwise, the merges would be learnt on other pieces than the model encodes with."""
    given = counting_given(args)
    if args.input != "counts" or not given:
        return
    for name in counts_files(args.file):
        if name != STDIN and is_counts_file(name) and not states_pipeline(name):
            stderr.write(
                f"bpe-studio: note: {name!r} does not say how it was counted, so its words are taken "
                f"as pieces of the options given ({', '.join(sorted(_OPTION_NAMES[s] for s in given))}): "
                "they must be those it was counted with.\n"
            )
            return


_OPTION_NAMES = {
    "normalization": "--normalize",
    "lowercase": "--lowercase",
    "pretokenize": "--pretokenize",
    "special_tokens": "--special-token",
    "prefix_space": "--prefix-space",
}


def _same_path(a: str, b: str) -> bool:
    """Whether two output paths name one file (by any spelling, once it exists)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _train_json(trainer: Trainer, reason: str, message: str) -> dict:
    from bpe_core.tools.compare import run_of

    run = run_of(trainer, trainer.rule.spec, trainer.history)
    return {
        "merges": merges_json(run, trainer.training.merges_per_pass != 1),
        "vocab_size": trainer.vocab_size,
        "stop_reason": reason,
        "stop_message": message,
    }


def merges_json(run: Run, passes: bool) -> list[dict]:
    """A run's merges as ``train --json`` prints them (and ``compare --json`` each run's);
    ``"pass"`` only with several merges per pass (the classic output stays as it always was)."""
    shown = run.display
    counts, ties = _column(run, "count"), _column(run, "ties")
    merges = [
        {"pair": [shown(left), shown(right)], "token": shown(left + right), "count": count, "ties": tied}
        for (left, right), count, tied in zip(run.merges, counts, ties, strict=True)
    ]
    if passes:
        for merge, number in zip(merges, _column(run, "pass_number"), strict=True):
            merge["pass"] = number
    return merges


def _column(run: Run, name: str) -> list[int]:
    """One field of every record of ``run``: read from the line's column when it is one (a
    record built for each merge costs more than the whole JSON)."""
    records = run.records
    if isinstance(records, LineView):
        return records.column(name).tolist()
    return [getattr(record, name) for record in records]


def _train_summary(trainer: Trainer, reason: str, seconds: float, output: str | None, out: TextIO) -> None:
    initial = trainer.initial_point
    corpus = trainer.corpus
    merged = trainer.vocab_size - initial.vocab_size
    ratio = initial.corpus_tokens / max(1, trainer.corpus_tokens)
    passes = ""
    if trainer.training.merges_per_pass != 1 and trainer.position:
        number = trainer.record(trainer.position).pass_number
        passes = f" ({number:,} pass{'es' * (number != 1)})"
    done = f"Trained {amount(trainer.position, 'merge')}{passes} in {seconds:.1f} s"
    print(f"{done}; stopped: {reason}.", file=out)
    print(
        f"Corpus: {amount(trainer.word_count, 'word type')}, {amount(corpus.total_words, 'word')}; "
        f"{initial.corpus_tokens:,} -> {trainer.corpus_tokens:,} tokens ({ratio:.2f}x fewer).",
        file=out,
    )
    print(
        f"Vocabulary: {trainer.vocab_size:,} tokens ({trainer.vocab.n_special} special, "
        f"{trainer.vocab.n_base:,} base, {merged:,} merged).",
        file=out,
    )
    tied = sum(1 for r in trainer.history if r.ties > 1)
    print(
        f"Ties: {tied:,} of {amount(trainer.position, 'merge')} met a tie, decided by {trainer.rule.spec}.",
        file=out,
    )
    shown = trainer.history[:10]
    if shown:
        token = trainer.token_string
        preview = ", ".join(
            f"{token(r.pair[0]).translate(VISIBLE)} + {token(r.pair[1]).translate(VISIBLE)} ({r.count:,})"
            for r in shown
        )
        print(f"First merges: {preview}{', ...' if trainer.position > len(shown) else ''}", file=out)
    if output == TO_STDOUT:
        print("Wrote the model to standard output.", file=out)
    elif output:
        print(f"Saved the model to {output}.", file=out)
