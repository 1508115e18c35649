"""Value objects of a loaded filing: periods, contexts, units, facts, concepts, arcs, roles.

They are frozen so that a loaded filing can be shared between tools, checkers and threads without
anyone changing it behind the others' back; mutations for audit cases build new objects.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import Any, Callable, Literal, Union

from auditflow.xbrl.numbers import parse_number, plain_text
from auditflow.xbrl.qname import QName

def plain_decimal(number: Decimal, scale: int = 0) -> str:
    """``number * 10**scale`` without exponent or needless zeros: '352583000000', '-1.5', '0'.

    The context is sized to the digits, so no value is ever rounded on the way. A number beyond the
    bounds of :mod:`auditflow.xbrl.numbers` keeps its exponent rather than becoming a huge string.
    """
    return plain_text(number, scale)


INF = "INF"
Decimals = Union[int, Literal["INF"], None]  # None: no decimals attribute (e.g. precision or non-numeric)


@dataclass(frozen=True, order=True, slots=True)
class Period:
    """An XBRL period. ``end`` is inclusive (the XBRL date form); instants have ``start is None``."""

    start: dt.date | None
    end: dt.date | None  # None only for 'forever'
    forever: bool = False

    @property
    def is_instant(self) -> bool:
        return self.start is None and not self.forever

    @property
    def days(self) -> int:
        """DQC's period length: (end + 1 day) - start for durations, 0 for instants."""
        if self.start is None or self.end is None:
            return 0
        return (self.end - self.start).days + 1

    def as_json(self) -> dict[str, str]:
        if self.forever:
            return {"forever": "true"}
        if self.start is None:
            return {"instant": self.end.isoformat()}
        return {"start": self.start.isoformat(), "end": self.end.isoformat()}

    def __str__(self) -> str:
        if self.forever:
            return "forever"
        if self.start is None:
            return self.end.isoformat()
        return f"{self.start.isoformat()}..{self.end.isoformat()}"


@dataclass(frozen=True, order=True, slots=True)
class TypedMember:
    """The value of a typed dimension, kept as its normalised XML text."""

    value: str

    def __str__(self) -> str:
        return self.value


Member = Union[QName, TypedMember]


@dataclass(frozen=True, slots=True)
class Context:
    """An XBRL context: the entity, the period and the dimensions of the facts that refer to it."""

    id: str
    entity_scheme: str
    entity_id: str
    period: Period
    # (axis, member) pairs sorted by axis; segment and scenario are merged as the DQC rules do.
    dimensions: tuple[tuple[QName, Member], ...] = ()
    line: int | None = None

    @property
    def explicit_dimensions(self) -> dict[QName, QName]:
        return {a: m for a, m in self.dimensions if isinstance(m, QName)}

    def dims_dict(self) -> dict[QName, Member]:
        return dict(self.dimensions)


ISO4217 = "http://www.xbrl.org/2003/iso4217"
XBRLI = "http://www.xbrl.org/2003/instance"


@dataclass(frozen=True, slots=True)
class Unit:
    """An XBRL unit: numerator measures, and denominator measures for a divide."""

    id: str
    numerators: tuple[QName, ...]
    denominators: tuple[QName, ...] = ()

    @property
    def is_monetary(self) -> bool:
        """A single ISO 4217 currency measure: the practical test the DQC rules use."""
        return not self.denominators and len(self.numerators) == 1 and self.numerators[0].namespace == ISO4217

    def __str__(self) -> str:
        num = "*".join(_measure(q) for q in self.numerators)
        if self.denominators:
            return f"{num}/{'*'.join(_measure(q) for q in self.denominators)}"
        return num


def _measure(q: QName) -> str:
    if q.namespace == ISO4217:
        return q.local
    if q.namespace == XBRLI:
        return q.local
    return str(q)


@dataclass(frozen=True, slots=True)
class Fact:
    """One reported fact. ``value`` is the normalised lexical value (after inline transforms)."""

    concept: QName
    context_id: str
    value: str | None  # None when nil
    unit_id: str | None = None
    decimals: Decimals = None
    precision: str | None = None
    id: str | None = None
    is_nil: bool = False
    document: str = ""
    line: int | None = None
    index: int = 0  # document order across the filing; stable identity when id is None

    @property
    def is_numeric(self) -> bool:
        return self.unit_id is not None

    @property
    def number(self) -> Decimal | None:
        if self.is_nil or self.unit_id is None or self.value is None:
            return None
        return parse_number(self.value)  # None for a non-number, NaN/INF or out of range: the loader warns

    @property
    def key(self) -> str:
        """A stable handle for tools and findings: the fact id, or its document position."""
        return self.id if self.id else f"#{self.index}"


@dataclass(frozen=True, slots=True)
class Concept:
    """A concept as the schema (or, failing that, a locator or a fact) declares it."""

    qname: QName
    id: str | None = None
    balance: str | None = None  # 'debit' | 'credit' | None
    period_type: str | None = None  # 'instant' | 'duration' | None when unknown
    data_type: str | None = None  # clark notation of the xsd type
    abstract: bool | None = None
    substitution_group: str | None = None  # clark notation
    nillable: bool | None = None
    source: str = "schema"  # 'schema' (declared), 'locator' (known only from linkbases), 'fact'

    @property
    def is_dimension(self) -> bool:
        return bool(self.substitution_group) and self.substitution_group.endswith("}dimensionItem")

    @property
    def is_hypercube(self) -> bool:
        return bool(self.substitution_group) and self.substitution_group.endswith("}hypercubeItem")


