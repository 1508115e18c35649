"""Must show (issue 43): a batch on a local dask cluster reports, filing for filing, the findings a
serial ``auditflow check --format json`` prints, on the 29 real filings of the data root."""
from __future__ import annotations

import json

import pytest

from tests.batch.conftest import auditflow, batch_findings, real_filings

pytest.importorskip("distributed", reason="needs the batch extra: pip install 'pytest-auditflow[batch]'")


def test_batch_on_two_workers_equals_serial_check(tmp_path, data_root, serial_findings):
    out = tmp_path / "results.jsonl"
    proc = auditflow(["check", "--batch", str(data_root / "filings"), str(data_root / "filings-rolled"),
                      "--workers", "2", "--out", str(out), "--no-progress"], data_root)
    assert proc.returncode == 1, proc.stderr  # the real filings have findings, and none errors
    batch = batch_findings(out)
    assert len(batch) == len(real_filings(data_root)) == 29
    assert batch == serial_findings
    assert sum(map(len, batch.values())) > 0  # a comparison of empty lists would prove nothing
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len({r["worker"] for r in rows}) == 2, "both workers took filings"
    assert "29 checked now" in proc.stderr and "findings by rule:" in proc.stderr and "slowest:" in proc.stderr
