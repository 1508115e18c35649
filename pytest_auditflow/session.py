"""Per-process plugin state, kept in ``config.stash`` (no module globals, no ``config._x`` attributes).

One :class:`AuditflowSession` exists in every process (the controller and each xdist worker): it
holds the validated settings and runs cases, building models through the
``pytest_auditflow_make_models`` hook first and AuditFlow's own factory otherwise.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from auditflow.cases.model import AuditCase
from auditflow.cases.models import POLICY, make_judge, make_models
from pytest_auditflow.options import Settings

if TYPE_CHECKING:
    from auditflow.cases.runner import CaseOutcome

PROP = "auditflow"


@dataclass
class AuditflowSession:
    config: pytest.Config
    settings: Settings
    _judge_template: str | None = field(default=None, repr=False)
    _inflight: Any = field(default=None, repr=False)  # pytest_auditflow.inflight.InFlight, when N > 1

    def make(self, spec: str, repeat: int = 0, **kwargs: Any) -> Any:
        """A model factory for ``spec``: a plugin's (hook) if one answers, else AuditFlow's own."""
        found = self.config.hook.pytest_auditflow_make_models(config=self.config, spec=spec, repeat=repeat, **kwargs)
        return found if found is not None else make_models(spec, repeat=repeat, **kwargs)

    def make_judge(self, spec: str, repeat: int = 0, **kwargs: Any) -> Any:
        """The LLM judge's chat model: a plugin's factory (role ``judge``) if one answers, else AuditFlow's
        (a repeat's judge is told apart by its case id: it judges that repeat's result)."""
        found = self.config.hook.pytest_auditflow_make_models(config=self.config, spec=spec, repeat=repeat, **kwargs)
        return found("judge") if found is not None else make_judge(spec, **kwargs)

    def judge_template(self) -> str | None:
        """The FinMR rubric, read once, when the LLM judge is on."""
        if self.settings.run.judge_model and self._judge_template is None:
            from auditflow.cases.judge_llm import load_judge_prompt

            self._judge_template = load_judge_prompt(self.settings.run.data_root)
        return self._judge_template

    def missing_requirement(self, case: AuditCase) -> str | None:
        """Why the case cannot run here (a skip reason), or None."""
        if "data_root" in case.requires and self.settings.run.data_root is None:
            return ("needs the AuditFlow data root (real filings, DQC lists), none found: put it at ../shared/data "
                    "beside the project, set AUDITFLOW_DATA_ROOT or pass --auditflow-data-root=DIR")
        return None

    def run(self, case: AuditCase) -> CaseOutcome:
        from auditflow.cases.runner import run_case  # the agent stack loads only when a case runs

        return run_case(case, self.settings.run, make=self.make, make_judge_model=self.make_judge,
                        judge_template=self.judge_template())

    def run_repeats(self, case: AuditCase) -> list[CaseOutcome]:
        """The case run ``--auditflow-repeats`` times (once by default). Repeat 0 is the plain run, with
        the cache keys it always had; repeat r > 0 has ``r`` in its keys and ``#repeat<r>`` after its case
        id, so each repeat is recorded, replayed and (record mode once) decided apart."""
        outcomes = [self.run(case)]
        if self.settings.repeats > 1:
            from auditflow.cases.runner import run_case

            for r in range(1, self.settings.repeats):
                def make(spec: str, *, case_id: str | None = None, _r: int = r, **kw: Any) -> Any:
                    return self.make(spec, case_id=f"{case_id}#repeat{_r}", repeat=_r, **kw)

                def make_judge(spec: str, *, case_id: str | None = None, _r: int = r, **kw: Any) -> Any:
                    return self.make_judge(spec, case_id=f"{case_id}#repeat{_r}", repeat=_r, **kw)

                outcomes.append(run_case(case, self.settings.run, make=make, make_judge_model=make_judge,
                                         judge_template=self.judge_template()))
        return outcomes

    def run_item(self, item: pytest.Item) -> list[CaseOutcome]:
        """The item's case runs (one per repeat), here (concurrency 1) or in the in-flight pool with the
        items that follow it (``--auditflow-concurrency N``, :mod:`pytest_auditflow.inflight`)."""
        if self.settings.concurrency <= 1:
            return self.run_repeats(item.case)  # type: ignore[attr-defined]
        from pytest_auditflow.inflight import InFlight, upcoming_items

        if self._inflight is None:
            self.judge_template()  # read once here, not by the case threads at the same time
            self._inflight = InFlight(self.settings.concurrency, self.run_repeats)
        return self._inflight.outcome(item, upcoming_items(item))

    def close(self) -> None:
        if self._inflight is not None:
            self._inflight.close()

    def display_path(self, path: Path) -> str:
        """A case file as shown in messages and results: relative to the rootdir when inside it."""
        try:
            return Path(path).resolve().relative_to(self.config.rootpath.resolve()).as_posix()
        except ValueError:
            return str(path)


SESSION_KEY = pytest.StashKey[AuditflowSession]()


def model_note(run: Any) -> str:
    """What the model setting means for this run, for the header and the report: ``policy`` is no LLM;
    a model spec in record mode ``none`` only replays the recorded calls (never calls the model)."""
    if run.model == POLICY:
        return "deterministic policy, no LLM"
    if run.record_mode == "none":
        return "replaying recorded LLM calls"
    return "calling the model for calls not recorded" if run.record_mode != "all" else "calling the model for every call"
