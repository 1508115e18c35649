"""The command line's side of building environments: the data root as its flags name it.

Finding filings and building environments is :mod:`auditflow.graphs.factory`'s, for the CLI, the
cases and batch checks alike; this module only turns ``--data-root``, ``--taxonomy`` and
``--no-taxonomy`` into its arguments.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.dataroot import chosen_data_root
from auditflow.graphs.factory import EnvironmentFactory


def data_root_of(args) -> Path | None:
    """An explicitly named data root (flag or environment) must exist; only the defaults are optional."""
    return chosen_data_root(args.data_root)


def environment_factory(args, *, taxonomy_graph: bool = True, filing_graph: bool = False) -> EnvironmentFactory:
    return EnvironmentFactory(data_root_of(args), taxonomies=getattr(args, "taxonomy", ()) or (),
                              load_taxonomy=not getattr(args, "no_taxonomy", False), taxonomy_graph=taxonomy_graph,
                              filing_graph=filing_graph)
