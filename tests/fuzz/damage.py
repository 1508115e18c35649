"""A seeded generator of damaged filings: the damage kinds of issue 18, over a copy of a filing.

Each kind takes a writable copy of a filing folder and an ``random.Random`` and returns the path to
check (the folder, or a zip made from it). Families: bytes, values and attributes, linkbases, inline
markup, zip archives, XML attacks and the file system. The same seed gives the same inputs. The
``canary`` folder beside the inputs holds a secret that no check may read (see harness.py).
"""
from __future__ import annotations

import io
import os
import random
import re
import shutil
import struct
import zipfile
from pathlib import Path
from typing import Callable

CANARY_TOKEN = "AUDITFLOW-FUZZ-CANARY-7f3a9c"  # must never appear in any output
_ENTRY = re.compile(r"\.(htm|html|xhtml|xml)$", re.IGNORECASE)
_NOT_ENTRY = re.compile(r"_(cal|def|pre|lab|ref)\.xml$", re.IGNORECASE)

Damage = Callable[[Path, random.Random], Path]


# -- helpers -----------------------------------------------------------------------------------------
def copy_filing(source: Path, dest: Path) -> Path:
    """A writable copy of a filing folder (the shared data is read-only)."""
    shutil.copytree(source, dest)
    for root, dirs, files in os.walk(dest):
        for name in dirs + files:
            os.chmod(Path(root) / name, 0o755 if name in dirs else 0o644)
    os.chmod(dest, 0o755)
    return dest


def entry_document(folder: Path) -> Path:
    """The instance or inline document of a filing folder (the inline one when both are there)."""
    docs = sorted(p for p in folder.iterdir() if p.is_file() and _ENTRY.search(p.name) and not _NOT_ENTRY.search(p.name))
    inline = [p for p in docs if p.suffix.lower() in (".htm", ".html", ".xhtml")]
    return (inline or docs)[0]


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and re.search(pattern, p.name, re.IGNORECASE))


def _edit(path: Path, pattern: str, repl, rng: random.Random, *, flags: int = 0) -> bool:
    """Replace one randomly chosen match of ``pattern`` in ``path`` (``repl`` a string or a function)."""
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    matches = list(re.finditer(pattern, text, flags))
    if not matches:
        return False
    m = rng.choice(matches)
    new = repl(m) if callable(repl) else m.expand(repl)
    path.write_text(text[: m.start()] + new + text[m.end():], encoding="utf-8", errors="surrogateescape")
    return True


def _numeric_fact(folder: Path, rng: random.Random, value: str) -> None:
    doc = entry_document(folder)
    if doc.suffix.lower() == ".xml":
        _edit(doc, r'(<[\w-]+:\w+\b[^>]*\bunitRef="[^"]*"[^>]*>)([^<]*)(<)', lambda m: m.group(1) + value + m.group(3), rng)
    else:  # inline: the displayed text, with a format that reads it as it is
        _edit(doc, r'(<ix:nonFraction\b[^>]*>)([^<]*)(<)',
              lambda m: re.sub(r'\s(format|scale)="[^"]*"', "", m.group(1)) + value + m.group(3), rng)


def _attribute(folder: Path, rng: random.Random, name: str, value: str | None, *, where: str = r"[^>]*") -> None:
    """Set (or with None remove) attribute ``name`` on one random element of the entry document that has it."""
    doc = entry_document(folder)
    if value is None:
        _edit(doc, rf'\s{name}="[^"]*"', "", rng)
    else:
        _edit(doc, rf'(\s{name}=")[^"]*(")', lambda m: m.group(1) + value + m.group(2), rng)


# -- bytes -------------------------------------------------------------------------------------------
def _byte_target(folder: Path, rng: random.Random) -> Path:
    files = [p for p in folder.iterdir() if p.is_file()]
    return entry_document(folder) if rng.random() < 0.6 else rng.choice(sorted(files))


