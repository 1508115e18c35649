"""Command-line options, their ini equivalents, and the validated :class:`Settings` built from them.

Every option has an ini key of the same name with ``_`` (``--auditflow-model`` ->
``auditflow_model``); the command line wins. Relative paths from the command line are relative to
the current directory, from the ini file to the rootdir. Invalid values are usage errors that say
which values are accepted.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from auditflow.agents.configs import CONFIGS
from auditflow.cases.errors import ModelSpecError
from auditflow.cases.models import POLICY, RECORD_MODES, check_model_spec
from auditflow.cases.settings import RunSettings
from auditflow.dataroot import ENV_VAR, data_root_or_none, resolve_data_root
from auditflow.errors import AuditflowError, DataRootError

DEFAULT_CACHE_DIR = ".auditflow-cache"
DEFAULT_SLOWEST = 5
DEFAULT_ALPHA = 0.05  # the baseline gate's significance level when the run has noise to tell apart

# (option, ini type, default, help)
_OPTIONS: tuple[tuple[str, str, object, str], ...] = (
    ("model", "string", POLICY, "model spec for the auditors, e.g. policy (deterministic, no LLM), "
                                "openai:gpt-4o, local:qwen2.5-coder-1.5b (default: policy)"),
    ("config", "string", "full", f"protocol configuration: {', '.join(CONFIGS)} (default: full)"),
    ("record-mode", "string", "none", "LLM cache record mode: none (replay only, the CI default), once, "
                                      "new_episodes, all (default: none)"),
    ("cache-dir", "string", DEFAULT_CACHE_DIR, f"LLM cache folder (default: <rootdir>/{DEFAULT_CACHE_DIR})"),
    ("data-root", "string", "", "data root with filings/, dqc/, finmr/ (default: $AUDITFLOW_DATA_ROOT, "
                                "then shared/data beside the rootdir or a parent of it)"),
    ("json", "string", "", "write per-case results and aggregates to this JSON file"),
    ("used-keys", "string", "", "write the LLM cache keys the cases used to this JSON file (for "
                                "auditflow cache prune DIR --used FILE)"),
    ("min-joint-acc", "string", "", "fail the session when Joint ACC is below X (a fraction 0-1 like 0.8, or a percentage like 80%%)"),
    ("baseline", "string", "", "results JSON of a reviewed run to compare with (see --auditflow-max-drop)"),
    ("max-drop", "string", "0", "largest allowed Joint ACC drop against the baseline (0.05 or 5%%; default 0)"),
    ("alpha", "string", "", "the baseline gate fails only when the drop is also significant: the paired "
                            "bootstrap's p-value below this (default 0.05 when there is noise to tell apart: "
                            "repeats or live model calls; a replay gates on the drop alone)"),
    ("repeats", "string", "1", "run each case K times (a repeat above 0 is recorded apart): the report shows each "
                               "case's pass rate and pass^K, and the baseline gate compares pass rates (default 1)"),
    ("judge-model", "string", "", "also label each case with this LLM using the FinMR judge rubric, and "
                                  "report its agreement with the deterministic labels"),
    ("slowest", "string", str(DEFAULT_SLOWEST), f"how many slowest cases to list (default {DEFAULT_SLOWEST})"),
    ("prompts", "string", "", "prompt profile: guided (small local models), plain (hosted models) or a YAML file "
                              "of your own (default: the model's own default)"),
    ("shuffle", "string", "", "a seed: every list in an observation (search hits, facts, members, children, "
                              "history) comes in a seeded permutation, to see whether a model picks by position"),
    ("concurrency", "string", "1", "cases in flight at once in each pytest process (threads; with xdist, per "
                                   "worker): for a model behind a server; results are the same whatever it is "
                                   "(default 1)"),
    ("subset", "string", "", "run only the stratified subset of N audit cases that auditflow eval's +subset=N row "
                             "runs over the same case files (the others are deselected; default: every case)"),
    ("price-input", "string", "", "price of a million prompt tokens (e.g. 2.50): live calls get a cost in the "
                                  "results and the report"),
    ("price-output", "string", "", "price of a million completion tokens (e.g. 10.00), with --auditflow-price-input"),
    ("html", "string", "", "write a self-contained HTML report to this file (summary, case list, each case's "
                           "evidence, transcripts, fusion and a drawing of the structure the rule used)"),
)


def add_options(parser: pytest.Parser) -> None:
    """All options under one ``auditflow`` group, each with its ini key."""
    group = parser.getgroup("auditflow", "AuditFlow audit cases (*.case.yaml)")
    group.addoption("--auditflow", action="store_true", default=None,
                    help="collect AuditFlow case files (*.case.yaml, or YAML with a top-level auditflow: key)")
    parser.addini("auditflow", "collect AuditFlow case files (as --auditflow)", type="bool", default=False)
    for name, kind, default, help_ in _OPTIONS:
        ini = "auditflow_" + name.replace("-", "_")
        extra = {"choices": RECORD_MODES} if name == "record-mode" else {}
        group.addoption(f"--auditflow-{name}", dest=ini, default=None, metavar=name.split("-")[-1].upper(),
                        help=help_, **extra)
        parser.addini(ini, help_.replace("%%", "%"), type=kind, default=str(default))
    group.addoption("--auditflow-update-expected", action="store_true", default=False,
                    help="rewrite each case's expect: from its actual result (review the diff, then commit)")


@dataclass(frozen=True)
class Settings:
    """Everything the plugin was asked to do, validated once per process."""

    enabled: bool
    run: RunSettings
    json_path: Path | None = None
    min_joint_acc: float | None = None
    baseline: Path | None = None
    max_drop: float = 0.0
    update_expected: bool = False
    slowest: int = DEFAULT_SLOWEST
    used_keys_path: Path | None = None
    html_path: Path | None = None
    concurrency: int = 1
    prices: tuple[float, float] | None = None  # per million prompt, completion tokens (ini auditflow_price_*)
    repeats: int = 1
    alpha: float | None = None  # given explicitly; else DEFAULT_ALPHA when the run has repeats or live calls
    subset: int | None = None  # --auditflow-subset N: keep eval's stratified subset of N cases (pytest_auditflow.subset)

    def cost(self, live: dict) -> float | None:
        """What a case's live calls cost at the given prices, or None when no price was given."""
        if self.prices is None:
            return None
        return round((live.get("prompt_tokens", 0) * self.prices[0]
                      + live.get("completion_tokens", 0) * self.prices[1]) / 1e6, 6)


