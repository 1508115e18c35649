"""Issue 18, defects 7 and 8: hostile case files are one failing item each, never a hang or INTERNALERROR."""
from __future__ import annotations

import pytest
from plugin_cases import ASSETS_OK, case_file

from auditflow.cases.errors import CaseFileError
from auditflow.cases.yamlsrc import MAX_EXPANDED_NODES, parse_yaml

ALIAS_BOMB = """auditflow: 1
a: &a ["x","x","x","x","x","x","x","x","x"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
cases: *i
"""


def test_7_an_alias_bomb_is_refused_quickly_by_the_loader() -> None:
    assert len(ALIAS_BOMB) < 400
    with pytest.raises(CaseFileError, match="alias bomb"):
        parse_yaml(ALIAS_BOMB, file="bomb.case.yaml")


def test_7_modest_aliases_still_load_with_their_lines() -> None:
    doc = parse_yaml("auditflow: 1\nbase: &b {x: 1}\ncases: [*b, *b]\n", file="ok.case.yaml")
    assert doc.data["cases"] == [{"x": 1}, {"x": 1}] and doc.line_map[("cases", 1)] and doc.line_map[("base", "x")] == 2
    assert MAX_EXPANDED_NODES >= 100_000


@pytest.mark.parametrize("text, expected", [
    ("auditflow: 1\ncases: " + "[" * 20_000 + "]" * 20_000 + "\n", "nested"),
    ("auditflow: 1\nn: " + "7" * 5_000 + "\ncases: []\n", "YAML value"),
    ("auditflow: 1\ncases: []\nx: \"a\0b\"\n", "YAML"),
])
def test_8_deep_nesting_huge_integers_and_nul_bytes_are_case_file_errors(text, expected) -> None:
    with pytest.raises(CaseFileError, match=expected):
        parse_yaml(text, file="bad.case.yaml")


@pytest.mark.parametrize("name, text", [
    ("bomb", ALIAS_BOMB),
    ("deep", "auditflow: 1\ncases: " + "[" * 20_000 + "]" * 20_000 + "\n"),
    ("bigint", "auditflow: 1\nn: " + "7" * 5_000 + "\ncases: []\n"),
    ("nul", "auditflow: 1\ncases: []\nx: \"a\0b\"\n"),
])
def test_8_a_bad_file_is_one_failing_item_and_the_good_ones_still_run(
        pytester: pytest.Pytester, af_args, name, text) -> None:
    pytester.makefile(".case.yaml", good=case_file(ASSETS_OK))
    pytester.path.joinpath(f"{name}.case.yaml").write_bytes(text.encode())
    result = pytester.runpytest(*af_args)
    out = result.stdout.str()
    assert "INTERNALERROR" not in out and result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1, failed=1)
    assert f"{name}.case.yaml" in out


def test_8_repr_failure_never_raises_even_when_describing_fails(pytester: pytest.Pytester, af_args, monkeypatch) -> None:
    from pytest_auditflow.items import AuditCaseFile

    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no description")

    def boom(*args, **kwargs):
        raise Hostile()

    monkeypatch.setattr("pytest_auditflow.items.load_case_file", boom)
    pytester.makefile(".case.yaml", good=case_file(ASSETS_OK))
    result = pytester.runpytest_inprocess(*af_args)
    assert "INTERNALERROR" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERRUPTED  # not a typed error: a bug, a collection error as before
    assert AuditCaseFile.repr_failure.__doc__ and "Never raises" in AuditCaseFile.repr_failure.__doc__
