"""Finding a filing and building its audit environment: the one way the CLI, the cases and batch checks do it.

A filing is named by a path (a folder, zip, instance or inline document; relative to the case file for a
case), by the name of a folder under the data root's ``filings/`` or ``filings-rolled/``, by an EDGAR
accession number of a filing staged there, or not at all on the command line (the bundled sample).
AuditFlow never downloads: an accession that is not staged is an error that says where to put it.

A case file may come from anyone (a pull request), so its ``filing:`` is confined (issue 44): it must
lie inside the case file's folder, the data root, the project's root folder (pytest's rootdir, when
known) or AuditFlow's bundled samples, both as written and after symlinks are followed. The written
path is checked first, without touching the disk, so ``../../etc`` is refused before anything outside
is looked at, listed or opened (docs/reliability.md). A filing the user names on the command line may
be anywhere.
:class:`EnvironmentFactory` loads the taxonomy packages once and joins each filing to them;
:func:`shared_environment` is the unmutated environment of a filing built once per process, which many
audit cases on one filing read (docs/architecture.md).
"""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from auditflow.errors import InputError, quoted
from auditflow.graphs.environment import AuditEnvironment, build_environment

if TYPE_CHECKING:
    from auditflow.graphs.taxonomy_graph import TaxonomyGraph
    from auditflow.xbrl.packages import TaxonomySet

SAMPLES = Path(__file__).resolve().parents[1] / "samples"  # AuditFlow's bundled sample filings
SAMPLE = SAMPLES / "acme-10k-2024" / "inline"
FILING_FOLDERS = ("filings", "filings-rolled")
FORMAT_FOLDERS = ("xml", "inline", "ixbrl")  # a filing folder's sub-folder that only says the format
ACCESSION = re.compile(r"^\d{10}-?\d{2}-?\d{6}$")
MANIFESTS = ("MANIFEST-xbrl.md", "filings-rolled/MANIFEST.md")


class FilingError(InputError):
    """A filing that cannot be found, or that a case may not read; the message says what to give."""


def filing_name(path: Path) -> str:
    """What a filing given by path is called in cases and messages: its folder's name, or the parent's
    when the folder only says the format (``acme-10k-2024/xml``), or a file's stem."""
    return path.parent.name if path.name in FORMAT_FOLDERS else path.stem


def resolve_filing(spec: str, *, case_dir: Path, data_root: Path | None, rootdir: Path | None = None,
                   confine: bool = True) -> Path:
    """The filing's path: a path (absolute or relative to the case file), a data-root name, an accession.

    With ``confine`` (a case file's ``filing:``), the path must lie inside ``case_dir``, ``data_root``,
    ``rootdir`` or :data:`SAMPLES` (see the module docstring); ``confine=False`` is for a filing the
    user names on the command line, which may be anywhere.

    :raises FilingError: naming what was tried and how to fix it.
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
        raise FilingError(
            f"filing {quoted(spec)} is not a path relative to {case_dir} and no data root is available to look it "
            "up by name; give a data root (--data-root DIR, --auditflow-data-root DIR under pytest, or "
            "AUDITFLOW_DATA_ROOT), or the filing's path.")
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
        raise FilingError(
            f"EDGAR accession {spec} is not staged under {data_root}/filings/ (AuditFlow never downloads). "
            f"Download the filing's XBRL files into {data_root}/filings/<name>/, list it with its accession in "
            f"{data_root}/MANIFEST-xbrl.md, or name the folder or path directly.")
    raise FilingError(
        f"no such filing {quoted(spec)}: not a path relative to {case_dir}, and not a folder under "
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


def _escapes(spec: str, paths: list[Path], roots: _Roots, *, how: str = "points to") -> FilingError:
    return FilingError(
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


def locate_filing(spec: str | Path | None, data_root: Path | None) -> Path:
    """A filing the user names on the command line: a path as given (relative to the current folder),
    else :func:`resolve_filing`'s data-root names and accessions; nothing named is the bundled sample."""
    if spec is None or str(spec) == "":
        return SAMPLE
    path = Path(spec).expanduser()
    if path.exists():
        return path
    return resolve_filing(str(spec), case_dir=Path.cwd(), data_root=data_root, confine=False)


class EnvironmentFactory:
    """Loads the taxonomy once and joins each filing to it.

    ``taxonomy_graph=False`` keeps only the taxonomy set: the DQC rules read the filer's own linkbases,
    so ``check`` needs the packages only to report what the filing imports but the data root lacks.
    """

    def __init__(self, data_root: Path | None, *, taxonomies: Iterable[Path] = (), load_taxonomy: bool = True,
                 taxonomy_graph: bool = True, filing_graph: bool = False) -> None:
        self.data_root = data_root
        self.eager_graph = filing_graph
        self.taxonomy_set: TaxonomySet | None = None
        self.taxonomy: TaxonomyGraph | None = None
        extra = [Path(t) for t in taxonomies]
        if load_taxonomy and (data_root is not None or extra):
            from auditflow.xbrl import packages

            self.taxonomy_set = packages.TaxonomySet.discover(data_root, extra=extra)
            if taxonomy_graph:
                from auditflow.graphs.taxonomy_store import load_taxonomy_graph

                self.taxonomy = load_taxonomy_graph(self.taxonomy_set)

    def build(self, filing: str | Path | None) -> AuditEnvironment:
        """The environment of the filing named as :func:`locate_filing` reads it."""
        return build_environment(locate_filing(filing, self.data_root), taxonomy_set=self.taxonomy_set,
                                 taxonomy=self.taxonomy, eager_graph=self.eager_graph)


@lru_cache(maxsize=16)
def _shared(path: str) -> AuditEnvironment:
    return build_environment(path)


def shared_environment(path: Path) -> AuditEnvironment:
    """The unmutated environment of a filing (no taxonomy), built once per process and read by every
    case on it; loaded through the on-disk filing cache, so later processes skip the parse too."""
    return _shared(str(Path(path).resolve()))
