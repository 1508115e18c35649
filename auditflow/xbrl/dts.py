"""Walk the filer's DTS: extension schemas and linkbases reachable from the instance.

Only the filer's own documents are read here. References to standard taxonomies (us-gaap, srt, dei,
...) are recorded by URL; the static taxonomy graph holds their content, and whether they resolve
through a taxonomy package is checked by the caller.
"""
from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Callable

from auditflow.errors import InputError, UnsafeInputError
from auditflow.xbrl.linkbase import LinkbaseContent, read_links
from auditflow.xbrl.model import Warning_
from auditflow.xbrl.qname import QName, interned
from auditflow.xbrl.safexml import parse_xml
from auditflow.xbrl.schema import SchemaInfo, read_schema
from auditflow.xbrl.source import PackageSource
from auditflow.xbrl.packages import standard_namespace_for_url

LINK = "http://www.xbrl.org/2003/linkbase"


@dataclass
class DTS:
    """A discovered DTS: its schemas, linkbase content, external references, documents and warnings."""

    schemas: dict[str, SchemaInfo] = field(default_factory=dict)  # by package location
    linkbases: LinkbaseContent = field(default_factory=LinkbaseContent)
    external_urls: list[str] = field(default_factory=list)  # standard taxonomy documents referenced
    documents: list[str] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)


class DTSWalker:
    """Breadth-first discovery from the instance's schemaRefs and linkbaseRefs."""

    def __init__(self, src: PackageSource, *, external_resolver: Callable[[str, str], QName | None] | None = None):
        self.src = src
        self.dts = DTS()
        self._external_resolver = external_resolver
        self._queue: list[tuple[str, str, str]] = []  # (location, kind hint, referenced from)
        self._seen: set[str] = set()
        self._linkbase_roots: list[tuple[str, object]] = []
        self._bases: dict[tuple[str, str], str] = {}  # (href before '#', linkbase) -> schema location

    def walk(self, refs: list[tuple[str, str]], *, referenced_from: str) -> DTS:
        for href, kind in refs:
            self._enqueue(href, kind, referenced_from)
        while self._queue:
            loc, kind, origin = self._queue.pop(0)
            self._visit(loc, kind, origin)
        # Locators may name schemas discovered after the linkbase, so links are read last. Label links
        # are left in dts.linkbases.deferred_labels (their locators resolved): read on first use.
        memos: dict[str, dict] = {}  # per folder: relative hrefs resolve alike for its documents
        for loc, root in self._linkbase_roots:
            read_links(root, document=loc, locate=lambda h, _l=loc: self._locate(h, _l), resolve=self._resolve,
                       into=self.dts.linkbases, memo=memos.setdefault(posixpath.dirname(loc), {}), labels=False)
        return self.dts

    def _enqueue(self, href: str, kind: str, origin: str) -> None:
        if not href:
            return
        loc = self.src.resolve(href, origin)
        if loc in self._seen:
            return
        self._seen.add(loc)
        if "://" in loc:
            self.dts.external_urls.append(loc)
            return
        self._queue.append((loc, kind, origin))

    def _visit(self, loc: str, kind: str, origin: str) -> None:
        try:
            data = self.src.read(loc)
        except UnsafeInputError:
            raise  # refused (a symlink out of the folder, a FIFO, a zip bomb), not missing
        except InputError as exc:
            what = "schema" if kind == "schema" else "linkbase"
            raise InputError(f"the {what} {loc!r} referenced by {origin} is missing ({exc})", path=origin) from None
        root = parse_xml(data, name=loc)
        self.dts.documents.append(loc)
        if root.tag == "{http://www.w3.org/2001/XMLSchema}schema":
            info = read_schema(root, location=loc, source=data)
            self.dts.schemas[loc] = info
            for _ns, schema_loc in info.imports:
                self._enqueue(schema_loc, "schema", loc)
            for href in info.linkbase_refs:
                self._enqueue(href, "linkbase", loc)
            if info.has_embedded_linkbases:
                self._linkbase_roots.append((loc, root))
        elif root.tag == f"{{{LINK}}}linkbase":
            self._linkbase_roots.append((loc, root))
        else:
            self.dts.warnings.append(Warning_("dts-unknown-document", f"{loc} is neither a schema nor a linkbase; ignored", origin))

    def _locate(self, href: str, linkbase_loc: str) -> tuple[str, str]:
        base, _, frag = href.partition("#")
        if not base:
            return linkbase_loc, frag
        # Hundreds of locators name concepts of one schema: its location is worked out once per
        # (base, linkbase) pair. A refused href raises before anything is remembered.
        key = (base, linkbase_loc)
        loc = self._bases.get(key)
        if loc is None:
            loc = self._bases[key] = self.src.resolve(base, linkbase_loc)
        return loc, frag

    def _resolve(self, schema_loc: str, frag: str) -> QName | None:
        info = self.dts.schemas.get(schema_loc)
        if info is not None:
            c = info.concepts.get(frag)
            return c.qname if c is not None else None
        if "://" in schema_loc:
            if self._external_resolver is not None:
                q = self._external_resolver(schema_loc, frag)
                if q is not None:
                    return q
            ns = standard_namespace_for_url(schema_loc)
            if ns and "_" in frag:
                return interned(ns, frag.split("_", 1)[1])
        return None
