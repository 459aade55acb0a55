"""The tokenizers already on this machine: fake Hugging Face and tiktoken caches laid out as
their libraries lay them out (blobs, snapshots of symlinks, ``refs/main``; files named by a
hash), found, resolved and read offline. Every test names its caches through ``environ``: the
real home and caches are never read."""

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from bpe_core import Corpus, PipelineConfig, Trainer, TrainingConfig
from bpe_core.errors import InputError
from bpe_core.io import local_tokenizers as local
from bpe_core.io.formats import read_tokenizer, write_tokenizer
from bpe_core.io.local_tokenizers import LocalTokenizer, find_local_tokenizers, resolve_hf
from tests.cli.test_contract import run
from tests.conftest import GPT2_RANKS, data_text

MAIN, OLD, OTHER = "a" * 40, "b" * 40, "c" * 40


def small_tokenizer(folder: Path) -> dict[str, Path]:
    """A small byte-level model (200 merges) as tokenizer.json and as GPT-2's vocab.json +
    merges.txt, and a stand-in tokenizer.model (a listing never parses it), by file name."""
    config = PipelineConfig(unit="byte", pretokenize="gpt2", end_of_word=None)
    trainer = Trainer(Corpus.from_text(data_text("kjv_genesis_100k.txt")[:20_000], config), TrainingConfig())
    trainer.run(merges=200)
    files = {"tokenizer.json": write_tokenizer(trainer.encoder(), "hf", folder / "tokenizer.json")[0]}
    for path in write_tokenizer(trainer.encoder(), "gpt2", folder / "gpt2"):
        files[path.name] = path
    files["tokenizer.model"] = folder / "tokenizer.model"
    files["tokenizer.model"].write_bytes(b"\x0a\x07\x0a\x03<s>\x15\x00\x00\x00\x00")
    return files


@pytest.fixture(scope="module")
def tokenizer_files(tmp_path_factory) -> dict[str, Path]:
    return small_tokenizer(tmp_path_factory.mktemp("model"))


def add_model(cache: Path, name: str, snapshots: dict[str, dict[str, Path]], main: str | None = None) -> Path:
    """The model ``name`` in a Hugging Face cache as huggingface_hub leaves it: each file once in
    ``blobs/`` (named by its hash), each snapshot's files relative symlinks to them, ``refs/main``
    naming the ``main`` snapshot. ``snapshots``: revision -> file name in the snapshot -> content."""
    folder = cache / "--".join(["models", *name.split("/")])
    (folder / "blobs").mkdir(parents=True, exist_ok=True)
    for revision, files in snapshots.items():
        for file, source in files.items():
            data = source.read_bytes()
            blob = folder / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            link = folder / "snapshots" / revision / file
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(blob, link.parent))
    if main is not None:
        (folder / "refs").mkdir(exist_ok=True)
        (folder / "refs" / "main").write_text(main)
    return folder


def tiktoken_cache(folder: Path, *sources: Path) -> list[Path]:
    """Files in tiktoken's cache, named as tiktoken names them: the SHA-1 of an address."""
    folder.mkdir(parents=True, exist_ok=True)
    copies = []
    for source in sources:
        address = f"https://example.invalid/{source.name}"
        copies.append(folder / hashlib.sha1(address.encode()).hexdigest())
        shutil.copyfile(source, copies[-1])
    return copies


def caches(tmp_path: Path) -> dict[str, str]:
    return {"HF_HUB_CACHE": str(tmp_path / "hub"), "TIKTOKEN_CACHE_DIR": str(tmp_path / "tiktoken")}


