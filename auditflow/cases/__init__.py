"""Audit cases: the YAML case format, loading, ``inject:``, running, FinMR labels and suite results.

This is the engine side of the ``pytest --auditflow`` plugin (``pytest_auditflow``) and has no
pytest dependency. Case files follow :data:`CASE_FILE_SCHEMA` (published as
``auditflow/cases/case-schema-v2.json``).
"""
from __future__ import annotations

from auditflow.cases.errors import CaseFileError, CaseInputError, CaseSchemaError, ModelSpecError
from auditflow.cases.labels import LABELS, Judgement, Mismatch, Tally, judge, tally
from auditflow.cases.loader import is_case_file, load_case_file
from auditflow.cases.model import AuditCase, CaseQuery, Expectation, FactSelector, InjectSpec
from auditflow.cases.schema import CASE_FILE_SCHEMA, SCHEMA_VERSION, validate_case, validate_file
from auditflow.cases.settings import RunSettings

_LAZY = {"CaseOutcome", "run_case"}  # the runner imports the agent stack (langgraph): only on use


def __getattr__(name: str):
    if name in _LAZY:
        from auditflow.cases import runner

        return getattr(runner, name)
    raise AttributeError(f"module 'auditflow.cases' has no attribute {name!r}")

__all__ = [
    "AuditCase", "CASE_FILE_SCHEMA", "CaseFileError", "CaseInputError", "CaseOutcome", "CaseQuery", "CaseSchemaError",
    "Expectation", "FactSelector", "InjectSpec", "Judgement", "LABELS", "Mismatch", "ModelSpecError", "RunSettings",
    "SCHEMA_VERSION", "Tally", "is_case_file", "judge", "load_case_file", "run_case", "tally", "validate_case",
    "validate_file",
]
