"""Issue 21: the positional makers build the same frozen records as the dataclasses' own __init__."""
from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest

from auditflow.xbrl.model import Arc, Fact, Label, make_arc, make_fact, make_label, positional_maker
from auditflow.xbrl.qname import QName

A, B = QName("http://x", "A", "x"), QName("http://x", "B")


@pytest.mark.parametrize("cls, make, args", [
    (Arc, make_arc, ("calculation", "summation-item", "r", A, B, Decimal("1.0"), Decimal(-1), "pl", "tr", True, "segment", False, "d.xml")),
    (Fact, make_fact, (A, "c1", "12", "usd", -3, None, "f1", False, "i.xml", 7, 3)),
    (Fact, make_fact, (B, "c2", None, None, None, "4", None, True, "", None, 0)),
    (Label, make_label, (A, "http://www.xbrl.org/2003/role/label", "en", "Assets")),
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