def test_models_and_tiktoken_encodings_are_listed_by_name_with_what_to_open(tmp_path, tokenizer_files):
    hub = tmp_path / "hub"
    json_only = {"tokenizer.json": tokenizer_files["tokenizer.json"]}
    gpt2_files = {f: tokenizer_files[f] for f in ("vocab.json", "merges.txt")}
    add_model(hub, "openai-community/gpt2", {MAIN: {**json_only, **gpt2_files}}, main=MAIN)
    add_model(hub, "gpt2", {MAIN: gpt2_files}, main=MAIN)
    add_model(
        hub, "meta-llama/Llama-2-7b-hf", {MAIN: {"tokenizer.model": tokenizer_files["tokenizer.model"]}}
    )
    add_model(hub, "stabilityai/sd-turbo", {MAIN: {f"tokenizer/{f}": p for f, p in gpt2_files.items()}})
    [ranks] = tiktoken_cache(tmp_path / "tiktoken", GPT2_RANKS)
    found = find_local_tokenizers(caches(tmp_path))
    snapshot = hub / "models--openai-community--gpt2" / "snapshots" / MAIN
    assert found == [
        LocalTokenizer("gpt2", hub / "models--gpt2" / "snapshots" / MAIN, "gpt2", "hf-cache", revision=MAIN),
        LocalTokenizer(
            "meta-llama/Llama-2-7b-hf",
            hub / "models--meta-llama--Llama-2-7b-hf" / "snapshots" / MAIN / "tokenizer.model",
            "sentencepiece",
            "hf-cache",
            revision=MAIN,
        ),
        LocalTokenizer("openai-community/gpt2", snapshot / "tokenizer.json", "hf", "hf-cache", revision=MAIN),
        LocalTokenizer("r50k_base", ranks, "tiktoken", "tiktoken-cache", "r50k_base"),
        LocalTokenizer(
            "stabilityai/sd-turbo",
            hub / "models--stabilityai--sd-turbo" / "snapshots" / MAIN / "tokenizer",
            "gpt2",
            "hf-cache",
            revision=MAIN,
        ),
    ]
    assert [t.description for t in found] == [
        "GPT-2 vocab.json + merges.txt",
        "SentencePiece model",
        "Hugging Face tokenizer.json",
        "tiktoken ranks",
        "GPT-2 vocab.json + merges.txt",
    ]
    # What is listed opens as it is: the same merges through every way a model is kept.
    opened = {t.name: read_tokenizer(t.path, pattern=t.encoding) for t in found if t.kind != "sentencepiece"}
    assert opened["openai-community/gpt2"].format == "hf" and opened["gpt2"].format == "gpt2"
    assert opened["gpt2"].encoder.merges == opened["openai-community/gpt2"].encoder.merges
    assert opened["stabilityai/sd-turbo"].encoder.merges == opened["gpt2"].encoder.merges
    gpt2 = opened["r50k_base"].encoder
    assert gpt2.encode_ids("Hello world<|endoftext|>", allow_special=True) == [15496, 995, 50256]


def test_the_main_snapshot_is_preferred_else_the_newest_that_holds_a_tokenizer(tmp_path, tokenizer_files):
    hub = tmp_path / "hub"
    json_only = {"tokenizer.json": tokenizer_files["tokenizer.json"]}
    weights_only = {"config.json": tokenizer_files["vocab.json"]}
    add_model(hub, "org/main-first", {OLD: json_only, MAIN: json_only, OTHER: json_only}, main=MAIN)
    add_model(hub, "org/main-without", {OLD: json_only, MAIN: weights_only}, main=MAIN)
    add_model(hub, "org/no-ref", {OLD: json_only, OTHER: json_only})
    add_model(hub, "org/ref-gone", {OLD: json_only}, main=MAIN)
    add_model(hub, "org/bad-ref", {OLD: json_only}, main="../../escape")
    for name, revision in (("org/main-first", OLD), ("org/no-ref", OLD)):  # older than the rest
        folder = hub / "--".join(["models", *name.split("/")]) / "snapshots" / revision
        os.utime(folder, (time.time() - 3600, time.time() - 3600))
    revisions = {t.name: t.revision for t in find_local_tokenizers(caches(tmp_path))}
    assert revisions == {
        "org/main-first": MAIN,
        "org/main-without": OLD,
        "org/no-ref": OTHER,
        "org/ref-gone": OLD,
        "org/bad-ref": OLD,
    }
    resolved = resolve_hf("hf:org/main-without", caches(tmp_path))
    assert resolved == hub / "models--org--main-without" / "snapshots" / OLD / "tokenizer.json"


def test_broken_links_unreadable_folders_and_odd_names_are_passed_over(tmp_path, tokenizer_files):
    hub = tmp_path / "hub"
    json_only = {"tokenizer.json": tokenizer_files["tokenizer.json"]}
    add_model(hub, "org/good", {MAIN: json_only}, main=MAIN)
    broken = add_model(hub, "org/broken", {MAIN: json_only}, main=MAIN)
    shutil.rmtree(broken / "blobs")  # every snapshot link now points nowhere
    looped = hub / "models--org--looped" / "snapshots" / MAIN
    looped.mkdir(parents=True)
    (looped / "tokenizer.json").symlink_to("tokenizer.json")
    (hub / "models--org--file-for-snapshots").mkdir()
    (hub / "models--org--file-for-snapshots" / "snapshots").write_text("not a folder")
    for odd in ("models--a--b--c", "models--", "models--org--", "models--.hidden", "models--a..b"):
        add_model(hub, odd.removeprefix("models--").replace("--", "/"), {MAIN: json_only}, main=MAIN)
    add_model(hub.parent / "elsewhere", "x", {MAIN: json_only})
    (hub / "datasets--org--data").mkdir()
    (hub / "version.txt").write_text("1")
    (hub / ".locks").mkdir()
    (hub / "models--not-a-folder").write_text("")
    locked = add_model(hub, "org/locked", {MAIN: json_only}, main=MAIN)
    locked.chmod(0)
    try:
        names = [t.name for t in find_local_tokenizers(caches(tmp_path))]
    finally:
        locked.chmod(0o755)
    can_read_anything = os.geteuid() == 0  # root reads a folder without permissions
    assert names == ["org/good", *(["org/locked"] if can_read_anything else [])]


