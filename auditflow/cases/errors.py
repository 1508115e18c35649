"""Errors of the audit-case layer: each names the case file, the line and the field to fix."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from auditflow.errors import AuditflowError


@dataclass(frozen=True, slots=True)
class CaseSchemaError:
    """One problem in a case file, where it is (file, 1-based line, dotted field path) and what is wrong."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class CaseFileError(AuditflowError):
    """A case file that cannot be used: YAML syntax, schema or meaning. Lists every problem found."""

    def __init__(self, problems: Iterable[CaseSchemaError], *, file: str | Path) -> None:
        self.problems = tuple(problems)
        self.file = str(file)
        lines = "\n".join(f"  {p}" for p in self.problems)
        n = len(self.problems)
        super().__init__(
            f"{self.file}: {n} problem{'s' if n != 1 else ''} in this AuditFlow case file:\n{lines}\n"
            "Fix the fields named above; the schema is auditflow/cases/case-schema-v2.json "
            "(point your editor's YAML language server at it).")


class CaseInputError(AuditflowError):
    """A case that is well-formed but cannot run: its filing is missing, or an inject selector is wrong."""

    def __init__(self, message: str, *, file: str | Path | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        where = f"{file}:{line}: " if file and line else f"{file}: " if file else ""
        what = f"{field}: " if field else ""
        super().__init__(f"{where}{what}{message}")
        self.file, self.line, self.field = (str(file) if file else None), line, field


class ModelSpecError(AuditflowError):
    """A model spec this install cannot build (unknown, or the LLM layer is not available)."""


class GenerateError(AuditflowError):
    """The generator cannot start: an unknown filing, no data root, or an excluded case set that is not there."""
