"""Workbooks are written so that the same cells give the same bytes, whenever they are made, and a
failed write leaves neither a half-written workbook nor a temporary file behind."""
from __future__ import annotations

import zipfile

import pytest
from openpyxl import Workbook, load_workbook

from auditflow import xlsx_file
from auditflow.xlsx_file import save_workbook


def _book(value: float) -> Workbook:
    wb = Workbook()
    wb.active.append(("rate", value))
    return wb


def test_same_cells_same_bytes_at_different_times(tmp_path, monkeypatch):
    import datetime as real

    class Later(real.datetime):
        @classmethod
        def now(cls, tz=None):  # openpyxl and zipfile read the clock; both must be ignored
            return real.datetime(2031, 5, 6, 7, 8, 9)

    save_workbook(_book(0.5), tmp_path / "a.xlsx")
    monkeypatch.setattr("time.localtime", lambda *a: (2031, 5, 6, 7, 8, 9, 0, 126, 0))
    monkeypatch.setattr(real, "datetime", Later)
    save_workbook(_book(0.5), tmp_path / "b.xlsx")
    assert (tmp_path / "a.xlsx").read_bytes() == (tmp_path / "b.xlsx").read_bytes()
    save_workbook(_book(0.25), tmp_path / "c.xlsx")
    assert (tmp_path / "c.xlsx").read_bytes() != (tmp_path / "a.xlsx").read_bytes()
    assert load_workbook(tmp_path / "c.xlsx").active["B1"].value == 0.25
    assert {i.date_time for i in zipfile.ZipFile(tmp_path / "a.xlsx").infolist()} == {xlsx_file.ZIP_EPOCH}


def test_a_failed_write_keeps_the_old_workbook_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "book.xlsx"
    save_workbook(_book(1.0), target)
    before = target.read_bytes()

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # the run stopped between writing and moving into place

    monkeypatch.setattr(xlsx_file.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        save_workbook(_book(2.0), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["book.xlsx"]


def test_a_missing_folder_is_an_os_error(tmp_path):
    with pytest.raises(OSError):
        save_workbook(_book(1.0), tmp_path / "nowhere" / "book.xlsx")