def test_missing_or_unreadable_caches_list_nothing(tmp_path):
    assert find_local_tokenizers(caches(tmp_path)) == []
    (tmp_path / "hub").write_text("a file, not the cache")
    assert find_local_tokenizers(caches(tmp_path)) == []


def test_tiktoken_files_are_known_by_content_else_listed_only_if_they_look_like_ranks(tmp_path):
    folder = tmp_path / "tiktoken"
    [known] = tiktoken_cache(folder, GPT2_RANKS)
    lines = GPT2_RANKS.read_bytes().splitlines(keepends=True)
    (tmp_path / "cut.tiktoken").write_bytes(b"".join(lines[:1000]))
    [unknown] = tiktoken_cache(folder, tmp_path / "cut.tiktoken")
    for name, data in (
        ("encoder.json", b'{"!": 0, "\\"": 1}\n'),  # GPT-2's data-gym files: not ranks
        ("vocab.bpe", b"#version: 0.2\n\xc4\xa0 t\n"),
        ("empty", b""),
        ("one-line", b"IQ== 0"),  # no line ends: not a file tiktoken wrote
        ("not-base64", b"I!Q= 0\nIg== 1\n"),
        ("writing.0d1c.tmp", lines[0]),
    ):
        (folder / name).write_bytes(data)
    (folder / "gone").symlink_to(folder / "nowhere")
    (folder / "sub").mkdir()
    found = find_local_tokenizers({"HF_HUB_CACHE": str(tmp_path / "hub"), "TIKTOKEN_CACHE_DIR": str(folder)})
    assert found == [
        LocalTokenizer(unknown.name, unknown, "tiktoken", "tiktoken-cache"),
        LocalTokenizer("r50k_base", known, "tiktoken", "tiktoken-cache", "r50k_base"),
    ]
    assert found[0].description == "tiktoken ranks (unknown encoding)"


def test_what_is_hashed_is_capped_and_a_second_listing_hashes_only_what_changed(tmp_path, monkeypatch):
    folder = tmp_path / "tiktoken"
    [first] = tiktoken_cache(folder, GPT2_RANKS)
    second = folder / "second"
    shutil.copyfile(first, second)
    hashed = []
    real = local.encoding_of_file
    monkeypatch.setattr(local, "_hashed", {})
    monkeypatch.setattr(local, "encoding_of_file", lambda path: hashed.append(path) or real(path))
    environ = {"HF_HUB_CACHE": str(tmp_path / "hub"), "TIKTOKEN_CACHE_DIR": str(folder)}

    def encodings() -> list:
        return [(t.path, t.encoding) for t in sorted(find_local_tokenizers(environ), key=lambda t: t.path)]

    size = first.stat().st_size
    monkeypatch.setattr(local, "HASHED_IN_ALL", size + 1)  # room for one of the two
    assert encodings() == [(first, "r50k_base"), (second, None)]
    assert hashed == [first]
    monkeypatch.setattr(local, "HASHED_IN_ALL", 10 * size)
    assert encodings() == [(first, "r50k_base"), (second, "r50k_base")]
    assert hashed == [first, second]  # the first one's encoding is remembered
    monkeypatch.setattr(local, "HASHED_UP_TO", size - 1)
    os.utime(second, ns=(0, 0))  # changed: hashed again, if it may be
    assert encodings() == [(first, "r50k_base"), (second, None)]
    assert hashed == [first, second]


