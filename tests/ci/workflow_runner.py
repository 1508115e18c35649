"""Run a GitHub Actions job of ``ci/github/`` here, step by step, the way a runner would run its shell.

Only the ``run:`` steps are the templates' own code; a ``uses:`` step is GitHub's action (checkout,
setup-python, cache, upload-artifact, create-pull-request) and needs GitHub, so the test hands each one
to a function of its own that stands in for it (or checks what the action would take). An action the
test does not know fails the run, as does an expression (``${{ ... }}``) or an ``if:`` it cannot
evaluate: a template change that this runner would silently misread must change the test too.

A ``run:`` step gets the job's and the step's ``env:``, ``GITHUB_OUTPUT`` (read back into
``steps.<id>.outputs``), ``GITHUB_WORKSPACE`` and ``CI``, and runs as ``bash -e SCRIPT`` in the
repository, which is what GitHub does for a step without ``shell:`` (ci/README.md describes the jobs).
"""
from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@dataclass(frozen=True)
class StepResult:
    """What one step did: ``ran`` is False for a skipped step (``reason`` says why) and for a stand-in."""

    name: str
    ran: bool
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    reason: str = ""
    seconds: float = 0.0

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass
class Runner:
    """One job of one workflow file, run in ``repo`` with ``base_env`` (PATH already names the venv).

    ``actions`` maps an action's name without its version (``actions/cache/restore``) to a stand-in
    taking the step and the runner; ``skip`` maps a ``run:`` step's name to the reason it is not run.
    """

    workflow: Path
    repo: Path
    base_env: Mapping[str, str]
    actions: Mapping[str, Callable[[dict[str, Any], Runner], None]]
    skip: Mapping[str, str] = field(default_factory=dict)
    inputs: Mapping[str, str] = field(default_factory=dict)
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        doc = yaml.safe_load(self.workflow.read_text(encoding="utf-8"))
        (self.job,) = doc["jobs"].values()
        self.env = {k: self.expand(str(v), {}) for k, v in (self.job.get("env") or {}).items()}

    @property
    def steps(self) -> list[dict[str, Any]]:
        return self.job["steps"]

    def expand(self, text: str, env: Mapping[str, str]) -> str:
        """``text`` with the expressions the templates use replaced; any other one fails the test."""
        def value(match: re.Match[str]) -> str:
            expr = match.group(1)
            if expr == "github.workspace":
                return str(self.repo)
            head, _, rest = expr.partition(".")
            if head == "env" and rest in env:
                return env[rest]
            if head == "inputs" and rest in self.inputs:
                return self.inputs[rest]
            step, _, key = rest.partition(".outputs.")
            if head == "steps" and key and key in self.outputs.get(step, {}):
                return self.outputs[step][key]
            raise AssertionError(f"{self.workflow.name}: the test cannot evaluate ${{{{ {expr} }}}}")
        return EXPRESSION.sub(value, text)

    def with_inputs(self, step: dict[str, Any]) -> dict[str, str]:
        """A ``uses:`` step's ``with:`` inputs, expanded (for a stand-in to check)."""
        env = {**self.env}
        return {k: self.expand(str(v), env) for k, v in (step.get("with") or {}).items()}

    def run(self, until: str | None = None) -> list[StepResult]:
        """Every step in order (up to and including the one named ``until``); stops at the first failure."""
        results: list[StepResult] = []
        for index, step in enumerate(self.steps):
            name = step.get("name") or step.get("uses") or f"step {index + 1}"
            condition = step.get("if")
            if condition is not None and condition != "always()":
                raise AssertionError(f"{self.workflow.name}: the test cannot evaluate if: {condition}")
            if "uses" in step:
                action = step["uses"].split("@", 1)[0]
                if action not in self.actions:
                    raise AssertionError(f"{self.workflow.name}: no stand-in for the action {action}; add one")
                self.actions[action](step, self)
                results.append(StepResult(name, ran=False, reason=f"stand-in for {action}"))
            elif name in self.skip:
                results.append(StepResult(name, ran=False, reason=self.skip[name]))
            else:
                result = self._shell(step, name)
                results.append(result)
                if result.returncode != 0:
                    break
            if name == until:
                break
        return results

    def _shell(self, step: dict[str, Any], name: str) -> StepResult:
        workdir = self.repo.parent / "runner"  # beside the repository, as on a runner: not in its status
        workdir.mkdir(exist_ok=True)
        github_output = workdir / "output"
        github_output.write_text("", encoding="utf-8")
        env = {**self.base_env, **self.env}
        env.update({k: self.expand(str(v), env) for k, v in (step.get("env") or {}).items()})
        env.update(GITHUB_OUTPUT=str(github_output), GITHUB_WORKSPACE=str(self.repo), CI="true")
        script = workdir / "step.sh"
        script.write_text(self.expand(step["run"], env), encoding="utf-8")
        start = time.monotonic()
        proc = subprocess.run(["bash", "-e", str(script)], cwd=self.repo, env=env, capture_output=True,
                              text=True, timeout=900)
        seconds = time.monotonic() - start
        if "id" in step:
            pairs = (line.split("=", 1) for line in github_output.read_text(encoding="utf-8").splitlines() if "=" in line)
            self.outputs[step["id"]] = dict(pairs)
        return StepResult(name, ran=True, returncode=proc.returncode, stdout=proc.stdout, stderr=proc.stderr,
                          seconds=seconds)
