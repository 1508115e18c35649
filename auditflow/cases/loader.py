"""Case files: which files are case files, and reading one into :class:`AuditCase` values.

A file is a case file when it is named ``*.case.yaml`` / ``*.case.yml``, or when it is a
``.yaml``/``.yml`` file with a top-level ``auditflow:`` key. Other YAML (CI configs, compose files)
is never read as cases.
"""
from __future__ import annotations

import re
from pathlib import Path

from auditflow.cases.errors import CaseFileError, CaseSchemaError
from auditflow.cases.model import AuditCase, build_cases
from auditflow.cases.schema import validate_file
from auditflow.cases.yamlsrc import parse_yaml

CASE_SUFFIXES = (".case.yaml", ".case.yml")
_TOP_LEVEL_KEY = re.compile(r"^auditflow\s*:", re.MULTILINE)


def is_case_file(path: Path) -> bool:
    """``*.case.yaml`` always; other ``.yaml``/``.yml`` files only with a top-level ``auditflow:`` key."""
    name = path.name.lower()
    if name.endswith(CASE_SUFFIXES):
        return True
    if path.suffix.lower() not in (".yaml", ".yml"):
        return False
    try:
        return bool(_TOP_LEVEL_KEY.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def load_case_file(path: Path, *, display: str | None = None) -> list[AuditCase]:
    """The cases of one file, in file order (xdist needs identical collection on every worker).

    ``display`` is how the file is named in messages (e.g. relative to the rootdir).

    :raises CaseFileError: listing every YAML, schema and meaning problem with its line and field.
    """
    shown = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaseFileError([CaseSchemaError(shown, 1, "", f"cannot read the file: {exc}")], file=shown) from None
    doc = parse_yaml(text, file=shown)
    if not isinstance(doc.data, dict):
        hint = "start the file with `auditflow: 1` and list the cases under `cases:`"
        raise CaseFileError([CaseSchemaError(shown, 1, "", f"the file must be a mapping; {hint}")], file=shown)
    problems = doc.duplicates + validate_file(doc.data, file=shown, line_map=doc.line_map)
    if problems:
        raise CaseFileError(problems, file=shown)
    cases, problems = build_cases(doc.data, file=path, line_map=doc.line_map, display=shown)
    if problems:
        raise CaseFileError(problems, file=shown)
    return cases
