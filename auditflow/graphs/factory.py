"""Finding a filing and building its audit environment: the one way the CLI, the cases and batch checks do it.

A filing is named by a path (a folder, zip, instance or inline document), by the name of a folder under
the data root's ``filings/`` or ``filings-rolled/``, or not at all (the bundled sample).
:class:`EnvironmentFactory` loads the taxonomy packages once and joins each filing to them;
:func:`shared_environment` is the unmutated environment of a filing built once per process, which many
audit cases on one filing read (docs/architecture.md).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from auditflow.errors import InputError
from auditflow.graphs.environment import AuditEnvironment, build_environment

if TYPE_CHECKING:
    from auditflow.graphs.taxonomy_graph import TaxonomyGraph
    from auditflow.xbrl.packages import TaxonomySet

SAMPLES = Path(__file__).resolve().parents[1] / "samples"  # AuditFlow's bundled sample filings
SAMPLE = SAMPLES / "acme-10k-2024" / "inline"
FILING_FOLDERS = ("filings", "filings-rolled")


def data_root_filing(name: str, data_root: Path | None) -> Path | None:
    """The folder ``name`` under the data root's filing folders, if there is one."""
    if data_root is None or not name:
        return None
    for folder in FILING_FOLDERS:
        candidate = data_root / folder / name
        if candidate.exists():
            return candidate
    return None


def locate_filing(spec: str | Path | None, data_root: Path | None) -> Path:
    """A filing the user names: a path as given, else a name under the data root's filing folders,
    else an error that says what may be given; nothing named is the bundled sample."""
    if spec is None or str(spec) == "":
        return SAMPLE
    path = Path(spec).expanduser()
    if path.exists():
        return path
    found = data_root_filing(str(spec), data_root)
    if found is not None:
        return found
    raise InputError(
        "no such filing; give a path to a filing folder, zip, instance or inline document, "
        f"or the name of a folder under the data root's {' or '.join(f + '/' for f in FILING_FOLDERS)}",
        path=str(spec),
    )


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
