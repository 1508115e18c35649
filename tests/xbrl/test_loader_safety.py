"""Hostile or broken input is refused with a typed error that names the file, never a crash."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from auditflow.errors import InputError, MalformedXBRLError, UnsafeInputError
from auditflow.xbrl.loader import load_filing

INSTANCE = """<?xml version="1.0" encoding="UTF-8"?>
<xbrli:xbrl xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:link="http://www.xbrl.org/2003/linkbase"
  xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:iso4217="http://www.xbrl.org/2003/iso4217"
  xmlns:us-gaap="http://fasb.org/us-gaap/2024">
  <link:schemaRef xlink:type="simple" xlink:href="t.xsd"/>
  <xbrli:context id="c1"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">1</xbrli:identifier></xbrli:entity>
    <xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
  <xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
  <us-gaap:Assets contextRef="{ctx}" unitRef="usd" decimals="0">100</us-gaap:Assets>
</xbrli:xbrl>
"""

SCHEMA = """<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:link="http://www.xbrl.org/2003/linkbase"
  xmlns:xlink="http://www.w3.org/1999/xlink" targetNamespace="http://example.com/t">
  <xs:annotation><xs:appinfo>{refs}</xs:appinfo></xs:annotation>
</xs:schema>
"""


def write_filing(folder: Path, *, ctx: str = "c1", refs: str = "", instance: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "t.xml").write_text(instance if instance is not None else INSTANCE.format(ctx=ctx))
    (folder / "t.xsd").write_text(SCHEMA.format(refs=refs))
    return folder


def test_a_good_tiny_filing_loads(tmp_path):
    f = load_filing(write_filing(tmp_path / "ok"))
    assert [(str(x.concept), x.value) for x in f.facts] == [("us-gaap:Assets", "100")]


def test_external_entity_is_refused(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    xxe = INSTANCE.format(ctx="c1").replace(
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file://{secret}">]>',
    ).replace(">100<", ">&xxe;<")
    with pytest.raises(UnsafeInputError, match="entities") as exc:
        load_filing(write_filing(tmp_path / "xxe", instance=xxe))
    assert "t.xml" in str(exc.value)


def test_entity_expansion_is_refused(tmp_path):
    lol = '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;">]>'
    bomb = INSTANCE.format(ctx="c1").replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?>' + lol)
    with pytest.raises(UnsafeInputError):
        load_filing(write_filing(tmp_path / "lol", instance=bomb))


def test_entities_in_a_linkbase_are_refused_too(tmp_path):
    folder = write_filing(tmp_path / "lb", refs='<link:linkbaseRef xlink:type="simple" xlink:href="t_cal.xml"/>')
    (folder / "t_cal.xml").write_text('<?xml version="1.0"?><!DOCTYPE l [<!ENTITY e SYSTEM "/etc/passwd">]><l>&e;</l>')
    with pytest.raises(UnsafeInputError, match="t_cal.xml"):
        load_filing(folder)


def test_zip_entry_escaping_its_folder_is_refused(tmp_path):
    z = tmp_path / "evil.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("filing/t.xml", INSTANCE.format(ctx="c1"))
        zf.writestr("filing/t.xsd", SCHEMA.format(refs=""))
        zf.writestr("../../escape.txt", "gotcha")
    with pytest.raises(UnsafeInputError, match="escapes"):
        load_filing(z)
    assert not (tmp_path.parent / "escape.txt").exists()


def test_href_climbing_out_of_the_package_is_refused(tmp_path):
    folder = write_filing(tmp_path / "climb", refs='<link:linkbaseRef xlink:type="simple" xlink:href="../../../etc/passwd"/>')
    with pytest.raises(UnsafeInputError, match="leaves the filing package"):
        load_filing(folder)


def test_truncated_instance_names_file_and_line(tmp_path):
    text = INSTANCE.format(ctx="c1")
    with pytest.raises(MalformedXBRLError, match=r"t\.xml:\d+: not well-formed"):
        load_filing(write_filing(tmp_path / "trunc", instance=text[: len(text) // 2]))


def test_fact_pointing_at_missing_context(tmp_path):
    with pytest.raises(MalformedXBRLError, match="context 'nowhere'.*does not define"):
        load_filing(write_filing(tmp_path / "noctx", ctx="nowhere"))


def test_missing_linkbase_file_is_named(tmp_path):
    folder = write_filing(tmp_path / "nolb", refs='<link:linkbaseRef xlink:type="simple" xlink:href="t_def.xml"/>')
    with pytest.raises(InputError, match="t_def.xml.*missing"):
        load_filing(folder)


def test_missing_path_and_non_xbrl_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_filing(tmp_path / "nope")
    other = tmp_path / "notes.xml"
    other.write_text("<notes/>")
    with pytest.raises(InputError, match="neither an XBRL instance"):
        load_filing(other)


def test_stray_leading_byte_before_declaration_is_tolerated(tmp_path):
    folder = write_filing(tmp_path / "stray")
    (folder / "t.xml").write_bytes(b"\n\x0c " + INSTANCE.format(ctx="c1").encode())
    assert len(load_filing(folder).facts) == 1
