"""Where a case's filing comes from, and loading each filing once per process.

A case names its filing as a path (relative to the case file), a folder name under the data
root's ``filings/`` or ``filings-rolled/``, or an EDGAR accession number of a filing staged there.
AuditFlow never downloads: an accession that is not staged is an error that says where to put it.

A case file may come from anyone (a pull request), so its ``filing:`` is confined (issue 44): it must
lie inside the case file's folder, the data root, the project's root folder (pytest's rootdir, when
known) or AuditFlow's bundled samples, both as written and after symlinks are followed. The written
path is checked first, without touching the disk, so ``../../etc`` is refused before anything outside
is looked at, listed or opened (docs/reliability.md).

Loading a real filing takes 0.1-1 s and a suite has many cases per filing, so filings and their
environments are cached per process by resolved path, and across processes by the on-disk filing
cache (:mod:`auditflow.xbrl.filing_cache`: content-keyed, ``AUDITFLOW_FILING_CACHE=off`` disables
it). Injected cases get a NEW filing from :func:`auditflow.mutations.apply_mutations` (the cached
one is never touched) and a fresh environment. The taxonomy graph is not loaded: no DQC rule reads it, and it would cost seconds.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from auditflow.cases.errors import CaseInputError
from auditflow.cases.model import AuditCase
from auditflow.cases.schema import quoted
from auditflow.graphs.environment import AuditEnvironment, build_environment
from auditflow.xbrl import filing_cache
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.loader import load_filing

FILING_FOLDERS = ("filings", "filings-rolled")
FORMAT_FOLDERS = ("xml", "inline", "ixbrl")  # a filing folder's sub-folder that only says the format
ACCESSION = re.compile(r"^\d{10}-?\d{2}-?\d{6}$")
MANIFESTS = ("MANIFEST-xbrl.md", "filings-rolled/MANIFEST.md")


def filing_name(path: Path) -> str:
    """What a filing given by path is called in cases and messages: its folder's name, or the parent's
    when the folder only says the format (``acme-10k-2024/xml``), or a file's stem."""
    return path.parent.name if path.name in FORMAT_FOLDERS else path.stem


SAMPLES = Path(__file__).resolve().parents[1] / "samples"  # AuditFlow's bundled sample filings


def resolve_filing(spec: str, *, case_dir: Path, data_root: Path | None, rootdir: Path | None = None,
                   confine: bool = True) -> Path:
    """The filing's path: a path (absolute or relative to the case file), a data-root name, an accession.

    With ``confine`` (a case file's ``filing:``), the path must lie inside ``case_dir``, ``data_root``,
    ``rootdir`` or :data:`SAMPLES` (see the module docstring); ``confine=False`` is for a filing the
    user names on the command line, which may be anywhere.

    :raises CaseInputError: naming what was tried and how to fix it.
    """
    roots = _Roots.of(case_dir, data_root, rootdir) if confine else None
    p = Path(spec) if confine else Path(spec).expanduser()  # ``~user`` would read the password database
    candidate = p if p.is_absolute() else case_dir / p
    outside = [] if roots is None or roots.holds(candidate) else [candidate]
    if not outside and candidate.exists():
        return _confined(candidate, spec, roots)
    if data_root is None:
        if outside:
            raise _escapes(spec, outside, roots)
        raise CaseInputError(
            f"filing {spec!r} is not a path relative to {case_dir} and no data root is available to look it up "
            "by name; pass --auditflow-data-root DIR (or set AUDITFLOW_DATA_ROOT), or give the filing's path.")
    name = _accession_folder(spec, data_root) if ACCESSION.match(spec) else spec
    for folder in FILING_FOLDERS:
        cand = data_root / folder / name
        if not name:
            continue
        if roots is not None and not roots.holds(cand):
            outside.append(cand)
        elif cand.exists():
            return _confined(cand, spec, roots)
    if outside:
        raise _escapes(spec, outside, roots)
    if ACCESSION.match(spec):
        raise CaseInputError(
            f"EDGAR accession {spec} is not staged under {data_root}/filings/ (AuditFlow never downloads). "
            f"Download the filing's XBRL files into {data_root}/filings/<name>/, list it with its accession in "
            f"{data_root}/MANIFEST-xbrl.md, or name the folder or path directly.")
    raise CaseInputError(
        f"no filing {spec!r}: not a path relative to {case_dir}, and not a folder under "
        f"{' or '.join(str(data_root / f) for f in FILING_FOLDERS)}.")


