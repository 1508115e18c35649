"""PNG charts: Joint ACC per DQC rule family by configuration, and the FinMR label breakdown.

matplotlib is an optional extra (``pip install 'pytest-auditflow[charts]'``): a plotting stack is a large
dependency for a command most runs of which only need the tables. Without it, :func:`write_charts`
raises :class:`ChartsUnavailable` with that hint, and the caller skips the charts and says so. The
object API (``Figure`` + the Agg canvas) is used instead of ``pyplot``: no global figure state, no
GUI backend, nothing that depends on the user's display. The PNGs carry no software-version
metadata, and are drawn from the report alone.
"""
from __future__ import annotations

from pathlib import Path

from auditflow.errors import AuditflowError
from auditflow.eval.markdown import CHARTS, family
from auditflow.eval.report import EvalReport

LABEL_COLOURS = {"A": "#4c9a2a", "S": "#7f7f7f", "E": "#d62728", "C": "#ff7f0e"}
LABEL_NAMES = {"A": "A all right", "S": "S no valid output", "E": "E reported wrong", "C": "C expected wrong"}
DPI = 120


class ChartsUnavailable(AuditflowError):
    """matplotlib is not installed."""


def _figure():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ChartsUnavailable("charts skipped: matplotlib is not installed; pip install 'pytest-auditflow[charts]' "
                                "(or matplotlib) to get the PNG charts") from None
    fig = Figure(figsize=(9, 4.8), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, format="png", metadata={"Software": None})


def per_rule_chart(report: EvalReport, path: Path) -> None:
    """Grouped bars: one group per rule family that has cases (and all cases), one bar per configuration."""
    fig = _figure()
    ax = fig.add_subplot()
    families = list(dict.fromkeys(f for m in report.metrics.values() for f in m.families() if f in m.by_rule))
    groups = [*families, "all"]
    width = 0.8 / max(1, len(report.configs))
    for i, c in enumerate(report.configs):
        m = report.metrics[c.name]
        values = [100 * (m.rule_acc(f) or 0.0) for f in families] + [100 * (m.joint_acc or 0.0)]
        bars = ax.bar([g + i * width - 0.4 + width / 2 for g in range(len(groups))], values, width, label=c.name)
        ax.bar_label(bars, fmt="%.0f", fontsize="x-small", padding=1)
    ax.set_xticks(range(len(groups)), [family(g) if g != "all" else "all cases" for g in groups])
    ax.set_ylim(0, 110)
    ax.set_ylabel("Joint ACC (%)")
    ax.set_title("Joint ACC by DQC rule family")
    ax.legend(fontsize="small", ncols=min(4, len(report.configs)), loc="lower center", bbox_to_anchor=(0.5, -0.32))
    ax.grid(axis="y", alpha=0.3)
    _save(fig, path)


def error_types_chart(report: EvalReport, path: Path) -> None:
    """Stacked horizontal bars: the share of A, S, E and C labels of each configuration."""
    fig = _figure()
    ax = fig.add_subplot()
    names = [c.name for c in report.configs][::-1]
    left = [0.0] * len(names)
    for label in "ASEC":
        shares = []
        for name in names:
            t = report.metrics[name].total
            shares.append(100 * t.labels[label] / t.n if t.n else 0.0)
        ax.barh(names, shares, left=left, color=LABEL_COLOURS[label], label=LABEL_NAMES[label])
        left = [a + b for a, b in zip(left, shares)]
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of cases (%)")
    ax.set_title("FinMR labels by configuration")
    ax.legend(fontsize="small", ncols=4, loc="lower center", bbox_to_anchor=(0.5, -0.3))
    _save(fig, path)


def write_charts(report: EvalReport, out: Path) -> list[Path]:
    """Both charts into ``out``, named as ``results.md`` links them.

    :raises ChartsUnavailable: matplotlib is not installed.
    """
    (rule_name, _), (types_name, _) = CHARTS
    paths = [out / rule_name, out / types_name]
    per_rule_chart(report, paths[0])
    error_types_chart(report, paths[1])
    return paths
