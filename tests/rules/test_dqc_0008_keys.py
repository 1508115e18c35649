"""DQC 0008 reads the US-GAAP calculation relationships as one string per relationship (issue 21: a set
of strings unpickles from the constants cache in a fifth of the time of a set of nested tuples). The
strings must decide membership exactly as the (parent key, child key, weight) tuples did."""
from __future__ import annotations

import math

from auditflow.rules.dqc_0008 import _decode_keys, _key, base_relationships
from auditflow.rules.registry import CONSTANTS_2025
from auditflow.rules.resources import Resources, _family


def _tuples(raw: list) -> set:
    """The former decoding: {((parent family, parent), (child family, child), weight)}."""
    out = set()
    for entry in raw[1:]:
        if len(entry) != 3:
            continue
        text, weight = (entry[1], entry[2]) if isinstance(entry[1], str) else (entry[2], entry[1])
        cut = text.find(":http", 1) if isinstance(text, str) else -1
        if cut < 0 or not isinstance(weight, (int, float)):
            continue
        parent_ns, parent = text[:cut].rsplit(":", 1)
        child_ns, child = text[cut + 1:].rsplit(":", 1)
        out.add(((_family(parent_ns), parent), (_family(child_ns), child), float(weight)))
    return out


def test_the_keys_are_the_former_tuples_one_for_one(data_root):
    raw = Resources(data_root).constants(CONSTANTS_2025)["CALC_RELATIONSHIPS"]
    tuples = _tuples(raw)
    keys = _decode_keys(raw)
    assert len(tuples) > 5000
    assert keys == {_key(p[0], p[1], c[0], c[1], w) for p, c, w in tuples}
    assert len(keys) == len(tuples)  # no two relationships share a key


def test_the_cached_relationships_are_the_keys(data_root, tmp_path, monkeypatch):
    monkeypatch.setenv("AUDITFLOW_CACHE_DIR", str(tmp_path))
    resources = Resources(data_root)
    first = base_relationships(resources)
    assert all(isinstance(k, str) for k in first)
    assert first == _decode_keys(resources.constants(CONSTANTS_2025)["CALC_RELATIONSHIPS"])


def test_weights_compare_as_floats_do():
    k = _key("http://fasb.org/us-gaap", "Assets", "http://fasb.org/us-gaap", "Cash", 1.0)
    assert k == _key("http://fasb.org/us-gaap", "Assets", "http://fasb.org/us-gaap", "Cash", 1)
    assert k != _key("http://fasb.org/us-gaap", "Assets", "http://fasb.org/us-gaap", "Cash", -1.0)
    assert _key("a", "b", "c", "d", -0.0) == _key("a", "b", "c", "d", 0.0)  # -0.0 == 0.0
    assert _key("a", "b", "c", "d", math.nan) is None  # NaN equals nothing, not even NaN
    assert _key("a", "b", "c", "d", math.inf) == _key("a", "b", "c", "d", float("inf"))
