"""Inline XBRL document sets (docs/inline-document-sets.md): several inline documents, one instance.

The real test splits a real inline filing (the AEON 10-Q of the data root) into two inline documents
in ``tmp_path``, half of its facts in each and the contexts and units only the second half uses moved
with them, and checks that loading the folder gives the facts of the single-document load. The others
check which files join the set and that a broken or contradicting second document ends in the loader's
typed errors.
"""
from __future__ import annotations

import copy
import shutil
from collections import Counter
from pathlib import Path

import pytest
from lxml import etree

from auditflow.errors import AuditflowError, InputError, MalformedXBRLError
from auditflow.xbrl.filing import Filing
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.qname import QName
from auditflow.xbrl.safexml import parse_xml

AEON = Path("filings") / "aeon-10q-2023-09-30"
MAIN = "aeon-20230930x10q.htm"
SECOND = "aeon-20230930x10q_part2.htm"  # sorts after MAIN: the set is read in name order
EXTRACTED = "aeon-20230930x10q_htm.xml"

IX = "http://www.xbrl.org/2013/inlineXBRL"
XHTML = "http://www.w3.org/1999/xhtml"
XBRLI = "http://www.xbrl.org/2003/instance"
FACT_TAGS = (f"{{{IX}}}nonFraction", f"{{{IX}}}nonNumeric")
PLAIN_EXHIBIT = b"""<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Exhibit 31.1</title></head>
<body><p>I certify that I have reviewed this quarterly report.</p></body></html>
"""
# Declares the Inline XBRL namespace (as exhibits generated from one template do) but tags nothing.
EMPTY_INLINE_EXHIBIT = b"""<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL">
<head><title>Exhibit 32.1</title></head><body><p>Certification pursuant to 18 U.S.C. Section 1350.</p></body></html>
"""


# -- building the two-document set -----------------------------------------------------------------------
def _movable(root: etree._Element) -> list[etree._Element]:
    """Facts that can change document without changing any value: not nested in another fact or in a
    continuation (whose text would then lose theirs)."""
    out = []
    for el in root.iter(*FACT_TAGS):
        if not any(a.tag in FACT_TAGS or a.tag == f"{{{IX}}}continuation" for a in el.iterancestors()):
            out.append(el)
    return out