def _value(config: pytest.Config, ini: str) -> tuple[str, bool]:
    """(value, from the command line?)."""
    cli = config.getoption(ini, default=None)
    return (str(cli), True) if cli is not None else (str(config.getini(ini) or ""), False)


def _path(config: pytest.Config, ini: str) -> Path | None:
    value, from_cli = _value(config, ini)
    if not value:
        return None
    p = Path(value).expanduser()
    base = Path(config.invocation_params.dir) if from_cli else config.rootpath
    return p if p.is_absolute() else base / p


def fraction(text: str, option: str) -> float:
    """``0.8`` or ``80%`` -> 0.8: a fraction from 0 to 1, or a percentage written with ``%``. Anything
    else (``80``, ``1.5``) is a usage error: is ``1.5`` 150 % or 1.5 %?"""
    t = text.strip()
    pct = t.endswith("%")
    try:
        x = float(t[:-1].strip() if pct else t)
    except ValueError:
        x = float("nan")
    if not (0 <= x <= (100 if pct else 1)):  # also refuses nan
        raise pytest.UsageError(f"{option} must be a fraction from 0 to 1 like 0.8, or a percentage with % like "
                                f"80%, got {text!r}")
    return x / 100 if pct else x


def _data_root(config: pytest.Config) -> Path | None:
    """The data root, or None when there is none (cases that need one are then skipped). One that exists
    but lacks a part the cases read is a usage error naming the parts (auditflow.cases.root_parts):
    run as it is, every case would fail as an "LLM cache miss" or a missing filing."""
    from auditflow.cases.root_parts import check_case_root

    explicit = _path(config, "auditflow_data_root")
    try:
        root = resolve_data_root(explicit) if explicit is not None else data_root_or_none(start=config.rootpath)
    except DataRootError as exc:
        raise pytest.UsageError(f"--auditflow-data-root: {exc}") from None
    how = ("--auditflow-data-root or ini auditflow_data_root" if explicit is not None
           else f"${ENV_VAR}" if os.environ.get(ENV_VAR) else "found beside the project folder")
    try:
        check_case_root(root, how=how, judge=bool(_value(config, "auditflow_judge_model")[0]))
    except DataRootError as exc:
        raise pytest.UsageError(f"AuditFlow: {exc}") from None
    return root


def _prompts(config: pytest.Config) -> str | None:
    """A built-in profile's name as given, a file relative to where it was given (see :func:`_path`)."""
    from auditflow.agents.profile import BUILTIN

    value = _value(config, "auditflow_prompts")[0]
    if not value or value in BUILTIN:
        return value or None
    return str(_path(config, "auditflow_prompts"))


def _seed(config: pytest.Config) -> int | None:
    value = _value(config, "auditflow_shuffle")[0].strip()
    if not value:
        return None
    if not value.isdigit():
        raise pytest.UsageError(f"--auditflow-shuffle must be a whole number (a seed), got {value!r}")
    return int(value)


def _choice(config: pytest.Config, ini: str, allowed, option: str) -> str:
    value = _value(config, ini)[0]
    if value not in allowed:
        raise pytest.UsageError(f"{option} {value!r} is not one of {', '.join(allowed)}")
    return value