class _Roots:
    """The folders a case's filing may lie in, each as given (made absolute, ``..`` folded, no disk
    access) and as its real path, so a path is judged by its spelling before anything is looked up."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = folders
        self.written = [_lexical(f) for f in folders]
        self.real = [f.resolve() for f in folders]

    @classmethod
    def of(cls, case_dir: Path, data_root: Path | None, rootdir: Path | None) -> _Roots:
        return cls([f for f in (case_dir, data_root, rootdir, SAMPLES) if f is not None])

    def holds(self, path: Path) -> bool:
        """Whether ``path`` as written (``..`` folded, symlinks not followed) is inside a root."""
        p = _lexical(path)
        return any(p.is_relative_to(r) for r in (*self.written, *self.real))

    def holds_real(self, path: Path) -> bool:
        """Whether the real path (symlinks followed) is inside a root's real path."""
        return any(path.is_relative_to(r) for r in self.real)


def _lexical(path: Path) -> Path:
    return Path(os.path.normpath(os.path.abspath(path)))


def _confined(path: Path, spec: str, roots: _Roots | None) -> Path:
    """The real path of a filing found at ``path``, refused when a symlink leads it out of the roots."""
    real = path.resolve()
    if roots is not None and not roots.holds_real(real):
        raise _escapes(spec, [real], roots, how="leads through a symlink to")
    return real


def _escapes(spec: str, paths: list[Path], roots: _Roots, *, how: str = "points to") -> CaseInputError:
    return CaseInputError(
        f"filing {quoted(spec)} {how} {_lexical(paths[0])}, outside the folders a case's filing may come from "
        f"({', '.join(str(f) for f in roots.folders)}). A case file may come from anyone, so it reads no filing "
        "elsewhere (docs/reliability.md): copy the filing under one of them, or name it by its folder under the "
        "data root's filings/.")


def _accession_folder(accession: str, data_root: Path) -> str:
    """The staged folder of an accession: a folder named after it, or the manifest row that lists it."""
    digits = accession.replace("-", "")
    dashed = f"{digits[:10]}-{digits[10:12]}-{digits[12:]}"
    for folder in FILING_FOLDERS:
        for name in (dashed, digits):
            if (data_root / folder / name).exists():
                return name
    for manifest in MANIFESTS:
        try:
            text = (data_root / manifest).read_text(encoding="utf-8")
        except OSError:
            continue
        for line in text.splitlines():
            if dashed in line and (m := re.search(r"\|\s*`?([\w.-]+)`?\s*\|", line)):
                return m.group(1)
    return ""


@lru_cache(maxsize=16)
def _filing(path: str) -> Filing:
    """Through the on-disk filing cache (unless ``AUDITFLOW_FILING_CACHE=off``): every pytest or
    ``auditflow`` process that audits cases on this filing after the first skips parsing it."""
    if filing_cache.enabled():
        return filing_cache.load_filing_cached(path)
    return load_filing(path)


@lru_cache(maxsize=16)
def _environment(path: str) -> AuditEnvironment:
    return build_environment(_filing(path))


def base_environment(path: Path) -> AuditEnvironment:
    """The unmutated environment of a filing, built once per process (cases only read it)."""
    return _environment(str(Path(path).resolve()))


def case_environment(case: AuditCase, *, data_root: Path | None, rootdir: Path | None = None) -> AuditEnvironment:
    """The environment the case audits: the filing, with the case's ``inject:`` changes applied to a copy.

    :raises CaseInputError: the filing is not found or not allowed, naming the case file, line and value.
    """
    from auditflow.cases.inject import injected_environment

    try:
        path = resolve_filing(case.filing, case_dir=case.file.parent, data_root=data_root, rootdir=rootdir)
    except CaseInputError as exc:
        if exc.file is not None:
            raise
        raise CaseInputError(str(exc), file=case.where, line=case.line) from None
    env = base_environment(path)
    return injected_environment(env, case, data_root=data_root) if case.inject else env
