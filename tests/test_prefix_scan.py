"""Issue 21 (fifth round): the undeclared-prefix scan of an inline document places an attribute match
(inside a measure/explicitMember tag or not) only when its prefix is not found yet, and still finds
exactly what the single regex ``_USED`` finds (docs/benchmarks.md)."""
from __future__ import annotations

import random
from pathlib import Path

from auditflow.xbrl import prefix_repair

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "inline" / "acme-20241231.htm"
TOKENS = [b"<", b">", b"<x:", b"<xbrli:", b"measure", b"explicitMember", b'dimension="', b'name="', b'format="',
          b'unitRef="', b'="', b"a:", b"us-gaap:", b"b.c:", b" ", b"\n", b"x", b":", b"<!-- ", b" -->", b'"', b"/>"]


def _reference(data: bytes) -> set[str]:
    return {(m.group(1) or m.group(2)).decode() for m in prefix_repair._USED.finditer(data)}


def _placed(monkeypatch, data: bytes) -> tuple[set[str], int]:
    """The prefixes found and how many attribute matches had to be placed among the element matches."""
    calls = []
    real = prefix_repair.bisect_right
    monkeypatch.setattr(prefix_repair, "bisect_right", lambda *a: calls.append(a) or real(*a))
    return prefix_repair._used_prefixes(data), len(calls)


def test_attribute_matches_are_placed_only_for_new_prefixes_and_the_result_is_unchanged(monkeypatch, data_root: Path):
    for path in (SAMPLE, data_root / "filings" / "aeon-10q-2023-09-30" / "aeon-20230930x10q.htm",
                 data_root / "filings" / "ibm-10k-2024-12-31" / "ibm-20241231.htm"):
        data = path.read_bytes()
        found, placed = _placed(monkeypatch, data)
        assert found == _reference(data)
        assert placed <= 3 * len(found)  # aeon: 2,705 attribute matches, a handful of prefixes
    rnd = random.Random(21)
    for _ in range(20000):  # prefixes inside and outside element matches, comments, stray '<'
        data = b"".join(rnd.choice(TOKENS) for _ in range(rnd.randint(1, 40)))
        assert prefix_repair._used_prefixes(data) == _reference(data), data
