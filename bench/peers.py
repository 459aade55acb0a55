"""The peers, as separate programs so they are timed exactly like ``bpe-studio``.

python bench/peers.py hf-train MODE FILE VOCAB_SIZE OUT.json
    MODE: plain | suffix | bytes | single-gpt2 | single
python bench/peers.py hf-encode MODEL.json FILE               (single thread)
python bench/peers.py hf-count MODE FILE...    (its training up to its first merge: the counting)
"""

from __future__ import annotations

import json
import sys


def hf_train(mode: str, path: str, vocab_size: int, out: str) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    options = {"vocab_size": vocab_size, "min_frequency": 2, "show_progress": False}
    if mode in ("plain", "suffix"):
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        if mode == "suffix":
            options["end_of_word_suffix"] = "</w>"
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=mode != "single")
        options["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(**options)
    if mode in ("single", "single-gpt2"):  # the whole file as one sequence
        with open(path, encoding="utf-8") as stream:
            tokenizer.train_from_iterator([stream.read()], trainer)
    else:  # the normal, fastest use: files, read in parallel
        tokenizer.train([path], trainer)
    tokenizer.save(out)


def hf_count(mode: str, paths: list[str]) -> None:
    """Hugging Face's training on the files, stopped before its first merge: it reads the files
    in parallel, counts the words, then their pairs (its normal, fastest way: ``train(files)``)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    options = {"vocab_size": 1, "show_progress": False}
    if mode == "plain":
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        options["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
    tokenizer.train(paths, trainers.BpeTrainer(**options))


def hf_encode(model: str, path: str) -> None:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(model)
    with open(path, encoding="utf-8") as stream:
        text = stream.read()
    encoding = tokenizer.encode(text)
    print(json.dumps({"tokens": len(encoding.ids)}))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "hf-train":
        hf_train(args[0], args[1], int(args[2]), args[3])
    elif command == "hf-count":
        hf_count(args[0], args[1:])
    elif command == "hf-encode":
        hf_encode(*args)
    else:
        raise SystemExit(f"unknown command {command}")
