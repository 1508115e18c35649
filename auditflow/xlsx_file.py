"""Writing an openpyxl workbook so that the same cells give the same bytes, and a killed run leaves no
half-written file.

An ``.xlsx`` is a zip. openpyxl stamps the document's creation time into ``docProps/core.xml`` and
the wall-clock time into every zip entry, so two runs on the same inputs differed only by when they
ran, and a workbook could not be checked byte for byte like ``results.md`` (docs/results.md is made
that way). Here the document times are a fixed instant and the entries carry the zip format's
earliest date; the workbook is written beside its target and moved into place in one step.
"""
from __future__ import annotations

import io
import os
import tempfile
import zipfile
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook
from openpyxl.xml.functions import tostring

FIXED_TIME = datetime(2000, 1, 1)  # the workbook's "created" and "modified": not the time of the run
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can carry
CORE_PROPERTIES = "docProps/core.xml"  # where a workbook keeps its creation and modification times


def workbook_bytes(wb: Workbook) -> bytes:
    """The workbook as a zip whose bytes depend only on its contents."""
    raw = io.BytesIO()
    wb.save(raw)  # stamps properties.modified with the clock, so core.xml is written again below
    wb.properties.created = wb.properties.modified = FIXED_TIME
    core = tostring(wb.properties.to_tree())
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(raw.getvalue())) as src, \
            zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=ZIP_EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            dst.writestr(entry, core if info.filename == CORE_PROPERTIES else src.read(info.filename))
    return out.getvalue()


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux), else by the
    set-and-restore the C library offers."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode(path: Path) -> int:
    """The permission bits ``open(path, "w")`` would leave: those of the file it replaces, else
    0o666 less the umask. A temporary file is created 0o600, so without this a workbook came out
    readable by its owner alone, unlike the HTML report or a redirected JSON report beside it."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def save_workbook(wb: Workbook, path: str | Path) -> None:
    """Write ``wb`` to ``path`` atomically: a temporary file in the same folder, then a rename, with
    the file mode an ordinary write would give it (:func:`file_mode`).
    Raises ``OSError`` as ``open`` would (a missing folder, no permission)."""
    path = Path(path)
    data = workbook_bytes(wb)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if hasattr(os, "fchmod"):  # POSIX; elsewhere a new file has no such bits to set
                os.fchmod(fh.fileno(), file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
