"""Where a case's filing comes from, and the environment the case audits.

Finding the filing (a path relative to the case file, a data-root name or a staged accession, confined
to the folders a case may read) and building its environment are :mod:`auditflow.graphs.factory`'s,
the one way the CLI, the cases and batch checks do both; here a refusal becomes the case's input error
(:class:`CaseInputError`, naming the case file and line), and a case's ``inject:`` changes are applied to
a copy of the shared, unmutated environment (:func:`auditflow.mutations.apply_mutations`: the shared one
is never touched).
"""
from __future__ import annotations

from pathlib import Path

from auditflow.cases.errors import CaseInputError
from auditflow.cases.model import AuditCase
from auditflow.graphs import factory
from auditflow.graphs.environment import AuditEnvironment
from auditflow.graphs.factory import FilingError, shared_environment


def resolve_filing(spec: str, *, case_dir: Path, data_root: Path | None, rootdir: Path | None = None,
                   confine: bool = True) -> Path:
    """:func:`auditflow.graphs.factory.resolve_filing`, its refusal as the case layer's error."""
    try:
        return factory.resolve_filing(spec, case_dir=case_dir, data_root=data_root, rootdir=rootdir, confine=confine)
    except FilingError as exc:
        raise CaseInputError(str(exc)) from None


def case_environment(case: AuditCase, *, data_root: Path | None, rootdir: Path | None = None) -> AuditEnvironment:
    """The environment the case audits: the filing, with the case's ``inject:`` changes applied to a copy.

    :raises CaseInputError: the filing is not found or not allowed, naming the case file, line and value.
    """
    from auditflow.cases.inject import injected_environment

    try:
        path = factory.resolve_filing(case.filing, case_dir=case.file.parent, data_root=data_root, rootdir=rootdir)
    except FilingError as exc:
        raise CaseInputError(str(exc), file=case.where, line=case.line) from None
    env = shared_environment(path)
    return injected_environment(env, case, data_root=data_root) if case.inject else env
