"""Case files and folders -> the cases to evaluate, each keyed by the plugin's node id.

Keys are ``<file relative to the rootdir>::<case id>``, exactly the node ids ``pytest --auditflow``
reports, so a row of ``results.json`` can be matched with a pytest run or its ``--auditflow-json``
file. Folders are walked the way pytest collects them (hidden folders, ``build``, ``dist``,
``node_modules``, ``venv`` and eggs are not entered); only case files are read (see
:func:`auditflow.cases.loader.is_case_file`). Cases are sorted by key: the order in which paths were
given, or files were found, must not change a report.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from auditflow.cases.errors import CaseFileError
from auditflow.cases.loader import is_case_file, load_case_file
from auditflow.cases.model import AuditCase
from auditflow.errors import AuditflowError

NO_RECURSE = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}", "__pycache__")


@dataclass(frozen=True, slots=True)
class KeyedCase:
    """A case and its node id."""

    key: str
    case: AuditCase


@dataclass(frozen=True)
class CaseSet:
    """The cases to evaluate (sorted by key) and the case files they came from (sorted)."""

    cases: tuple[KeyedCase, ...]
    files: tuple[str, ...]


def case_files(paths: Iterable[Path]) -> list[Path]:
    """Every case file named or found under the given folders, each once.

    :raises AuditflowError: a path that does not exist, or a named file that is not a case file.
    """
    found: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise AuditflowError(f"no such case file or folder: {raw}")
        if path.is_file():
            if not is_case_file(path):
                raise AuditflowError(f"{raw} is not a case file: name it *.case.yaml, or start it with `auditflow: 1`")
            found[path.resolve()] = None
            continue
        for file in _walk(path):
            found[file.resolve()] = None
    return sorted(found)


def _walk(folder: Path) -> Iterable[Path]:
    for entry in sorted(folder.iterdir()):
        if entry.is_dir():
            if not any(fnmatch.fnmatch(entry.name, pat) for pat in NO_RECURSE):
                yield from _walk(entry)
        elif is_case_file(entry):
            yield entry


def collect_cases(paths: Iterable[Path], *, display: Callable[[Path], str]) -> CaseSet:
    """Load every case of every file; ``display`` names a file as the plugin does (rootdir-relative).

    :raises CaseFileError: the one file that does not load, with every problem in it.
    :raises AuditflowError: several files do not load (all are read first, so one run shows them all),
        or there is no case at all.
    """
    files = case_files(paths)
    cases: dict[str, KeyedCase] = {}
    errors: list[CaseFileError] = []
    for file in files:
        shown = display(file)
        try:
            for case in load_case_file(file, display=shown):
                key = f"{shown}::{case.id}"
                cases[key] = KeyedCase(key, case)
        except CaseFileError as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise AuditflowError(f"{len(errors)} case files do not load:\n" + "\n".join(map(str, errors)))
    if not cases:
        raise AuditflowError(f"no audit case found in {', '.join(map(str, paths))}: case files are *.case.yaml, "
                             "or YAML files with a top-level `auditflow:` key")
    return CaseSet(tuple(cases[k] for k in sorted(cases)), tuple(sorted(display(f) for f in files)))
