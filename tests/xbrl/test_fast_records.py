"""Issue 21: the positional makers build the same frozen records as the dataclasses' own __init__."""
from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from auditflow.xbrl.model import Arc, Concept, Fact, Label, make_arc, make_concept, make_fact, make_label, positional_maker
from auditflow.xbrl.qname import QName

A, B = QName("http://x", "A", "x"), QName("http://x", "B")


@pytest.mark.parametrize("cls, make, args", [
    (Arc, make_arc, ("calculation", "summation-item", "r", A, B, Decimal("1.0"), Decimal(-1), "pl", "tr", True, "segment", False, "d.xml")),
    (Fact, make_fact, (A, "c1", "12", "usd", -3, None, "f1", False, "i.xml", 7, 3)),
    (Fact, make_fact, (B, "c2", None, None, None, "4", None, True, "", None, 0)),
    (Label, make_label, (A, "http://www.xbrl.org/2003/role/label", "en", "Assets")),
    (Concept, make_concept, (A, None, None, "instant", None, None, None, None, "fact")),
    (Concept, make_concept, (B, "x_B", "debit", "duration", "{t}monetaryItemType", False, "{x}item", True, "schema")),
])
def test_a_made_record_is_the_record_init_makes(cls, make, args):
    made, init = make(*args), cls(*args)
    assert type(made) is cls and made == init and hash(made) == hash(init) and repr(made) == repr(init)
    assert [getattr(made, f.name) for f in dataclasses.fields(cls)] == list(args)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, dataclasses.fields(cls)[1].name, "other")  # still frozen


def test_only_plain_frozen_slotted_dataclasses_get_a_maker():
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    for cls in (NoSlots, Derived):
        with pytest.raises(TypeError):
            positional_maker(cls)


def test_the_loader_makes_the_concepts_it_infers_with_the_maker(monkeypatch):
    """_fill_concepts' standard concepts (hundreds a filing) come from make_concept, equal to Concept(...)."""
    from auditflow.xbrl import loader
    from auditflow.xbrl.filing import Filing
    from auditflow.xbrl.model import Context, Period

    made = []
    monkeypatch.setattr(loader, "make_concept", lambda *a: made.append(a) or make_concept(*a))
    f = Filing(source="x", facts=[make_fact(A, "c", "1", None, None, None, None, False, "i.xml", 1, 0)],
               contexts={"c": Context("c", "s", "e", Period(None, None, forever=True), (), 1)},
               arcs=[make_arc("calculation", "r", "r", A, B, Decimal(1), None, None, None, None, None, True, "c.xml")])
    loader._fill_concepts(f)
    assert f.concepts == {A: Concept(qname=A, period_type="duration", source="fact"), B: Concept(qname=B, source="locator")}
    assert len(made) == 2