def test_caches_are_found_where_their_libraries_look(tmp_path):
    home = tmp_path / "home"
    assert local.hf_cache_dir({"HOME": str(home)}) == home / ".cache" / "huggingface" / "hub"
    assert local.hf_cache_dir({"HOME": str(home), "XDG_CACHE_HOME": "/x"}) == Path("/x/huggingface/hub")
    assert local.hf_cache_dir({"HOME": str(home), "HF_HOME": "~/hf"}) == home / "hf" / "hub"
    assert local.hf_cache_dir({"HF_HOME": "$BASE/hf", "BASE": "/b"}) == Path("/b/hf/hub")
    assert local.hf_cache_dir({"HF_HOME": "/h", "HUGGINGFACE_HUB_CACHE": "/old"}) == Path("/old")
    assert local.hf_cache_dir({"HUGGINGFACE_HUB_CACHE": "/old", "HF_HUB_CACHE": "/new"}) == Path("/new")
    assert local.tiktoken_cache_dir({"TMPDIR": "/t"}) == Path("/t/data-gym-cache")
    assert local.tiktoken_cache_dir({"DATA_GYM_CACHE_DIR": "/d", "TMPDIR": "/t"}) == Path("/d")
    assert local.tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": "/k", "DATA_GYM_CACHE_DIR": "/d"}) == Path("/k")
    assert local.tiktoken_cache_dir({"TIKTOKEN_CACHE_DIR": "", "DATA_GYM_CACHE_DIR": "/d"}) is None
    environ = {"HF_HUB_CACHE": "/h", "TIKTOKEN_CACHE_DIR": ""}
    assert local.searched_folders(environ) == [Path("/h")]


def test_resolving_a_model_that_is_not_there_says_where_it_looked_in_one_sentence(tmp_path, tokenizer_files):
    environ = caches(tmp_path)
    hub = tmp_path / "hub"
    with pytest.raises(InputError) as missing:
        resolve_hf("hf:org/absent", environ)
    assert str(missing.value) == (
        f"hf:org/absent is not in the Hugging Face cache at {hub} (nothing is downloaded); fetch it "
        "with `hf download org/absent tokenizer.json`, or name another cache with HF_HUB_CACHE."
    )
    add_model(hub, "Org/Model", {MAIN: {"tokenizer.json": tokenizer_files["tokenizer.json"]}}, main=MAIN)
    add_model(hub, "org/weights", {MAIN: {"model.safetensors": tokenizer_files["vocab.json"]}}, main=MAIN)
    with pytest.raises(InputError, match=r"; the cache holds hf:Org/Model\.$"):
        resolve_hf("hf:org/model", environ)
    with pytest.raises(InputError, match=r"^hf:org/weights is in the Hugging Face cache at .*, but none"):
        resolve_hf("hf:org/weights", environ)
    for bad in ("hf:", "hf:a/b/c", "hf:../x", "hf:org/", "hf:a b"):
        with pytest.raises(InputError, match="is not a Hugging Face model's name"):
            resolve_hf(bad, environ)
    assert resolve_hf("Org/Model", environ) == resolve_hf("hf:Org/Model", environ)
    assert ". " not in str(missing.value)  # one sentence


def test_the_command_line_reads_hf_names_from_the_cache_and_a_missing_one_in_one_sentence(
    tmp_path, tokenizer_files, monkeypatch
):
    hub = tmp_path / "hub"
    add_model(
        hub, "openai-community/gpt2", {MAIN: {"tokenizer.json": tokenizer_files["tokenizer.json"]}}, main=MAIN
    )
    add_model(
        hub, "distilgpt2", {MAIN: {f: tokenizer_files[f] for f in ("vocab.json", "merges.txt")}}, main=MAIN
    )
    for variable in ("HUGGINGFACE_HUB_CACHE", "HF_HOME"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    expected = read_tokenizer(tokenizer_files["tokenizer.json"]).encoder.encode_ids("In the beginning")
    for name in ("hf:openai-community/gpt2", "hf:distilgpt2"):
        code, out, err = run("encode", "--model", name, "In the beginning", "--json")
        assert (code, err) == (0, "") and json.loads(out)["ids"] == expected
    session = tmp_path / "gpt2.json"
    code, out, err = run("import", "hf:openai-community/gpt2", "-o", str(session))
    assert code == 0 and out.startswith("Imported hf:openai-community/gpt2 (Hugging Face tokenizer.json): ")
    code, out, _ = run("encode", "--model", str(session), "In the beginning", "--json")
    assert json.loads(out)["ids"] == expected
    code, out, err = run("import", "hf:org/absent", "-o", str(tmp_path / "absent.json"))
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert f"hf:org/absent is not in the Hugging Face cache at {hub} (nothing is downloaded)" in err
    assert not (tmp_path / "absent.json").exists()
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(tokenizer_files["tokenizer.json"], tmp_path / "hf:org")  # a file of that very name wins
    code, out, _ = run("encode", "--model", "hf:org", "In the beginning", "--json")
    assert code == 0 and json.loads(out)["ids"] == expected
