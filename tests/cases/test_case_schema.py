"""The case schema: the published JSON agrees with the dict, errors carry line and field, starter cases load."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditflow.cases import CASE_FILE_SCHEMA, CaseFileError, load_case_file, validate_case
from auditflow.cases.loader import is_case_file
from auditflow.cases.schema import _check_keywords, schema_json
from auditflow.cases.yamlsrc import parse_yaml

REPO = Path(__file__).resolve().parents[2]
PUBLISHED = REPO / "auditflow" / "cases" / "case-schema-v2.json"


def test_published_json_schema_is_generated_from_the_dict() -> None:
    assert PUBLISHED.read_text() == schema_json(), "regenerate: python -m auditflow.cases > " + str(PUBLISHED)
    assert json.loads(PUBLISHED.read_text()) == CASE_FILE_SCHEMA


def test_the_validator_refuses_keywords_it_does_not_implement() -> None:
    with pytest.raises(AssertionError, match="'format'"):
        _check_keywords({"type": "object", "properties": {"x": {"type": "string", "format": "date"}}})


def test_starter_cases_load_with_unique_ids() -> None:
    files = sorted((REPO / "cases").glob("*.case.yaml"))
    assert len(files) >= 2
    cases = [c for f in files for c in load_case_file(f)]
    assert 8 <= len(cases) <= 12
    assert len({c.id for c in cases}) == len(cases)
    assert {c.rule for c in cases} == {"0015", "0117", "0126"}
    assert {c.expect.decision for c in cases} == {"violation", "consistent"}  # VAcc needs both


def test_validate_case_names_line_and_field() -> None:
    text = "id: x\nquery:\n  concept: us-gaap:Assets\n  period: 2024-13\nexpect:\n  decision: maybe\n"
    doc = parse_yaml(text, file="c.yaml")
    errors = validate_case(doc.data, file="c.yaml", line_map=doc.line_map)
    assert [(e.line, e.field) for e in errors] == [(4, "query.period"), (6, "expect.decision")]
    assert str(errors[1]) == "c.yaml:6: expect.decision: must be one of consistent, violation, unable_to_verify, got 'maybe'"


def test_dates_stay_strings_and_defaults_merge(tmp_path: Path) -> None:
    f = tmp_path / "x.case.yaml"
    f.write_text("auditflow: 1\ndefaults: {filing: somewhere, tags: [a]}\ncases:\n"
                 "  - id: one\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n"
                 "    expect: {decision: consistent}\n")
    (case,) = load_case_file(f)
    assert (case.query.period, case.filing, case.tags, case.line) == ("2024-12-31", "somewhere", ("a",), 4)
    assert case.expect.checked == frozenset({"decision"})  # values not stated are not compared


def test_missing_filing_is_reported_on_the_case(tmp_path: Path) -> None:
    f = tmp_path / "x.case.yaml"
    f.write_text("auditflow: 1\ncases:\n  - id: one\n    query: {concept: us-gaap:Assets, period: 2024-12-31}\n"
                 "    expect: {decision: consistent}\n")
    with pytest.raises(CaseFileError, match=r"x.case.yaml:3: cases\[0\]: missing required field 'filing'"):
        load_case_file(f, display="x.case.yaml")


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("a.case.yaml", "anything", True),
    ("a.case.yml", "anything", True),
    ("suite.yaml", "# cases\nauditflow: 1\ncases: []\n", True),
    ("ci.yaml", "jobs:\n  auditflow: {}\n", False),
    ("notes.txt", "auditflow: 1\n", False),
])
def test_which_files_are_case_files(tmp_path: Path, name: str, text: str, expected: bool) -> None:
    (tmp_path / name).write_text(text)
    assert is_case_file(tmp_path / name) is expected
