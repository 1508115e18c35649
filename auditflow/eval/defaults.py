"""The settings ``pytest --auditflow`` would use here, so ``auditflow eval`` replays what pytest recorded.

The plugin reads its defaults from the pytest ini file (``auditflow_model``, ``auditflow_cache_dir``,
``auditflow_data_root``) and puts the LLM cache at ``<rootdir>/.auditflow-cache``, where the rootdir
is the folder of the ini file pytest found. A cache entry's key holds the model spec, so an eval
that defaulted to another model or folder would miss every recorded call. This module finds the
same ini file the way pytest does (without importing pytest, which is only a test dependency):
from the common ancestor of the given paths upwards, the first ``pytest.ini``, ``.pytest.ini``,
``pyproject.toml`` with a ``[tool.pytest.ini_options]`` (or pytest 9's ``[tool.pytest]``) table,
``tox.ini`` with ``[pytest]`` or ``setup.cfg`` with ``[tool:pytest]``. Options given in ``addopts``
are not read: set the ini keys, or pass the options to ``auditflow eval``.
"""
from __future__ import annotations

import configparser
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from auditflow.cases.models import POLICY
from auditflow.dataroot import data_root_or_none, resolve_data_root
from auditflow.errors import AuditflowError, DataRootError

DEFAULT_CACHE_DIR = ".auditflow-cache"  # pytest_auditflow.options.DEFAULT_CACHE_DIR (a test keeps them equal)
INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
INI_PREFIX = "auditflow_"


@dataclass(frozen=True)
class ProjectDefaults:
    """The pytest rootdir, the ini file found there (if any) and its ``auditflow_*`` values."""

    rootdir: Path
    inifile: Path | None = None
    values: Mapping[str, str] = field(default_factory=dict)

    def model(self, given: str | None) -> str:
        """``--model``, else ini ``auditflow_model``, else ``policy`` (the plugin's default)."""
        return given or self.values.get("auditflow_model") or POLICY

    def cache_dir(self, given: str | None) -> Path:
        """``--cache-dir`` (relative to the current folder), else the ini's (relative to the rootdir),
        else ``<rootdir>/.auditflow-cache``: where the plugin records."""
        if given:
            return Path(given).expanduser().resolve()
        return self._from_root(self.values.get("auditflow_cache_dir") or DEFAULT_CACHE_DIR)

    def data_root(self, given: str | None) -> Path | None:
        """``--data-root``, else the ini's, else ``$AUDITFLOW_DATA_ROOT`` and the usual places (or None).

        :raises AuditflowError: a data root that was named explicitly does not exist.
        """
        explicit = Path(given).expanduser().resolve() if given else None
        if explicit is None and self.values.get("auditflow_data_root"):
            explicit = self._from_root(self.values["auditflow_data_root"])
        try:
            return resolve_data_root(explicit) if explicit is not None else data_root_or_none(start=self.rootdir)
        except DataRootError as exc:
            raise AuditflowError(f"--data-root: {exc}") from None

    def _from_root(self, value: str) -> Path:
        p = Path(value).expanduser()
        return (p if p.is_absolute() else self.rootdir / p).resolve()

    def display(self, path: Path) -> str:
        """``path`` as the plugin names it: relative to the rootdir (POSIX) when inside it."""
        try:
            return Path(path).resolve().relative_to(self.rootdir.resolve()).as_posix() or "."
        except ValueError:
            return str(path)


def common_ancestor(paths: Iterable[Path]) -> Path | None:
    resolved = [Path(p).resolve() for p in paths if Path(p).exists()]
    if not resolved:
        return None
    dirs = [p if p.is_dir() else p.parent for p in resolved]
    return Path(os.path.commonpath([str(d) for d in dirs]))


def find_project(paths: Iterable[Path], *, cwd: Path | None = None) -> ProjectDefaults:
    """The ini file pytest would use for ``paths`` (searched upwards from their common ancestor)."""
    here = (cwd or Path.cwd()).resolve()
    start = common_ancestor(paths) or here
    for folder in (start, *start.parents):
        for name in INI_FILES:
            candidate = folder / name
            if candidate.is_file():
                values = read_ini(candidate)
                if values is not None:
                    return ProjectDefaults(folder, candidate, values)
    return ProjectDefaults(here)


def read_ini(path: Path) -> dict[str, str] | None:
    """The ``auditflow_*`` keys of a pytest ini file, or None when the file holds no pytest section.

    :raises AuditflowError: the file does not parse (pytest would refuse it too).
    """
    try:
        if path.name == "pyproject.toml":
            tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("pytest")
            if not isinstance(tool, dict):
                return None
            table = tool.get("ini_options", tool)
            return {k: _text(v) for k, v in table.items() if k.startswith(INI_PREFIX)}
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, ValueError, configparser.Error) as exc:
        raise AuditflowError(f"cannot read the pytest configuration {path}: {exc}") from None
    section = "tool:pytest" if path.name == "setup.cfg" else "pytest"
    if not parser.has_section(section):
        return {} if path.name in ("pytest.ini", ".pytest.ini") else None
    return {k: v for k, v in parser.items(section) if k.startswith(INI_PREFIX)}


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
