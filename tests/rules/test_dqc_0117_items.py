"""Issue 21 (fifth round): DQC 0117 makes its fact items positionally and keys them by a frozenset of
dimensions made once per context; the items and the groups are what the dataclass and a per-item
frozenset gave (docs/benchmarks.md)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from auditflow.graphs.environment import build_environment
from auditflow.rules.dqc_0117 import _Facts, _Group, _Item, _make_item


def test_a_made_item_is_the_item_init_makes():
    args = ("fact", 1, "ctx", {"a": "m"}, ("g",), "USD", frozenset({("a", "m")}))
    made, init = _make_item(*args), _Item(*args)
    assert type(made) is _Item and [getattr(made, f.name) for f in dataclasses.fields(_Item)] == list(args)
    assert repr(made) == repr(init)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.value = 2  # type: ignore[misc]


@pytest.mark.parametrize("name", ["filings/aapl-10k-2023-09-30", "filings-rolled/bxp-10q-2025-06-30"])
def test_items_of_one_context_share_one_dimensions_key_equal_to_their_dimensions(data_root: Path, name: str):
    env = build_environment(data_root / name, filing_cache=False)
    facts = _Facts(env)
    items = [i for group in facts.by_concept.values() for i in group]
    assert len(items) > 500
    by_context: dict[str, frozenset] = {}
    for i in items:
        assert i.dims_key == frozenset(i.dims.items())
        assert by_context.setdefault(i.fact.context_id, i.dims_key) is i.dims_key  # made once per context
    for cube in env.dims.cubes:
        for group in facts.in_cube(cube).values():
            expected: dict[frozenset, _Item] = {}
            for i in group.items:
                expected.setdefault(frozenset(i.dims.items()), i)
            assert group.by_dims == expected
            assert _Group(list(group.items)).by_dims == expected

