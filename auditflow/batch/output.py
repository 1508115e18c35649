"""The batch's results file: one whole JSON line per filing, appended as results arrive.

What a reader of ``results.jsonl`` can rely on (docs/batch.md, "Resume"):

* **whole lines**: each record is one ``write`` of its full line, newline included, on a file opened
  ``O_APPEND``, then fsynced; a record is on disk before the next one is written;
* **a torn last line is recovered**: a process killed during a write can leave the file ending
  without a newline; opening it for a batch cuts that tail off (it was never a record) before
  anything is appended;
* **resume by content**: :meth:`ResultsFile.done` is the set of content hashes already recorded, so
  ``--resume`` skips those filings and re-runs only the ones not yet written.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from auditflow.batch.task import FilingRecord
from auditflow.errors import InputError


@dataclass
class ResultsFile:
    """An open results file: the records it already held, and an append handle for new ones."""

    path: Path
    # the records, lightened (:func:`light`): what the summary and the exit code read, so the client's
    # memory does not grow with the findings of a large batch
    records: list[FilingRecord] = field(default_factory=list)
    torn_bytes: int = 0  # the length of the torn last line cut off on opening, 0 if none
    _fd: int | None = None

    @classmethod
    def open(cls, path: str | Path, *, resume: bool) -> ResultsFile:
        """Open ``path`` for a batch. Without ``resume`` it must be absent or empty.

        :raises InputError: the file has results and ``resume`` is off, or a line that is not a record
            (not the last one: a torn last line is cut, anything else is somebody else's file).
        """
        path = Path(path).expanduser()
        out = cls(path)
        if path.exists() and path.stat().st_size and not resume:
            raise InputError("the results file exists and holds results: give --resume to continue that batch, "
                             "or another --out path", path=str(path))
        if path.exists():
            out.records, out.torn_bytes = _read(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        out._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        return out

    def done(self) -> set[str]:
        """The content hashes of the filings already recorded (checked or errored)."""
        return {r.sha256 for r in self.records}

    def append(self, record: FilingRecord) -> None:
        """Write ``record`` as one whole line and make it durable before returning."""
        line = (json.dumps(record.to_json(), sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
        assert self._fd is not None, "append after close"
        written = os.write(self._fd, line)
        while written < len(line):  # a regular file takes the whole write; a short one is finished, not torn
            written += os.write(self._fd, line[written:])
        os.fsync(self._fd)
        self.records.append(light(record))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read(path: Path) -> tuple[list[FilingRecord], int]:
    """The records of ``path``, after cutting a torn last line off the file itself."""
    data = path.read_bytes()
    torn = 0
    if data and not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        torn = len(data) - keep
        with open(path, "r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        data = data[:keep]
    records: list[FilingRecord] = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict) or "sha256" not in row:
                raise ValueError("not a batch record")
            records.append(light(FilingRecord.from_json(row)))
        except ValueError as exc:
            raise InputError(f"this line is not a batch record ({exc}); is this the results file of a batch?",
                             path=str(path), line=number) from None
    return records, torn


def light(record: FilingRecord) -> FilingRecord:
    """``record`` with each finding reduced to its rule and no warnings."""
    return replace(record, findings=[{"rule": f.get("rule")} for f in record.findings or ()], warnings=[])


def read_records(path: str | Path) -> list[FilingRecord]:
    """Every record of a finished results file (nothing is cut or written)."""
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            out.append(FilingRecord.from_json(json.loads(line)))
    return out


def write_parquet(records: list[FilingRecord], path: str | Path) -> None:
    """The same rows as the JSON lines, as a parquet table (pyarrow, the ``parquet`` extra). The
    finding, warning and error lists are JSON text columns, so the table's schema does not depend on
    which rules found what."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("--format parquet needs pyarrow: pip install 'pytest-auditflow[parquet]'",
                         path=str(path)) from None
    columns = {
        "filing": [r.filing for r in records], "sha256": [r.sha256 for r in records],
        "status": [r.status for r in records], "rules": [list(r.rules) for r in records],
        "n_findings": [len(r.findings) for r in records],
        "findings": [json.dumps(r.findings, sort_keys=True) for r in records],
        "warnings": [json.dumps(r.warnings) for r in records],
        "seconds": [float(r.seconds) for r in records], "worker": [r.worker for r in records],
        "path": [r.path for r in records],
        "error": [json.dumps(r.error, sort_keys=True) if r.error else None for r in records],
    }
    tmp = Path(str(path) + ".tmp")
    pq.write_table(pa.table(columns), tmp)
    os.replace(tmp, path)
