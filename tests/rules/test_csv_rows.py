"""Issue 21: the DQC CSV reader's split fast path gives exactly the rows csv.reader gives."""
from __future__ import annotations

import csv
import random
from pathlib import Path

import pytest

from auditflow.errors import ResourceError
from auditflow.rules import resources


def _reference(path: Path, columns: tuple[str, ...]):
    """_read_rows as it was: csv.reader over the file."""
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        names = next(reader, None) or []
        if any(c not in names for c in columns):
            return "missing"
        return names, [row for row in reader if row]


def _ours(path: Path, columns: tuple[str, ...]):
    try:
        return resources._read_rows(path, path.parent, "test file", columns)
    except ResourceError as exc:
        assert "missing column" in str(exc)
        return "missing"


def test_the_rows_are_csv_readers_rows_for_any_text(tmp_path: Path):
    rng = random.Random(21)
    pieces = ["a", "b", ",", "\n", "\r", "\r\n", " ", '"', "x,y", "\n\n", "é", "\u2028", "\x85", "\x0c"]
    path = tmp_path / "t.csv"
    for _ in range(1000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.5:
            text = "a,b\n" + text
        path.write_text(text, encoding="utf-8", newline="")
        assert _ours(path, ("a",)) == _reference(path, ("a",)), repr(text)


def test_the_data_roots_dqc_files_read_alike(data_root: Path):
    files = sorted((data_root / "dqc").rglob("*.csv"))
    assert files
    for path in files:
        assert _ours(path, ()) == _reference(path, ()), path


@pytest.mark.parametrize("text", ['a,b\n"1,2",3\n', "a,b\r\n1,2\r\n", "a,b\n1,\x002\n"])
def test_quotes_other_line_ends_and_nul_take_the_csv_module(tmp_path: Path, text: str):
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        expected = _reference(path, ())
    except csv.Error:
        with pytest.raises(ResourceError, match="unreadable"):
            resources._read_rows(path, tmp_path, "test file", ())
        return
    assert _ours(path, ()) == expected


def _list_in(tmp_path: Path, text: str):
    folder = tmp_path / "dqc" / "dqc_0015"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "non_neg_items_2024.csv").write_text(text, encoding="utf-8")
    resources._load_list.cache_clear()
    return resources.load_0015_list(tmp_path, 2024)


def test_the_0015_list_read_by_columns_is_the_list_read_by_rows(tmp_path: Path):
    listed = _list_in(tmp_path, "rule_element_id,namespace,local_name,namespace\n"
                                " 1 ,http://x/2024, A ,http://fasb.org/us-gaap/2024\n2,http://y,A,http://fasb.org/srt/2023\n")
    assert dict(listed.by_key) == {("http://fasb.org/us-gaap", "A"): "1", ("http://fasb.org/srt", "A"): "2"}
    assert dict(listed.by_local) == {"A": ("2", "http://fasb.org/srt/2023")}  # the last namespace column, the last row


def test_an_incomplete_0015_row_is_named(tmp_path: Path):
    with pytest.raises(ResourceError, match=r"incomplete row \{'rule_element_id': '2', 'namespace': '', 'local_name': 'B'\}"):
        _list_in(tmp_path, "rule_element_id,namespace,local_name\n1,http://fasb.org/us-gaap/2024,A\n2,,B\n")
    with pytest.raises(ResourceError, match="the list is empty"):
        _list_in(tmp_path, "rule_element_id,namespace,local_name\n")
