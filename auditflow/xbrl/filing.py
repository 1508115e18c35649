"""A loaded filing: the facts a filer reported plus the filer's own taxonomy extension (DTS)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from auditflow.xbrl.model import Arc, Concept, Context, DuplicateSet, Fact, Label, RoleType, Unit, Warning_
from auditflow.xbrl.qname import QName

DEI_LOCALS_DOCUMENT_TYPE = "DocumentType"
DEI_LOCALS_PERIOD_END = "DocumentPeriodEndDate"


@dataclass
class Filing:
    """Everything loaded from one filing package. Built by :func:`auditflow.xbrl.loader.load_filing`."""

    source: str  # the path the user gave
    documents: list[str] = field(default_factory=list)  # instance / inline documents read
    facts: list[Fact] = field(default_factory=list)
    contexts: dict[str, Context] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=dict)
    namespaces: dict[str, str] = field(default_factory=dict)  # prefix -> namespace as declared
    concepts: dict[QName, Concept] = field(default_factory=dict)  # filer-declared + known from locators
    arcs: list[Arc] = field(default_factory=list)  # the filer's effective relationships
    labels: list[Label] = field(default_factory=list)
    roles: dict[str, RoleType] = field(default_factory=dict)
    imported_urls: list[str] = field(default_factory=list)  # standard taxonomy schemas the DTS imports
    duplicates: list[DuplicateSet] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    is_inline: bool = False

    # -- labels on first use ------------------------------------------------------------------------
    def defer_labels(self, read: Callable[[], list[Label]]) -> None:
        """Let ``read()`` give ``labels`` when they are first asked for. A filing's label linkbase is
        its biggest document and few DQC rules read labels (DQC.US.0154 compares them; findings are
        dressed with them), so a check of rules that do not, with no findings, never pays for them
        (issue 21). The audit tools, ``inspect`` and the filing cache read them as before."""
        self.__dict__.pop("labels", None)
        self.__dict__["_read_labels"] = read

    def __getattr__(self, name: str):
        # Reached only when ordinary lookup fails: ``labels`` deferred and not read yet. The reader
        # is kept until the labels are stored, so two threads asking at once both get them.
        read = self.__dict__.get("_read_labels") if name == "labels" else None
        if read is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        labels = self.__dict__.setdefault("labels", read())
        self.__dict__.pop("_read_labels", None)
        return labels

    # -- small conveniences the rules and tools share ---------------------------------------------
    def first_fact(self, local_name: str, namespace_prefix: str = "http://xbrl.sec.gov/dei/") -> Fact | None:
        """The first fact (document order) whose concept has this local name in a namespace family."""
        for f in self.facts:
            if f.concept.local == local_name and f.concept.namespace.startswith(namespace_prefix):
                return f
        return None

    @property
    def document_type(self) -> str | None:
        f = self.first_fact(DEI_LOCALS_DOCUMENT_TYPE)
        return f.value.strip() if f is not None and f.value else None

    @property
    def name(self) -> str:
        return Path(self.source).name

    def fact_by_key(self, key: str) -> Fact | None:
        for f in self.facts:
            if f.key == key:
                return f
        return None
