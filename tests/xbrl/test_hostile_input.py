"""Regression tests for issue 18's defects on the loading and checking side (numbered as in the issue).

Each damaged filing gives a result or a typed error naming the file, never an untyped crash, and never
a blow-up in memory or time. The numbers: see docs/reliability.md.
"""
from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest

from auditflow.errors import InputError, MalformedXBRLError, UnsafeInputError
from auditflow.xbrl.loader import load_filing
from auditflow.xbrl.model import plain_decimal
from auditflow.xbrl.numbers import integral, power_of_ten, round_half_even
from auditflow.rules.finding import dec_display, dec_str
from auditflow.rules.statements import round_decimals, tolerance_check
from tests.xbrl.test_loader_safety import INSTANCE, SCHEMA, write_filing

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"


def _fact(value: str, *, attrs: str = 'unitRef="usd" decimals="0"') -> str:
    return INSTANCE.format(ctx="c1").replace('unitRef="usd" decimals="0">100<', f"{attrs}>{value}<")


def _sample(tmp_path: Path, edit) -> Path:
    """A copy of the bundled sample (xml form) with its instance text changed by ``edit``."""
    folder = tmp_path / "acme"
    folder.mkdir()
    for f in SAMPLE.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    inst = folder / "acme-20241231.xml"
    inst.write_text(edit(inst.read_text()))
    return folder


def _check(path: Path):
    from auditflow.cli.context import environment_factory
    from argparse import Namespace

    from auditflow.rules.runner import parse_rules, run_rules

    args = Namespace(data_root=None, taxonomy=[], no_taxonomy=True, format="json")
    factory = environment_factory(args, taxonomy_graph=False)
    env = factory.build(str(path))
    return run_rules(env, parse_rules("0015,0117,0126"), data_root=factory.data_root)


# -- 1. NaN, sNaN, INF values and weights ------------------------------------------------------------
@pytest.mark.parametrize("value", ["NaN", "sNaN", "INF", "-INF", "Infinity", "-Infinity"])
def test_1_special_numbers_are_a_not_a_number_warning_left_out_of_arithmetic(tmp_path, value):
    filing = load_filing(write_filing(tmp_path / "f", instance=_fact(value)))
    assert filing.facts == []
    (w,) = [w for w in filing.warnings if w.code == "not-a-number"]
    assert "not a number" in w.message and w.document == "t.xml" and w.line


@pytest.mark.parametrize("value", ["NaN", "sNaN", "INF", "-1E+40"])
def test_1_special_numbers_in_the_sample_do_not_crash_the_rules(tmp_path, value):
    folder = _sample(tmp_path, lambda t: t.replace(">352583000000<", f">{value}<", 1)
                     .replace('>2000000<', f'>{value}<'))
    report = _check(folder)
    assert report.results


@pytest.mark.parametrize("weight", ["-Infinity", "sNaN", "NaN", "1E+999999"])
def test_1_a_non_finite_weight_is_no_weight(tmp_path, weight):
    folder = tmp_path / "acme"
    folder.mkdir()
    for f in SAMPLE.iterdir():
        data = f.read_text()
        if f.name.endswith("_cal.xml"):
            data = data.replace('weight="1"', f'weight="{weight}"').replace('weight="1.0"', f'weight="{weight}"')
        (folder / f.name).write_text(data)
    assert _check(folder).results


def test_1_sums_over_28_digits_are_rounded_without_overflow():
    big = Decimal("9" * 40)
    assert integral(big) == big and str(integral(Decimal("5E+30"))) == "5" + "0" * 30  # quantize raised here
    assert tolerance_check(big, big + 1, -3, 3) == (False, Decimal("3E+3"))


# -- 2. huge exponents, scales and decimals -----------------------------------------------------------
@pytest.mark.parametrize("value", ["1E+999999999999", "1E-999999999999", "1" * 10_000, "0." + "1" * 10_000])
def test_2_huge_exponents_and_digits_are_out_of_range_warnings(tmp_path, value):
    filing = load_filing(write_filing(tmp_path / "f", instance=_fact(value)))
    assert filing.facts == []
    (w,) = [w for w in filing.warnings if w.code == "not-a-number"]
    assert "out of range" in w.message and len(w.message) < 400


