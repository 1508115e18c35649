"""Shared CLI plumbing: resolving filing arguments and building environments once per run."""
from __future__ import annotations

import os
from pathlib import Path

from auditflow.dataroot import ENV_VAR, data_root_or_none, resolve_data_root
from auditflow.errors import InputError
from auditflow.graphs.environment import AuditEnvironment, build_environment

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "acme-10k-2024" / "inline"


def resolve_filing_arg(arg: str | None, data_root: Path | None) -> Path:
    """A path as given, else a name under ``<data root>/filings*/``, else the bundled sample."""
    if not arg:
        return SAMPLE
    p = Path(arg)
    if p.exists():
        return p
    if data_root is not None:
        for folder in ("filings", "filings-rolled"):
            cand = data_root / folder / arg
            if cand.exists():
                return cand
    raise InputError(
        "no such filing; give a path to a filing folder, zip, instance or inline document, "
        "or the name of a folder under the data root's filings/ or filings-rolled/",
        path=arg,
    )


class EnvironmentFactory:
    """Loads the taxonomy once and joins each filing to it."""

    def __init__(self, args, *, taxonomy_graph: bool = True, filing_graph: bool = False) -> None:
        """``taxonomy_graph=False`` keeps only the taxonomy set: the DQC rules read the filer's own
        linkbases, so ``check`` needs the packages only to report what the filing imports but we lack."""
        self.eager_graph = filing_graph
        explicit = args.data_root or os.environ.get(ENV_VAR)
        # An explicitly named data root that is missing is an error; only the defaults are optional.
        self.data_root = resolve_data_root(args.data_root) if explicit else data_root_or_none()
        self.taxonomy_set = None
        self.taxonomy = None
        if not getattr(args, "no_taxonomy", False) and (self.data_root is not None or args.taxonomy):
            from auditflow.graphs.taxonomy_store import load_taxonomy_graph
            from auditflow.xbrl.packages import TaxonomySet

            self.taxonomy_set = TaxonomySet.discover(self.data_root, extra=[Path(t) for t in args.taxonomy]) if self.data_root else TaxonomySet.discover(None, extra=[Path(t) for t in args.taxonomy])
            if taxonomy_graph:
                self.taxonomy = load_taxonomy_graph(self.taxonomy_set)

    def build(self, filing_arg: str | None) -> AuditEnvironment:
        path = resolve_filing_arg(filing_arg, self.data_root)
        return build_environment(path, taxonomy_set=self.taxonomy_set, taxonomy=self.taxonomy, eager_graph=self.eager_graph)
