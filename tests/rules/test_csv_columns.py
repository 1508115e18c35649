"""Issue 21: the DQC 0015 list's column reader (one split of the whole text) gives the columns of the
rows the row reader gives, or declines (None) so that the row reader reads the file."""
from __future__ import annotations

import random
from pathlib import Path

from auditflow.errors import ResourceError
from auditflow.rules import resources


def _by_rows(path: Path):
    try:
        names, rows = resources._read_rows(path, path.parent, "test file", ())
    except ResourceError:
        return "unreadable"
    return names, rows


def _columns(path: Path, root: Path):
    """The column reader on the file's text, read as the list loader reads it."""
    return resources._read_columns(resources._read_text(path, root, "test file"), path, root, "test file", ())


def test_the_columns_are_the_rows_columns_for_any_text(tmp_path: Path):
    rng = random.Random(2104)
    pieces = ["a", "b", ",", "\n", "\r", " ", '"', "x,y", "\n\n", "é", "\x85", ",,", "1,2,3\n"]
    path = tmp_path / "t.csv"
    taken = 0
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        if rng.random() < 0.7:
            text = rng.choice(["a,b\n", "a,b,c\n", "a\n"]) + text
        path.write_text(text, encoding="utf-8", newline="")
        got = _columns(path, tmp_path)
        if got is None:
            continue
        taken += 1
        names, rows = _by_rows(path)
        assert all(len(r) == len(names) for r in rows), repr(text)  # only rectangular files are taken
        assert got == (names, [list(c) for c in zip(*rows)] if rows else [[] for _ in names]), repr(text)
    assert taken > 50


def test_ragged_quoted_or_gapped_files_are_declined(tmp_path: Path):
    path = tmp_path / "t.csv"
    for text in ("a,b\n1,2,3\n", 'a,b\n"1",2\n', "a,b\n1,2\n\n3,4\n", "a,b\r\n1,2\r\n", "", "\n"):
        path.write_text(text, encoding="utf-8", newline="")
        assert _columns(path, tmp_path) is None, repr(text)


def test_the_data_roots_0015_lists_read_alike(data_root: Path):
    files = sorted((data_root / "dqc" / "dqc_0015").glob("non_neg_items_*.csv"))
    assert files
    for path in files:
        names, columns = _columns(path, path.parent)
        rows = _by_rows(path)[1]
        assert names == _by_rows(path)[0]
        assert columns == [list(c) for c in zip(*rows)], path