def _detach(el: etree._Element) -> etree._Element:
    """Remove ``el`` from its tree, leaving its tail text where it was."""
    parent, prev = el.getparent(), el.getprevious()
    if el.tail:
        if prev is not None:
            prev.tail = (prev.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    el.tail = None
    parent.remove(el)
    return el


def _refs(els) -> set[str]:
    """Context and unit ids that ``els`` (and the facts nested in them) refer to."""
    out: set[str] = set()
    for el in els:
        for f in el.iter(*FACT_TAGS, f"{{{IX}}}fraction"):
            out.update(x for x in (f.get("contextRef"), f.get("unitRef")) if x)
    return out


def split_set(data: bytes) -> tuple[bytes, bytes, int, int]:
    """The inline document ``data`` as two documents of one set: the second half of the movable facts (and
    the contexts and units only they use) go to a second document with its own ``ix:header`` and no
    ``ix:references``. Returns both documents, the number of facts moved and of contexts/units moved."""
    root = parse_xml(data, name=MAIN)
    movable = _movable(root)
    moved = movable[len(movable) // 2:]
    hidden_moved = [el for el in moved if any(a.tag == f"{{{IX}}}hidden" for a in el.iterancestors())]
    body_moved = [el for el in moved if el not in set(hidden_moved)]
    for el in moved:
        _detach(el)
    still_used = _refs(root.iter(*FACT_TAGS))
    resources = next(root.iter(f"{{{IX}}}resources"))
    res_moved = [el for el in resources if el.get("id") not in still_used and el.tag in
                 (f"{{{XBRLI}}}context", f"{{{XBRLI}}}unit")]
    for el in res_moved:
        _detach(el)

    second = etree.Element(f"{{{XHTML}}}html", nsmap=dict(root.nsmap))
    etree.SubElement(etree.SubElement(second, f"{{{XHTML}}}head"), f"{{{XHTML}}}title").text = "second part"
    body = etree.SubElement(second, f"{{{XHTML}}}body")
    header = etree.SubElement(etree.SubElement(body, f"{{{XHTML}}}div", style="display:none"), f"{{{IX}}}header")
    hidden = etree.SubElement(header, f"{{{IX}}}hidden")
    hidden.extend(hidden_moved)
    etree.SubElement(header, f"{{{IX}}}resources").extend(res_moved)
    for el in body_moved:
        etree.SubElement(body, f"{{{XHTML}}}div").append(el)
    write = lambda r: etree.tostring(r, xml_declaration=True, encoding="utf-8")  # noqa: E731
    return write(root), write(second), len(moved), len(res_moved)


def _filing_folder(data_root: Path, tmp_path: Path, *, keep_extracted: bool = False) -> Path:
    """The AEON filing's schema and linkbases (and its extracted instance if asked) in a fresh folder."""
    src = data_root / AEON
    if not (src / MAIN).is_file():
        pytest.fail(f"test data missing: {src / MAIN} (the data root's AEON 10-Q filing is required)")
    dst = tmp_path / "aeon"
    dst.mkdir()
    for p in src.iterdir():
        if p.suffix in (".xsd", ".xml") and (keep_extracted or p.name != EXTRACTED):
            shutil.copyfile(p, dst / p.name)
    return dst


# -- comparing loads by content --------------------------------------------------------------------------
def _facts(f: Filing) -> Counter:
    """Facts by what they say: contexts and units by content, never by the document or line they came from."""
    out: Counter = Counter()
    for x in f.facts:
        c = f.contexts[x.context_id]
        dims = tuple(sorted((a.clark(), m.clark() if isinstance(m, QName) else str(m)) for a, m in c.dimensions))
        u = f.units.get(x.unit_id) if x.unit_id else None
        unit = None if u is None else (tuple(q.clark() for q in u.numerators), tuple(q.clark() for q in u.denominators))
        out[(x.concept.clark(), c.entity_scheme, c.entity_id, c.period, dims, unit, x.value, x.decimals, x.precision,
             x.is_nil, x.id, x.context_id, x.unit_id)] += 1
    return out


def _contexts(f: Filing) -> dict:
    return {k: (c.entity_scheme, c.entity_id, c.period, c.dimensions) for k, c in f.contexts.items()}


@pytest.fixture(scope="module")
def single(data_root: Path) -> Filing:
    """The AEON 10-Q as the data root holds it: one inline document (its extracted instance ignored)."""
    return load_filing(data_root / AEON)


@pytest.fixture(scope="module")
def split(data_root: Path) -> tuple[bytes, bytes, int, int]:
    """The AEON inline document split into a two-document set."""
    return split_set((data_root / AEON / MAIN).read_bytes())


# -- tests -----------------------------------------------------------------------------------------------
def test_a_split_real_filing_loads_as_the_single_document(data_root, tmp_path, single, split):
    first, second, n_facts, n_res = split
    assert n_facts > 200 and n_res > 10  # a real split: hundreds of facts, and contexts/units that moved too
    folder = _filing_folder(data_root, tmp_path)
    (folder / MAIN).write_bytes(first)
    (folder / SECOND).write_bytes(second)
    got = load_filing(folder)
    assert got.documents == [MAIN, SECOND] and got.is_inline
    assert {x.document for x in got.facts} == {MAIN, SECOND}
    in_second = sum(x.document == SECOND for x in got.facts)
    assert in_second >= n_facts and 0.3 < in_second / len(got.facts) < 0.7  # nested facts moved with their parents
    assert _facts(got) == _facts(single)
    assert _contexts(got) == _contexts(single) and got.units == single.units
    assert len(got.duplicates) == len(single.duplicates)
    assert [x.index for x in got.facts] == list(range(len(got.facts)))  # one numbering across the set
    ignored = [w.code for w in single.warnings if w.code != "entry-choice"]
    assert [w.code for w in got.warnings if w.code != "entry-choice"] == ignored


def test_the_extracted_instance_is_still_ignored_beside_a_set(data_root, tmp_path, split):
    first, second, _, _ = split
    folder = _filing_folder(data_root, tmp_path, keep_extracted=True)
    (folder / MAIN).write_bytes(first)
    (folder / SECOND).write_bytes(second)
    got = load_filing(folder)
    assert got.documents == [MAIN, SECOND]
    note = next(w.message for w in got.warnings if w.code == "entry-choice")
    assert MAIN in note and SECOND in note and f"ignored the extracted instance(s) {EXTRACTED}" in note


def test_html_without_inline_xbrl_beside_the_filing_is_not_part_of_the_set(data_root, tmp_path, single):
    folder = _filing_folder(data_root, tmp_path)
    shutil.copyfile(data_root / AEON / MAIN, folder / MAIN)
    (folder / "ex31.htm").write_bytes(PLAIN_EXHIBIT)
    (folder / "ex32.htm").write_bytes(EMPTY_INLINE_EXHIBIT)
    got = load_filing(folder)
    assert got.documents == [MAIN]
    assert _facts(got) == _facts(single)
    note = next(w.message for w in got.warnings if w.code == "entry-choice")
    assert "ex32.htm" in note and "ex31.htm" not in note  # the one that looked inline is named as skipped


@pytest.mark.parametrize("damage", [
    pytest.param(lambda second: second[: len(second) // 2], id="truncated"),
    pytest.param(lambda second: second.replace(b"<ix:header>", b"<ix:header><ix:resources>", 1), id="unclosed-element"),
    pytest.param(lambda second: second.replace(b"</body>", b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]></body>", 1),
                 id="doctype-inside"),
])
def test_a_malformed_second_document_is_a_typed_error(data_root, tmp_path, split, damage):
    first, second, _, _ = split
    folder = _filing_folder(data_root, tmp_path)
    (folder / MAIN).write_bytes(first)
    (folder / SECOND).write_bytes(damage(second))
    with pytest.raises(InputError) as err:
        load_filing(folder)
    assert SECOND in str(err.value)


def _second_with_context(split, transform) -> bytes:
    """The split's second document with its first context changed by ``transform(context_element, first_doc_root)``."""
    first, second, _, _ = split
    root = parse_xml(second, name=SECOND)
    transform(next(root.iter(f"{{{IX}}}resources")), parse_xml(first, name=MAIN))
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def _copy_of_first_context(resources: etree._Element, first_root: etree._Element, *, period: str | None = None) -> None:
    ctx = copy.deepcopy(next(first_root.iter(f"{{{XBRLI}}}context")))
    if period is not None:
        for el in ctx.iter(f"{{{XBRLI}}}instant", f"{{{XBRLI}}}endDate"):
            el.text = period
    resources.insert(0, ctx)


def test_a_context_id_defined_again_alike_in_another_document_is_read_once_with_a_warning(data_root, tmp_path, split, single):
    folder = _filing_folder(data_root, tmp_path)
    (folder / MAIN).write_bytes(split[0])
    (folder / SECOND).write_bytes(_second_with_context(split, _copy_of_first_context))
    got = load_filing(folder)
    assert _facts(got) == _facts(single)
    dup = [w for w in got.warnings if w.code == "ix-duplicate-id"]
    assert len(dup) == 1 and dup[0].document == SECOND and MAIN in dup[0].message


def test_a_context_id_defined_differently_in_two_documents_is_malformed(data_root, tmp_path, split):
    folder = _filing_folder(data_root, tmp_path)
    (folder / MAIN).write_bytes(split[0])
    (folder / SECOND).write_bytes(_second_with_context(split, lambda r, f: _copy_of_first_context(r, f, period="1999-12-31")))
    with pytest.raises(MalformedXBRLError) as err:
        load_filing(folder)
    assert SECOND in str(err.value) and MAIN in str(err.value)
    assert isinstance(err.value, AuditflowError)


def test_facts_for_another_target_document_are_left_out(data_root, tmp_path, split, single):
    first, second, _, _ = split
    root = parse_xml(second, name=SECOND)
    fact = next(el for el in root.iter(*FACT_TAGS) if el.get("id"))
    fact.set("target", "other")
    folder = _filing_folder(data_root, tmp_path)
    (folder / MAIN).write_bytes(first)
    (folder / SECOND).write_bytes(etree.tostring(root, xml_declaration=True, encoding="utf-8"))
    got = load_filing(folder)
    assert fact.get("id") not in {x.id for x in got.facts}
    assert sum(_facts(single).values()) - sum(_facts(got).values()) == 1  # facts nested in it keep their own target
    assert any(w.code == "ix-target" and fact.get("id") in w.message for w in got.warnings)
