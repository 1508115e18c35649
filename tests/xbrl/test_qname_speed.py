"""Issue 21's QName changes keep QName's meaning: interning, the hash and the hand-written order."""
from __future__ import annotations

import itertools

import pytest

from auditflow.xbrl import qname as qn
from auditflow.xbrl.qname import QName, interned

NAMES = ["", "a", "b", "ab", "http://fasb.org/us-gaap/2023", "http://fasb.org/us-gaap/2024"]


def test_order_is_namespace_then_local_name_as_the_dataclass_order_was():
    for n1, l1, n2, l2 in itertools.product(NAMES, repeat=4):
        a, b = QName(n1, l1, "p"), QName(n2, l2)
        ta, tb = (n1, l1), (n2, l2)
        assert (a < b, a <= b, a > b, a >= b, a == b) == (ta < tb, ta <= tb, ta > tb, ta >= tb, ta == tb)
    assert sorted([QName("b", "a"), QName("a", "z"), QName("a", "b")]) == [QName("a", "b"), QName("a", "z"), QName("b", "a")]
    with pytest.raises(TypeError):
        QName("a", "b") < ("a", "b")  # noqa: B015 - only QNames compare


def test_equal_qnames_hash_alike_whatever_their_prefix():
    assert hash(QName("http://x", "Assets", "x")) == hash(QName("http://x", "Assets", "y"))
    assert len({QName("http://x", "Assets", "x"), QName("http://x", "Assets"), QName("http://y", "Assets")}) == 2


def test_interned_qnames_are_shared_and_keep_their_prefix():
    a = interned("http://x", "Assets", "x")
    assert a is interned("http://x", "Assets", "x") is QName.from_clark("{http://x}Assets", "x")
    assert QName.parse("x:Assets", {"x": "http://x"}) is a
    other = interned("http://x", "Assets", "y")
    assert other == a and other is not a and str(other) == "y:Assets"


def test_the_intern_table_is_bounded(monkeypatch):
    monkeypatch.setattr(qn, "_INTERN_LIMIT", 3)
    monkeypatch.setattr(qn, "_INTERNED", {})
    names = [interned("n", str(i)) for i in range(10)]
    assert len(qn._INTERNED) <= 3
    assert names == [QName("n", str(i)) for i in range(10)]


def test_dimension_index_built_on_first_use(data_root):
    from auditflow.graphs.dimensions import DimensionIndex
    from auditflow.xbrl.loader import load_filing

    filing = load_filing(data_root / "filings" / "aapl-10k-2023-09-30")
    lazy = DimensionIndex(filing.arcs)
    assert lazy._arcs is not None  # nothing built yet
    cubes = lazy.cubes
    assert lazy._arcs is None and lazy.cubes is cubes and cubes
    assert {c.role for c in cubes} == set(lazy.by_role) and lazy.defaults


def test_the_hash_is_kept_in_a_slot_from_every_way_a_qname_is_made():
    import copy
    import dataclasses
    import pickle

    made = [QName("http://x", "Assets", "x"), interned("http://x", "Liabilities"), QName.from_clark("{http://x}Equity"),
            QName.parse("x:Revenue", {"x": "http://x"}), dataclasses.replace(QName("http://x", "A"), local="Cost")]
    made += [copy.deepcopy(made[0]), pickle.loads(pickle.dumps(made[1]))]
    for q in made:
        assert q._hash() == hash(q.local) == hash(q) == QName.__dict__["__hash__"].__get__(q)()
    q = QName("http://x", "Assets")
    object.__setattr__(q, "_hash", (12345).__int__)  # hash() calls what the slot holds, it does not hash again
    assert hash(q) == 12345


def test_hashing_a_qname_runs_no_python_code():
    """The hash is C-level (see qname._C_LEVEL_HASH): hash() and dict lookups start no Python frame."""
    import sys

    q, table = QName("http://x", "Assets"), {}
    python_calls: list[str] = []

    def watch(frame, event, _arg):
        if event == "call":
            python_calls.append(frame.f_code.co_name)

    sys.setprofile(watch)
    try:
        hash(q)
        table[q] = 1
        _ = table[q]
    finally:
        sys.setprofile(None)
    assert python_calls == []
    assert table == {QName("http://x", "Assets", "other"): 1}


def test_the_kept_hash_is_no_part_of_the_name():
    import dataclasses

    q = QName("http://x", "Assets", "x")
    assert repr(q) == "QName(namespace='http://x', local='Assets', prefix='x')"
    assert [f.name for f in dataclasses.fields(QName) if f.init] == ["namespace", "local", "prefix"]
    assert QName.__match_args__ == ("namespace", "local", "prefix")
    with pytest.raises(TypeError):
        QName("http://x", "Assets", "x", 0)  # not an argument
    with pytest.raises(dataclasses.FrozenInstanceError):
        q._hash = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        q.local = "Other"


def test_the_constructor_fills_the_slots_itself():
    """QName's own __init__ (no object.__setattr__ per field, no __post_init__) makes what the
    dataclass __init__ made: the same fields, keywords and defaults, still frozen."""
    assert "__post_init__" not in QName.__dict__
    q = QName(local="Assets", namespace="http://x")
    assert (q.namespace, q.local, q.prefix, q._hash()) == ("http://x", "Assets", None, hash("Assets"))
    with pytest.raises(TypeError):
        QName("http://x")  # local is required