@pytest.mark.parametrize("scale", ["99999999999", "99999999", "-99999999"])
def test_2_inline_scale_out_of_range_skips_the_fact_with_a_warning(scale):
    from lxml import etree

    from auditflow.xbrl.inline import parse_inline

    html = (INLINE_DOC.replace('scale="0"', f'scale="{scale}"')).encode()
    parsed = parse_inline([("a.htm", etree.fromstring(html))])
    assert parsed.facts == []
    assert any("out of range" in w.message for w in parsed.warnings)


INLINE_DOC = """<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:us-gaap="http://fasb.org/us-gaap/2024"
 xmlns:iso4217="http://www.xbrl.org/2003/iso4217" xmlns:ixt="http://www.xbrl.org/inlineXBRL/transformation/2020-02-12">
<body><ix:header><ix:resources>
<xbrli:context id="c1"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">1</xbrli:identifier></xbrli:entity>
<xbrli:period><xbrli:instant>2024-12-31</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header>
<ix:nonFraction name="us-gaap:Assets" contextRef="c1" unitRef="usd" decimals="0" scale="0" format="ixt:num-dot-decimal">5</ix:nonFraction>
</body></html>"""


@pytest.mark.parametrize("t", [-1_000_000, 1_000_000, -(10**18), 10**18])
def test_2_rounding_to_absurd_decimals_cannot_overflow(t):
    x = Decimal("352583000000")
    r = round_decimals(x, t)
    assert r == (0 if t < 0 else x)
    is_error, allowed = tolerance_check(x, x + 1, t, 3)
    assert is_error is (t > 0) and allowed == power_of_ten(3, t)


@pytest.mark.parametrize("t", [-1_000_000, 10**7])
def test_2_the_registry_rules_tolerance_cannot_overflow_either(t):
    from auditflow.rules.common import differs

    is_error, allowed = differs(Decimal(5), Decimal(6), t)
    assert is_error is (t > 0) and allowed == power_of_ten(2, t)


def test_2_decimals_minus_a_million_in_a_filing_is_checked(tmp_path):
    folder = _sample(tmp_path, lambda t: t.replace('decimals="-6"', 'decimals="-1000000"').replace('decimals="0"', 'decimals="-1000000"'))
    assert _check(folder).results


# -- 3. no billion-digit strings ----------------------------------------------------------------------
@pytest.mark.parametrize("text", ["9.99e999999999", "1e999999999", "-1E-999999999"])
def test_3_printing_a_huge_number_keeps_its_exponent(text):
    d = Decimal(text)
    for shown in (plain_decimal(d), dec_display(d), dec_str(d)):
        assert len(shown) < 40
    assert plain_decimal(Decimal("1.5"), 3) == "1500"


def test_3_a_huge_value_in_a_filing_uses_little_memory(tmp_path):
    folder = write_filing(tmp_path / "f", instance=_fact("9.99e999999999"))
    code = f"from auditflow.xbrl.loader import load_filing; f = load_filing({str(folder)!r}); print(len(f.facts))"
    out = _limited([sys.executable, "-c", code], memory=400 * 1024 * 1024)
    assert out.returncode == 0 and out.stdout.strip() == "0", out.stderr


def test_3_an_injected_huge_value_is_refused():
    from auditflow.mutations import Mutation, MutationError

    with pytest.raises(MutationError, match="not a finite number"):
        Mutation("set_value", "assets", "1e999999999")


def _limited(cmd: list[str], *, memory: int, seconds: int = 60) -> subprocess.CompletedProcess:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "AUDITFLOW_FILING_CACHE": "off"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=seconds, preexec_fn=limit, env=env,
                          cwd=Path(__file__).resolve().parents[2])


# -- 4. dates the datetime type cannot hold ------------------------------------------------------------
@pytest.mark.parametrize("instant", ["0001-01-01T00:00:00", "9999-12-31T24:00:00", "99999-01-01", "2024-02-30"])
def test_4_impossible_dates_are_a_malformed_filing_with_its_line(tmp_path, instant):
    inst = INSTANCE.format(ctx="c1").replace("<xbrli:instant>2024-12-31", f"<xbrli:instant>{instant}")
    with pytest.raises(MalformedXBRLError, match="invalid date") as exc:
        load_filing(write_filing(tmp_path / "f", instance=inst))
    assert exc.value.path == "t.xml" and exc.value.line


