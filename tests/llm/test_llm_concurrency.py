"""Several audit cases at once: input order kept, at most N in flight, errors captured per case,
and concurrent cases sharing one in-process model still call it one at a time."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from pydantic import ConfigDict

from auditflow.agents.audit import run_audit
from auditflow.env.query import AuditQuery
from auditflow.graphs.environment import build_environment
from auditflow.llm.cache import LLMCache
from auditflow.llm.concurrency import arun_cases, results_or_raise, run_cases
from auditflow.llm.factory import IN_PROCESS_LOCK, RoleModels
from auditflow.llm.stats import CacheStats
from auditflow.llm.toolcalls import ToolCallingAdapter, key_material
from llm_fakes import TextPolicyModel

SAMPLE = Path(__file__).resolve().parents[2] / "auditflow" / "samples" / "acme-10k-2024" / "xml"


class Gauge:
    """Counts how many calls are inside at once."""

    def __init__(self):
        self.lock, self.now, self.peak = threading.Lock(), 0, 0

    def __enter__(self):
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)

    def __exit__(self, *exc):
        with self.lock:
            self.now -= 1


def test_results_in_input_order_with_errors_captured():
    def work(i: int) -> int:
        time.sleep(0.02 * (5 - i % 5))  # later cases finish first
        if i == 3:
            raise ValueError("case 3 failed")
        return i * i

    out = run_cases(range(10), work, max_concurrency=4)
    assert [o.case for o in out] == list(range(10))
    assert [o.result for o in out if o.ok] == [i * i for i in range(10) if i != 3]
    assert isinstance(out[3].error, ValueError) and not out[3].ok
    with pytest.raises(ValueError, match="case 3"):
        results_or_raise(out)


@pytest.mark.parametrize("limit, expected", [(1, 1), (3, 3), (8, 8)])
def test_at_most_max_concurrency_cases_in_flight(limit, expected):
    gauge = Gauge()

    def work(i):
        with gauge:
            time.sleep(0.05)
        return i

    run_cases(range(16), work, max_concurrency=limit)
    assert gauge.peak == expected  # 8 really run at once: not capped by the default pool's CPU count


def test_inside_an_event_loop_use_the_async_form():
    import asyncio

    async def main():
        with pytest.raises(Exception, match="await arun_cases"):
            run_cases([1], lambda x: x)
        return await arun_cases([1, 2], lambda x: -x)

    assert [o.result for o in asyncio.run(main())] == [-1, -2]
    with pytest.raises(ValueError):
        run_cases([1], lambda x: x, max_concurrency=0)


class SerialCheckingModel(TextPolicyModel):
    """Fails if two calls overlap: the in-process model must be serialised."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    gauge: Gauge

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        with self.gauge:
            assert self.gauge.now == 1, "two calls inside the in-process model at once"
            time.sleep(0.002)
            return super()._generate(messages, stop, run_manager, **kwargs)


def test_concurrent_audits_share_one_serialised_model_and_one_cache(data_root, tmp_path):
    env = build_environment(SAMPLE)
    gauge = Gauge()
    model = ToolCallingAdapter(inner=SerialCheckingModel(gauge=gauge), call_lock=IN_PROCESS_LOCK)
    queries = [AuditQuery("acme", c, p, case_id=f"case-{i}") for i, (c, p) in enumerate([
        ("us-gaap:AccountsReceivableNetCurrent", "2024-12-31"), ("us-gaap:Assets", "2024-12-31"),
        ("us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax", "2024-01-01..2024-12-31"),
        ("us-gaap:NetIncomeLoss", "2024-01-01..2024-12-31")] * 2)]
    stats = CacheStats()

    def audit(q):
        models = RoleModels("local:test", lambda: model, LLMCache(tmp_path, "new_episodes", case_id=q.case_id, stats=stats),
                            key_material)
        return run_audit(env, q, models=models, data_root=data_root)

    out = run_cases(queries, audit, max_concurrency=8)
    results = results_or_raise(out)
    assert gauge.peak == 1 and stats.writes > 0
    # the same query in two cases gives the same artifact, apart from the case id it carries
    for a, b in zip(results[:4], results[4:]):
        assert a.decision == b.decision and a.transcripts == b.transcripts
