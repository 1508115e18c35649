"""Case files: which files are case files, and reading one into :class:`AuditCase` values.

A file is a case file when it is named ``*.case.yaml`` / ``*.case.yml``, or when it is a
``.yaml``/``.yml`` file with a top-level ``auditflow:`` key. Other YAML (CI configs, compose files)
is never read as cases.

Neither question reads a file whole before knowing its size (issue 44: a 2 GB ``.yaml`` once cost
2.1 GB, or a raw ``MemoryError``): a case file is read through
:func:`auditflow.xbrl.safezip.read_regular_file`, which checks the size with ``fstat`` and refuses
FIFOs and devices; the sniff reads a file of at most 16 MiB whole, and of a larger one only the
first 64 KiB (such a file, if it names itself a case file, is then refused by its size). See
docs/reliability.md.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from auditflow.cases.errors import CaseFileError, CaseSchemaError
from auditflow.cases.model import AuditCase, build_cases
from auditflow.cases.schema import validate_file
from auditflow.cases.yamlsrc import MAX_TEXT, parse_yaml
from auditflow.errors import InputError, UnsafeInputError
from auditflow.xbrl.safezip import read_regular_file

CASE_SUFFIXES = (".case.yaml", ".case.yml")
_TOP_LEVEL_KEY = re.compile(r"^auditflow\s*:", re.MULTILINE)
SNIFF_HEAD = 64 * 1024  # what the sniff reads of a .yaml over MAX_TEXT bytes


def is_case_file(path: Path) -> bool:
    """``*.case.yaml`` always; other ``.yaml``/``.yml`` files only with a top-level ``auditflow:`` key."""
    name = path.name.lower()
    if name.endswith(CASE_SUFFIXES):
        return True
    if path.suffix.lower() not in (".yaml", ".yml"):
        return False
    return bool(_TOP_LEVEL_KEY.search(_sniffed(path).decode("utf-8", errors="replace")))


def _sniffed(path: Path) -> bytes:
    """What the sniff reads: a regular file of at most MAX_TEXT bytes whole, of a larger one its first
    SNIFF_HEAD bytes; nothing of a FIFO, device or unreadable file (opened non-blocking, never waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return b""
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return b""
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read(st.st_size if st.st_size <= MAX_TEXT else SNIFF_HEAD)
    except OSError:
        return b""
    finally:
        os.close(fd)


def load_case_file(path: Path, *, display: str | None = None) -> list[AuditCase]:
    """The cases of one file, in file order (xdist needs identical collection on every worker).

    ``display`` is how the file is named in messages (e.g. relative to the rootdir).

    :raises CaseFileError: listing every YAML, schema and meaning problem with its line and field.
    """
    shown = display or str(path)
    doc = parse_yaml(_case_text(path, shown), file=shown)
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


def _case_text(path: Path, shown: str) -> str:
    """The file's text, read only once its size (``fstat``) is within MAX_TEXT bytes.

    :raises CaseFileError: the file is missing, not a regular file, too large or not UTF-8.
    """
    try:
        data = read_regular_file(path, limit=MAX_TEXT)
    except FileNotFoundError:
        raise _unreadable(shown, "it does not exist") from None
    except UnsafeInputError as exc:  # too large, a FIFO or a device: the reason without the path
        why = str(exc).removeprefix(f"{path}: ")
        raise _unreadable(shown, f"{why} (a case file is a regular file of at most {MAX_TEXT // 2**20} MiB; "
                                 "split a larger one, see docs/reliability.md)") from None
    except InputError as exc:  # e.g. permission denied
        raise _unreadable(shown, str(exc).removeprefix(f"{path}: ")) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _unreadable(shown, f"not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None


def _unreadable(shown: str, why: str) -> CaseFileError:
    return CaseFileError([CaseSchemaError(shown, 1, "", f"cannot read the file: {why}")], file=shown)
