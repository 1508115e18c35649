"""The optional LLM judge: FinMR's rubric (``<data root>/finmr/judge_prompt.txt``) asked of a model.

The deterministic label (:mod:`auditflow.cases.labels`) stays authoritative for pass/fail; the
LLM judge exists to report how often the paper's LLM-as-judge scoring would agree with it. Its
calls go through the same cached model factory as the audit (role ``judge``, case id suffixed
``#judge``), so a warm cache replays the judge too.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from auditflow.agents.reports import AuditResult
from auditflow.cases.errors import ModelSpecError
from auditflow.cases.model import Expectation
from auditflow.rules.finding import dec_str

PROMPT_FILE = Path("finmr") / "judge_prompt.txt"
_LABEL = re.compile(r"\b([SECA])\b")


def load_judge_prompt(data_root: Path | None) -> str:
    """The FinMR judge prompt from the data root (it is data, not code, and not copied into the repo)."""
    if data_root is None or not (data_root / PROMPT_FILE).is_file():
        where = data_root / PROMPT_FILE if data_root else f"<data root>/{PROMPT_FILE}"
        raise ModelSpecError(f"the LLM judge needs the FinMR judge prompt at {where}; pass --auditflow-data-root "
                             "DIR with finmr/judge_prompt.txt, or drop --auditflow-judge-model.")
    return (data_root / PROMPT_FILE).read_text(encoding="utf-8")


def _answer(reported: Any, expected: Any) -> str:
    return json.dumps({"extracted_value": dec_str(reported), "calculated_value": dec_str(expected)})


def judge_prompt(template: str, expect: Expectation, result: AuditResult | None) -> str:
    """The rubric with true and predicted answers filled in (plain replace: the rubric contains braces)."""
    true = _answer(expect.reported_value, expect.expected_value)
    pred = (_answer(result.reported_value, result.expected_value) if result is not None and not result.structural_failure
            else json.dumps({"error": "no valid final report"}))
    return template.replace("{true_answer}", true).replace("{pred_answer}", pred)


def parse_label(text: str) -> str | None:
    """The first stand-alone S, E, C or A in the judge's answer, or None."""
    m = _LABEL.search(text.strip())
    return m.group(1) if m else None


def llm_label(model: Any, template: str, expect: Expectation, result: AuditResult | None) -> str | None:
    """Ask the judge model for the FinMR label of this case."""
    from langchain_core.messages import HumanMessage

    msg = model.invoke([HumanMessage(judge_prompt(template, expect, result))])
    content = msg.content if isinstance(msg.content, str) else " ".join(
        c.get("text", "") if isinstance(c, dict) else str(c) for c in msg.content)
    return parse_label(content)