def _check_models(config: pytest.Config, run: RunSettings) -> None:
    """The model specs, checked once per session before any case runs (on the controller: workers get
    the same options), so a wrong spec is one usage error instead of a failure per case. Left to the
    plugins when one implements ``pytest_auditflow_make_models`` (they may serve specs of their own)."""
    if hasattr(config, "workerinput") or config.pluginmanager.hook.pytest_auditflow_make_models.get_hookimpls():
        return
    try:
        check_model_spec(run.model, record_mode=run.record_mode, cache_dir=run.cache_dir)
        if run.judge_model:
            check_model_spec(run.judge_model, record_mode="all", cache_dir=None)  # the spec alone: judged apart
    except (ModelSpecError, AuditflowError) as exc:
        raise pytest.UsageError(f"--auditflow-model / ini auditflow_model: {exc}") from None


def _prices(config: pytest.Config) -> tuple[float, float] | None:
    """(prompt, completion) prices per million tokens, when either is given; a price must be a number >= 0."""
    given = [_value(config, f"auditflow_price_{kind}")[0].strip() for kind in ("input", "output")]
    if not any(given):
        return None
    out = []
    for kind, text in zip(("input", "output"), given):
        try:
            price = float(text or 0)
        except ValueError:
            price = -1.0
        if not price >= 0:  # also refuses nan
            raise pytest.UsageError(f"--auditflow-price-{kind} / ini auditflow_price_{kind} must be a price per million "
                                    f"tokens, a number like 2.50, got {text!r}")
        out.append(price)
    return out[0], out[1]


def _count(config: pytest.Config, name: str, what: str) -> int | None:
    """``--auditflow-<name>`` as a whole number of at least 1 (``what`` it counts, for the error), or None
    when not given."""
    ini = "auditflow_" + name.replace("-", "_")
    value = _value(config, ini)[0].strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise pytest.UsageError(f"--auditflow-{name} / ini {ini} must be a whole number of at least 1 ({what}), "
                                f"got {value!r}")
    return int(value)


def settings_from_config(config: pytest.Config) -> Settings:
    """Validated settings; plugin off unless ``--auditflow`` or ini ``auditflow = true``.

    :raises pytest.UsageError: an option value that cannot work, with the accepted values.
    """
    enabled = bool(config.getoption("auditflow") or config.getini("auditflow"))
    if not enabled:
        return Settings(False, RunSettings())
    run = RunSettings(
        model=_value(config, "auditflow_model")[0] or POLICY,
        config=_choice(config, "auditflow_config", list(CONFIGS), "--auditflow-config"),
        record_mode=_choice(config, "auditflow_record_mode", RECORD_MODES, "--auditflow-record-mode"),
        cache_dir=_path(config, "auditflow_cache_dir") or config.rootpath / DEFAULT_CACHE_DIR,
        data_root=_data_root(config),
        judge_model=_value(config, "auditflow_judge_model")[0] or None,
        prompts=_prompts(config), shuffle=_seed(config), rootdir=config.rootpath,
    )
    _check_models(config, run)
    try:
        run.profile()
    except AuditflowError as exc:
        raise pytest.UsageError(f"--auditflow-prompts / ini auditflow_prompts: {exc}") from None
    min_acc = _value(config, "auditflow_min_joint_acc")[0]
    baseline = _path(config, "auditflow_baseline")
    if baseline is not None and not baseline.is_file():
        raise pytest.UsageError(f"--auditflow-baseline {baseline} does not exist; write one from a reviewed run "
                                "with --auditflow-json PATH and commit it")
    slowest = _value(config, "auditflow_slowest")[0]
    if not slowest.isdigit():
        raise pytest.UsageError(f"--auditflow-slowest must be a whole number, got {slowest!r}")
    prices = _prices(config)
    repeats = _count(config, "repeats", "runs of each case") or 1
    alpha_text = _value(config, "auditflow_alpha")[0].strip()
    try:
        alpha = float(alpha_text) if alpha_text else None
    except ValueError:
        alpha = -1.0
    if alpha is not None and not 0 < alpha <= 1:
        raise pytest.UsageError(f"--auditflow-alpha / ini auditflow_alpha must be a significance level above 0 and at "
                                f"most 1, like 0.05, got {alpha_text!r}")
    concurrency = _count(config, "concurrency", "cases in flight at once") or 1
    return Settings(True, run, _path(config, "auditflow_json"),
                    fraction(min_acc, "--auditflow-min-joint-acc") if min_acc else None, baseline,
                    fraction(_value(config, "auditflow_max_drop")[0] or "0", "--auditflow-max-drop"),
                    bool(config.getoption("auditflow_update_expected")), int(slowest),
                    _path(config, "auditflow_used_keys"), html_path=_path(config, "auditflow_html"),
                    concurrency=concurrency, prices=prices, repeats=repeats, alpha=alpha,
                    subset=_count(config, "subset", "the cases of the stratified subset, as auditflow eval's "
                                                    "+subset=N"))