# -- 5. damaged zips ----------------------------------------------------------------------------------
def _zip_filing(tmp_path: Path, tweak) -> Path:
    src = write_filing(tmp_path / "src")
    out = tmp_path / "filing.zip"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for f in sorted(src.iterdir()):
            z.writestr(f"filing/{f.name}", f.read_bytes())
    tweak(out)
    return out


def _corrupt_data(path: Path) -> None:
    data = bytearray(path.read_bytes())
    i = data.find(b"filing/t.xml") + len("filing/t.xml") + 10  # inside the first member's compressed data
    data[i : i + 40] = b"\xff" * 40
    path.write_bytes(bytes(data))


def _encrypt_flag(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):
        start = 0
        while (i := data.find(sig, start)) >= 0:
            flag_at = i + (6 if sig == b"PK\x03\x04" else 8)
            data[flag_at] |= 1
            start = i + 4
    path.write_bytes(bytes(data))


def _lying_size(path: Path) -> None:
    """A member whose headers say 100 bytes but that inflates to 20 MB of zeros."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("filing/t.xml", b"<" + b"\0" * (20 * 1024 * 1024))
    data = bytearray(buf.getvalue())
    import struct

    lh = data.find(b"PK\x03\x04")
    struct.pack_into("<I", data, lh + 22, 100)
    cd = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, cd + 24, 100)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("tweak", [_corrupt_data, _encrypt_flag, lambda p: p.write_bytes(p.read_bytes()[:300]),
                                   _lying_size])
def test_5_damaged_zips_are_typed_errors(tmp_path, tweak):
    with pytest.raises(InputError):
        load_filing(_zip_filing(tmp_path, tweak))


def test_5_sizes_are_checked_against_the_bytes_read(tmp_path):
    from auditflow.xbrl.safezip import read_member

    path = _zip_filing(tmp_path, _lying_size)
    with zipfile.ZipFile(path) as z:
        with pytest.raises(InputError, match="damaged"):  # inflating stops at the 100 bytes the header says
            read_member(z, "filing/t.xml", where="filing.zip")
        z.getinfo("filing/t.xml").file_size = 150 * 1024 * 1024  # a header over the limit
        with pytest.raises(UnsafeInputError, match="refused"):
            read_member(z, "filing/t.xml", where="filing.zip", limit=100 * 1024 * 1024)


def test_5_a_corrupt_nested_taxonomy_zip_is_a_typed_error(tmp_path):
    folder = write_filing(tmp_path / "f", refs="")
    inst = INSTANCE.format(ctx="c1").replace('xlink:href="t.xsd"', 'xlink:href="tax.zip/tax/t.xsd"')
    (folder / "t.xml").write_text(inst)
    (folder / "tax.zip").write_bytes(b"PK\x03\x04" + b"\x00" * 100)
    with pytest.raises(InputError, match="zip"):
        load_filing(folder)


# -- 6. symlinks out of the filing folder -------------------------------------------------------------
def test_6_a_linkbase_through_a_symlinked_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text("root:x:0:0")
    ref = '<link:linkbaseRef xlink:type="simple" xlink:href="ext/passwd" xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>'
    folder = write_filing(tmp_path / "f", refs=ref)
    (folder / "ext").symlink_to(outside)
    with pytest.raises(UnsafeInputError, match="outside the filing's folder"):
        load_filing(folder)


def test_6_a_symlinked_instance_outside_the_folder_is_not_loaded(tmp_path):
    elsewhere = write_filing(tmp_path / "elsewhere")
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "t.xsd").write_text(SCHEMA.format(refs=""))
    (folder / "t.xml").symlink_to(elsewhere / "t.xml")
    with pytest.raises(InputError, match="no XBRL instance"):
        load_filing(folder)


def test_6_a_fifo_in_the_folder_is_refused_not_waited_on(tmp_path):
    folder = write_filing(tmp_path / "f")
    os.mkfifo(folder / "x_cal.xml")
    ref = '<link:linkbaseRef xlink:type="simple" xlink:href="x_cal.xml" xlink:arcrole="http://www.w3.org/1999/xlink/properties/linkbase"/>'
    (folder / "t.xsd").write_text(SCHEMA.format(refs=ref))
    with pytest.raises(UnsafeInputError, match="not a regular file"):
        load_filing(folder)


# -- 11. the entity pre-check reads the whole prolog, in any encoding --------------------------------
LOL = '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'


@pytest.mark.parametrize("shape", ["long-comment", "utf-16", "utf-16-long-comment"])
def test_11_entities_after_a_long_comment_or_in_utf16_are_refused(tmp_path, shape):
    body = INSTANCE.format(ctx="c1").split("?>", 1)[1].replace(">100<", ">&b;<")
    prolog = "<!--" + "c" * 100_000 + "-->" if "comment" in shape else ""
    if "utf-16" in shape:
        data = ('<?xml version="1.0" encoding="UTF-16"?>' + prolog + LOL + body).encode("utf-16")
    else:
        data = ('<?xml version="1.0"?>' + prolog + LOL + body).encode()
    folder = write_filing(tmp_path / "f")
    (folder / "t.xml").write_bytes(data)
    with pytest.raises(UnsafeInputError, match="entities"):
        load_filing(folder)


@pytest.mark.parametrize("shape", ["long-comment", "utf-16"])
def test_11_a_utf16_or_comment_led_instance_is_found_and_loaded(tmp_path, shape):
    body = INSTANCE.format(ctx="c1").split("?>", 1)[1]
    folder = write_filing(tmp_path / "f")
    if shape == "utf-16":
        (folder / "t.xml").write_bytes(('<?xml version="1.0" encoding="UTF-16"?>' + body).encode("utf-16"))
    else:
        (folder / "t.xml").write_text('<?xml version="1.0"?><!--' + "c" * 100_000 + "-->" + body)
    assert [f.value for f in load_filing(folder).facts] == ["100"]


# -- 12. silent weakenings ----------------------------------------------------------------------------
def test_12_a_numeric_fact_without_its_unit_is_a_recorded_warning(tmp_path):
    filing = load_filing(write_filing(tmp_path / "f", instance=_fact("100", attrs='decimals="0"')))
    (w,) = [w for w in filing.warnings if w.code == "numeric-without-unit"]
    assert "no unitRef" in w.message and w.line


def test_12_a_duration_whose_start_and_end_are_swapped_is_an_error(tmp_path):
    inst = INSTANCE.format(ctx="c1").replace(
        "<xbrli:instant>2024-12-31</xbrli:instant>", "<xbrli:startDate>2024-12-31</xbrli:startDate><xbrli:endDate>2024-01-01</xbrli:endDate>")
    with pytest.raises(MalformedXBRLError, match="swapped") as exc:
        load_filing(write_filing(tmp_path / "f", instance=inst))
    assert exc.value.line


def test_12_a_5mb_context_ref_is_not_echoed_whole(tmp_path):
    with pytest.raises(MalformedXBRLError) as exc:
        load_filing(write_filing(tmp_path / "f", ctx="x" * 5_000_000))
    assert len(str(exc.value)) < 500 and "5,000,000 characters" in str(exc.value)


# -- the CLI: exit 2 on any error, one line, the traceback only with --debug ---------------------------
def test_cli_an_unexpected_error_exits_2_with_one_line(monkeypatch, capsys):
    from auditflow.cli import main as cli

    def boom(args):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr("auditflow.cli.inspect_cmd.run_inspect", boom)
    assert cli.main(["inspect"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: RecursionError" in err and "Traceback" not in err
    assert cli.main(["--debug", "inspect"]) == 2
    assert "Traceback" in capsys.readouterr().err


def test_cli_a_damaged_filing_exits_2_not_1(tmp_path):
    folder = write_filing(tmp_path / "f", instance=_fact("1E+999999999999").replace("<xbrli:instant>2024-12-31",
                                                                                    "<xbrli:instant>0001-01-01T00:00:00"))
    out = _limited([sys.executable, "-m", "auditflow.cli.main", "check", str(folder), "--no-taxonomy"], memory=2 << 30)
    assert out.returncode == 2 and out.stderr.startswith("auditflow: error:") and "Traceback" not in out.stderr