@dataclass(frozen=True, slots=True)
class RoleType:
    """A declared extended link role: its URI, definition and the links it may be used on."""

    uri: str
    definition: str = ""
    used_on: tuple[str, ...] = ()


# Link kinds
CALCULATION = "calculation"
DEFINITION = "definition"
PRESENTATION = "presentation"

SUMMATION_ITEM_2003 = "http://www.xbrl.org/2003/arcrole/summation-item"
SUMMATION_ITEM_11 = "https://xbrl.org/2023/arcrole/summation-item"
SUMMATION_ITEMS = (SUMMATION_ITEM_2003, SUMMATION_ITEM_11)
PARENT_CHILD = "http://www.xbrl.org/2003/arcrole/parent-child"
ALL = "http://xbrl.org/int/dim/arcrole/all"
NOT_ALL = "http://xbrl.org/int/dim/arcrole/notAll"
HYPERCUBE_DIMENSION = "http://xbrl.org/int/dim/arcrole/hypercube-dimension"
DIMENSION_DOMAIN = "http://xbrl.org/int/dim/arcrole/dimension-domain"
DOMAIN_MEMBER = "http://xbrl.org/int/dim/arcrole/domain-member"
DIMENSION_DEFAULT = "http://xbrl.org/int/dim/arcrole/dimension-default"


@dataclass(frozen=True, slots=True)
class Arc:
    """One effective relationship after prohibition and override are applied."""

    kind: str  # calculation | definition | presentation
    arcrole: str
    role: str  # the extended link role (ELR)
    source: QName
    target: QName
    order: Decimal = Decimal(1)
    weight: Decimal | None = None
    preferred_label: str | None = None
    target_role: str | None = None
    closed: bool | None = None
    context_element: str | None = None
    usable: bool = True
    document: str = ""


@dataclass(frozen=True, slots=True)
class Label:
    """One label of a concept, by label role and language."""

    concept: QName
    role: str
    lang: str
    text: str


@dataclass(frozen=True, slots=True)
class Warning_:
    """A recorded problem that did not stop loading. ``code`` is stable for tests and tooling."""

    code: str
    message: str
    document: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = f" [{self.document}{':' + str(self.line) if self.line else ''}]" if self.document else ""
        return f"{self.code}: {self.message}{where}"


@dataclass(frozen=True, slots=True)
class DuplicateSet:
    """Facts with the same concept, context, unit and language (XBRL 2.1 duplicates)."""

    kind: str  # 'identical' | 'consistent' | 'inconsistent'
    facts: tuple[str, ...]  # fact keys
    concept: QName = field(default=None)  # type: ignore[assignment]


def positional_maker(cls: type) -> Callable[..., Any]:
    """A constructor of ``cls`` (a frozen, slotted dataclass) that takes every field positionally.

    The generated frozen ``__init__`` sets each field with ``object.__setattr__``, and a setter per
    slot descriptor still costs a C call with an argument tuple per field: together as much as reading
    the arc or fact itself (issue 21). So the maker fills the slots of a mutable twin class, the same
    ``__slots__`` with no ``__setattr__`` of its own (each field a plain attribute store, which the
    interpreter specialises), and then gives the object its class: CPython allows ``__class__``
    assignment between classes whose slot layouts are identical. The object made is a ``cls`` like any
    other, frozen from then on (tests/xbrl/test_fast_records.py compares them); a third of the instructions.
    """
    names = [f.name for f in fields(cls)]
    if (not all(f.init for f in fields(cls)) or hasattr(cls, "__post_init__") or "__slots__" not in cls.__dict__
            or cls.__bases__ != (object,) or tuple(cls.__slots__) != tuple(names)):
        raise TypeError(f"{cls.__name__} is not a plain frozen, slotted dataclass")
    twin = type(f"_Mutable{cls.__name__}", (), {"__slots__": tuple(names), "__module__": cls.__module__})
    scope: dict[str, Any] = {"_new": object.__new__, "_twin": twin, "_cls": cls}
    args = ", ".join(f"a{i}" for i in range(len(names)))
    body = "".join(f"    o.{n} = a{i}\n" for i, n in enumerate(names))
    exec(f"def make_{cls.__name__.lower()}({args}):\n    o = _new(_twin)\n{body}    o.__class__ = _cls\n    return o\n",  # noqa: S102
         scope)  # our own code, from the class's field names
    return scope[f"make_{cls.__name__.lower()}"]


make_arc = positional_maker(Arc)  # Arc(kind, arcrole, role, source, target, order, ..., document): every field
make_fact = positional_maker(Fact)  # Fact(concept, context_id, value, ..., index): every field
make_label = positional_maker(Label)
make_concept = positional_maker(Concept)  # Concept(qname, id, ..., source): every field
make_context = positional_maker(Context)  # Context(id, entity_scheme, entity_id, period, dimensions, line)
make_period = positional_maker(Period)  # Period(start, end, forever)