def flip(folder: Path, rng: random.Random) -> Path:
    p = _byte_target(folder, rng)
    data = bytearray(p.read_bytes())
    for _ in range(rng.randint(1, 16)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    p.write_bytes(bytes(data))
    return folder


def truncate(folder: Path, rng: random.Random) -> Path:
    p = _byte_target(folder, rng)
    data = p.read_bytes()
    p.write_bytes(data[: rng.randrange(max(1, len(data)))])
    return folder


def insert(folder: Path, rng: random.Random) -> Path:
    p = _byte_target(folder, rng)
    data = p.read_bytes()
    i = rng.randrange(len(data) + 1)
    junk = rng.choice([os.urandom(rng.randint(1, 64)), b"<", b"&", b"]]>", b"\x00", b"<!--", b"<x>" * 50, b"\xff\xfe"])
    p.write_bytes(data[:i] + junk + data[i:])
    return folder


def delete(folder: Path, rng: random.Random) -> Path:
    p = _byte_target(folder, rng)
    data = p.read_bytes()
    i = rng.randrange(max(1, len(data)))
    p.write_bytes(data[:i] + data[i + rng.randint(1, 4096):])
    return folder


# -- values and attributes ----------------------------------------------------------------------------
def special_number(folder: Path, rng: random.Random) -> Path:
    _numeric_fact(folder, rng, rng.choice(["NaN", "sNaN", "INF", "-INF", "Infinity", "-Infinity", "nan"]))
    return folder


def huge_exponent(folder: Path, rng: random.Random) -> Path:
    _numeric_fact(folder, rng, rng.choice(["1E+999999999999", "9.99e999999999", "1e-999999999", "5E+101", "1E+99999999"]))
    return folder


def long_digits(folder: Path, rng: random.Random) -> Path:
    n = rng.choice([29, 60, 1_000, 10_000])
    digits = "".join(rng.choice("0123456789") for _ in range(n)).lstrip("0") or "1"
    _numeric_fact(folder, rng, rng.choice([digits, "0." + digits, digits + "." + digits[:50]]))
    return folder


def bad_decimals(folder: Path, rng: random.Random) -> Path:
    """One fact's decimals made unreadable, or every fact's made absurd (so every rule's rounding meets it)."""
    if rng.random() < 0.5:
        value = rng.choice(["-1000000", "1000000", "99999999999999999999", "-" + "9" * 4000])
        doc = entry_document(folder)
        text = doc.read_text(encoding="utf-8", errors="surrogateescape")
        doc.write_text(re.sub(r'(\sdecimals=")[^"]*(")', lambda m: m.group(1) + value + m.group(2), text),
                       encoding="utf-8", errors="surrogateescape")
        return folder
    _attribute(folder, rng, "decimals", rng.choice(["-1000000", "1000000", "99999999999999999999", "abc", "", "1.5",
                                                    "-" + "9" * 5000, "INF ", "inf"]))
    return folder


def bad_date(folder: Path, rng: random.Random) -> Path:
    doc = entry_document(folder)
    value = rng.choice(["0001-01-01T00:00:00", "9999-12-31T24:00:00", "99999-01-01", "2024-02-30", "", "yesterday",
                        "2024-13-01", "0000-00-00", "2024-01-01T00:00:00+99:00", "1" * 5000])
    _edit(doc, r"(<xbrli:(?:instant|startDate|endDate)>)[^<]*(<)", lambda m: m.group(1) + value + m.group(2), rng)
    return folder


def swapped_period(folder: Path, rng: random.Random) -> Path:
    doc = entry_document(folder)
    _edit(doc, r"<xbrli:startDate>([^<]*)</xbrli:startDate>\s*<xbrli:endDate>([^<]*)</xbrli:endDate>",
          lambda m: f"<xbrli:startDate>{m.group(2)}</xbrli:startDate><xbrli:endDate>{m.group(1)}</xbrli:endDate>", rng)
    return folder


def missing_unit_ref(folder: Path, rng: random.Random) -> Path:
    _attribute(folder, rng, "unitRef", None)
    return folder


def unknown_unit(folder: Path, rng: random.Random) -> Path:
    _attribute(folder, rng, "unitRef", rng.choice(["nope", "", "usd usd", "x" * 10_000]))
    return folder


def bad_unit(folder: Path, rng: random.Random) -> Path:
    doc = entry_document(folder)
    _edit(doc, r"(<xbrli:measure>)[^<]*(</xbrli:measure>)",
          lambda m: m.group(1) + rng.choice(["", "nope:USD", "iso4217:", ":", "x" * 5000]) + m.group(2), rng)
    return folder


def unknown_context(folder: Path, rng: random.Random) -> Path:
    _attribute(folder, rng, "contextRef", rng.choice(["nope", "", "c c"]))
    return folder


def huge_context_ref(folder: Path, rng: random.Random) -> Path:
    _attribute(folder, rng, "contextRef", "c" * 5_000_000)
    return folder


def broken_context(folder: Path, rng: random.Random) -> Path:
    doc = entry_document(folder)
    what = rng.choice([r"<xbrli:period>.*?</xbrli:period>", r"<xbrli:entity>.*?</xbrli:entity>", r'\sid="[^"]*"'])
    _edit(doc, what, "", rng, flags=re.DOTALL)
    return folder


def deep_typed_member(folder: Path, rng: random.Random) -> Path:
    doc = entry_document(folder)
    depth = rng.choice([200, 5_000])
    nest = "<x:a xmlns:x=\"http://x\">" * depth + "v" + "</x:a>" * depth
    _edit(doc, r"(<xbrli:entity>)", lambda m: m.group(1) + f"<xbrli:segment>{nest}</xbrli:segment>", rng)
    return folder


# -- linkbases ---------------------------------------------------------------------------------------
def _calc(folder: Path) -> Path | None:
    files = _files(folder, r"_cal\.xml$")
    return files[0] if files else None


def calc_cycle(folder: Path, rng: random.Random) -> Path:
    cal = _calc(folder)
    if cal is None:
        return bad_weight(folder, rng)
    _edit(cal, r'(<link:calculationArc\b[^>]*?xlink:from=")([^"]*)("[^>]*?xlink:to=")([^"]*)("[^>]*?/>)',
          lambda m: m.group(0) + "\n" + m.group(1) + m.group(4) + m.group(3) + m.group(2) + m.group(5), rng)
    return folder


def bad_weight(folder: Path, rng: random.Random) -> Path:
    cal = _calc(folder) or entry_document(folder)
    value = rng.choice(["-Infinity", "sNaN", "NaN", "1E+999999", "", "abc", "1e-999999999", "9" * 5000])
    _edit(cal, r'(\sweight=")[^"]*(")', lambda m: m.group(1) + value + m.group(2), rng)
    return folder


def missing_locator(folder: Path, rng: random.Random) -> Path:
    files = _files(folder, r"_(cal|def|pre)\.xml$")
    if not files:
        return flip(folder, rng)
    target = rng.choice(files)
    for _ in range(rng.randint(1, 5)):
        _edit(target, r"<link:loc\b[^>]*/>", "", rng)
    return folder


def bad_order(folder: Path, rng: random.Random) -> Path:
    files = _files(folder, r"_(cal|def|pre)\.xml$")
    if files:
        _edit(rng.choice(files), r'(\sorder=")[^"]*(")',
              lambda m: m.group(1) + rng.choice(["sNaN", "NaN", "-Infinity", "1E+999999999"]) + m.group(2), rng)
    return folder


# -- inline markup ------------------------------------------------------------------------------------
def _inline(folder: Path) -> Path | None:
    doc = entry_document(folder)
    return doc if doc.suffix.lower() != ".xml" else None


def bad_format(folder: Path, rng: random.Random) -> Path:
    doc = _inline(folder)
    if doc is None:
        return special_number(folder, rng)
    value = rng.choice(["ixt:nope", "nope:num-dot-decimal", "ixt:num-dot-decimal ", "", "ixt:date-monthname-day-year-en",
                        "ixt:fixed-zero", "ixt-sec:durday", "ixt:num-comma-decimal"])
    _edit(doc, r'(\sformat=")[^"]*(")', lambda m: m.group(1) + value + m.group(2), rng)
    return folder


def bad_scale(folder: Path, rng: random.Random) -> Path:
    doc = _inline(folder)
    if doc is None:
        return huge_exponent(folder, rng)
    value = rng.choice(["99999999999", "99999999", "-99999999", "abc", "", "1.5", "101", "-101", "9" * 5000])
    if not _edit(doc, r'(\sscale=")[^"]*(")', lambda m: m.group(1) + value + m.group(2), rng):
        _edit(doc, r"(<ix:nonFraction\b)", lambda m: m.group(1) + f' scale="{value}"', rng)
    return folder


def bad_sign(folder: Path, rng: random.Random) -> Path:
    doc = _inline(folder)
    if doc is None:
        return special_number(folder, rng)
    value = rng.choice(["x", "+", "--", "", "-"])
    _edit(doc, r"(<ix:nonFraction\b)", lambda m: m.group(1) + f' sign="{value}"', rng)
    return folder


# -- zip archives -------------------------------------------------------------------------------------
def _zip_of(folder: Path, *, extra: list[tuple[str, bytes]] = (), method: int = zipfile.ZIP_DEFLATED) -> Path:
    out = folder.parent / f"{folder.name}.zip"
    with zipfile.ZipFile(out, "w", method) as z:
        for p in sorted(folder.iterdir()):
            if p.is_file():
                z.write(p, f"filing/{p.name}")
        for name, data in extra:
            z.writestr(name, data)
    shutil.rmtree(folder)
    return out


def zip_slip(folder: Path, rng: random.Random) -> Path:
    name = rng.choice(["../../evil.xml", "/etc/evil.xml", "filing/../../evil.xml", "C:\\evil.xml", "..\\evil.xml"])
    return _zip_of(folder, extra=[(name, b"<xbrl/>")])


_BOMB: dict[int, bytes] = {}


def _bomb_zip(size: int) -> bytes:
    """A zip holding one member of ``size`` zero bytes (built once per size: deflate makes it ~1/1000)."""
    if size not in _BOMB:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z, z.open("filing/bomb.xml", "w", force_zip64=True) as w:
            chunk = b"\0" * (1 << 20)
            for _ in range(size >> 20):
                w.write(chunk)
        _BOMB[size] = buf.getvalue()
    return _BOMB[size]


def zip_bomb(folder: Path, rng: random.Random) -> Path:
    """The filing zipped after a member that inflates to 150 or 300 MB (its headers say so)."""
    out = folder.parent / f"{folder.name}.zip"
    out.write_bytes(_bomb_zip(rng.choice([150, 300]) << 20))
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as z:  # appending keeps the bomb's compressed bytes
        for p in sorted(folder.iterdir()):
            if p.is_file():
                z.write(p, f"filing/{p.name}")
    shutil.rmtree(folder)
    return out


# (signature, offset of the flags, of the uncompressed size, of the name) in local and central headers
_HEADERS = ((b"PK\x03\x04", 6, 22, 30), (b"PK\x01\x02", 8, 24, 46))


def _patch_headers(path: Path, patch) -> Path:
    """Call ``patch(data, header_offset, flags_at, size_at, name_at)`` on every local and central header."""
    data = bytearray(path.read_bytes())
    for sig, flags_at, size_at, name_at in _HEADERS:
        start = 0
        while (i := data.find(sig, start)) >= 0:
            patch(data, i, flags_at, size_at, name_at)
            start = i + 4
    path.write_bytes(bytes(data))
    return path


def zip_lying_header(folder: Path, rng: random.Random) -> Path:
    """Central-directory and local sizes of the entry document that say less (or more) than the data."""
    name = f"filing/{entry_document(folder).name}".encode()
    lie = rng.choice([10, 100, 0, 0xFFFFFFF0])

    def patch(data, i, flags_at, size_at, name_at):
        if data[i + name_at : i + name_at + len(name)] == name:
            struct.pack_into("<I", data, i + size_at, lie)

    return _patch_headers(_zip_of(folder), patch)


def zip_encrypted(folder: Path, rng: random.Random) -> Path:
    def patch(data, i, flags_at, size_at, name_at):
        if rng.random() < 0.7:
            data[i + flags_at] |= 1

    return _patch_headers(_zip_of(folder), patch)


def zip_corrupt(folder: Path, rng: random.Random) -> Path:
    out = _zip_of(folder)
    data = bytearray(out.read_bytes())
    for _ in range(rng.randint(1, 32)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    if rng.random() < 0.3:
        data = data[: rng.randrange(len(data))]
    out.write_bytes(bytes(data))
    return out


def zip_nested(folder: Path, rng: random.Random) -> Path:
    """The filing inside a zip inside a zip (depth 2-4), its inner archive possibly damaged."""
    out = _zip_of(folder)
    for _ in range(rng.randint(1, 3)):
        inner = out.read_bytes()
        if rng.random() < 0.5:
            b = bytearray(inner)
            for _ in range(8):
                b[rng.randrange(len(b))] = rng.randrange(256)
            inner = bytes(b)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
            z.writestr("filing/inner.zip", inner)
    return out


def zip_many_entries(folder: Path, rng: random.Random) -> Path:
    n = rng.choice([50_000, 120_000])
    return _zip_of(folder, extra=[(f"filing/many/{i}.txt", b"") for i in range(n)], method=zipfile.ZIP_STORED)


def taxonomy_zip_damage(folder: Path, rng: random.Random) -> Path:
    """A rolled filing's taxonomy zip, damaged (or, for filings without one, a corrupt one referenced)."""
    zips = _files(folder, r"\.zip$")
    if not zips:
        return zip_corrupt(folder, rng)
    z = rng.choice(zips)
    data = bytearray(z.read_bytes())
    for _ in range(rng.randint(1, 20)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    z.write_bytes(bytes(data))
    return folder


# -- XML attacks ---------------------------------------------------------------------------------------
def _prepend_to_root(doc: Path, prolog: str, *, reference: str | None = None) -> None:
    text = doc.read_text(encoding="utf-8", errors="surrogateescape")
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    if reference:
        text = re.sub(r"(<[\w-]+:\w+\b[^>]*\bcontextRef=\"[^\"]*\"[^>]*>)([^<]*)(<)",
                      lambda m: m.group(1) + reference + m.group(3), text, count=1)
    doc.write_text('<?xml version="1.0" encoding="UTF-8"?>' + prolog + text, encoding="utf-8", errors="surrogateescape")


LOL = ('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">' + "".join(
    f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">' for i in range(9)) + "]>")


def entity_expansion(folder: Path, rng: random.Random) -> Path:
    comment = "<!--" + "c" * rng.choice([0, 70_000, 1_000_000]) + "-->" if rng.random() < 0.5 else ""
    _prepend_to_root(entry_document(folder), comment + LOL, reference="&j;")
    return folder


def external_entity(folder: Path, rng: random.Random) -> Path:
    secret = folder.parent / "canary" / "secret.txt"
    target = rng.choice([f"file://{secret}", str(secret), "http://127.0.0.1:9/x", "../canary/secret.txt"])
    kind = rng.choice(["SYSTEM", "PUBLIC \"-//x//y\""])
    _prepend_to_root(entry_document(folder), f'<!DOCTYPE x [<!ENTITY xxe {kind} "{target}">]>', reference="&xxe;")
    return folder


def utf16_entities(folder: Path, rng: random.Random) -> Path:
    doc = entry_document(folder)
    entity_expansion(folder, rng) if rng.random() < 0.5 else None
    text = doc.read_text(encoding="utf-8", errors="replace").replace('encoding="UTF-8"', 'encoding="UTF-16"')
    text = re.sub(r'encoding="utf-8"', 'encoding="UTF-16"', text, flags=re.IGNORECASE)
    doc.write_bytes(text.encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be"])))
    return folder


def external_schema_ref(folder: Path, rng: random.Random) -> Path:
    """A schemaRef or linkbaseRef to the network or outside the folder: never fetched, never read."""
    doc = entry_document(folder)
    target = rng.choice(["http://127.0.0.1:9/evil.xsd", "../canary/secret.txt", "/etc/passwd", "file:///etc/passwd",
                         "../../../../../../etc/passwd"])
    _edit(doc, r'(<link:schemaRef\b[^>]*\bxlink:href=")[^"]*(")', lambda m: m.group(1) + target + m.group(2), rng)
    return folder


# -- the file system ---------------------------------------------------------------------------------------
def symlink_out(folder: Path, rng: random.Random) -> Path:
    """A folder symlinked to the canary, and a linkbase or the schema reached through it."""
    canary = folder.parent / "canary"
    (folder / "ext").symlink_to(canary, target_is_directory=True)
    schemas = _files(folder, r"\.xsd$")
    ref = ('<link:linkbaseRef xlink:type="simple" xlink:href="ext/secret.txt" '
           'xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>')
    if not (schemas and rng.random() < 0.5 and _edit(schemas[0], r"(<(?:\w+:)?appinfo>)", lambda m: m.group(1) + ref, rng)):
        _edit(entry_document(folder), r'(<link:schemaRef\b[^>]*\bxlink:href=")[^"]*(")',
              lambda m: m.group(1) + "ext/secret.txt" + m.group(2), rng)
    return folder


def symlink_instance(folder: Path, rng: random.Random) -> Path:
    """The entry document replaced by a symlink to a copy outside the folder (or to a device)."""
    doc = entry_document(folder)
    outside = folder.parent / "canary" / doc.name
    if rng.random() < 0.7:
        shutil.copy(doc, outside)
        text = outside.read_text(encoding="utf-8", errors="surrogateescape")
        outside.write_text(text.replace("</", f"<!-- {CANARY_TOKEN} --></", 1), encoding="utf-8", errors="surrogateescape")
    doc.unlink()
    doc.symlink_to(outside if outside.exists() else Path("/dev/zero"))
    return folder


KINDS: dict[str, tuple[str, Damage]] = {name: (family, fn) for family, fns in {
    "bytes": (flip, truncate, insert, delete),
    "values": (special_number, huge_exponent, long_digits, bad_decimals, bad_date, swapped_period, missing_unit_ref,
               unknown_unit, bad_unit, unknown_context, huge_context_ref, broken_context, deep_typed_member),
    "linkbases": (calc_cycle, bad_weight, missing_locator, bad_order),
    "inline": (bad_format, bad_scale, bad_sign),
    "zip": (zip_slip, zip_bomb, zip_lying_header, zip_encrypted, zip_corrupt, zip_nested, zip_many_entries,
            taxonomy_zip_damage),
    "xml-attacks": (entity_expansion, external_entity, utf16_entities, external_schema_ref),
    "filesystem": (symlink_out, symlink_instance),
}.items() for fn in fns for name in [fn.__name__]}


def make_input(source: Path, kind: str, rng: random.Random, workdir: Path) -> Path:
    """A damaged copy of ``source`` in ``workdir`` (with its ``canary`` folder beside it); the path to check."""
    workdir.mkdir(parents=True, exist_ok=True)
    canary = workdir / "canary"
    canary.mkdir(exist_ok=True)
    (canary / "secret.txt").write_text(f"<secret>{CANARY_TOKEN}</secret>\n")
    folder = copy_filing(source, workdir / "filing")
    return KINDS[kind][1](folder, rng)
