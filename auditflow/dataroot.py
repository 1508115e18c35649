"""Where AuditFlow finds its read-only resources (DQC lists, taxonomies, test filings).

The resources are large, licensed separately and shared between checkouts, so they are never
copied into the repository: every run locates a *data root* directory instead. The search order
lets a user override the location per run (``--data-root``), per shell (``AUDITFLOW_DATA_ROOT``),
and otherwise finds the shared folder next to the checkout or a per-user cache.
"""
from __future__ import annotations

import os
from pathlib import Path

from auditflow.errors import DataRootError

ENV_VAR = "AUDITFLOW_DATA_ROOT"
FLAG = "--data-root"


def repo_data_root() -> Path:
    """``../shared/data`` next to the checkout (this file is ``<repo>/auditflow/dataroot.py``)."""
    return Path(__file__).resolve().parents[2] / "shared" / "data"


def user_cache_data_root() -> Path:
    """The per-user fallback, for installs that are not next to a shared folder."""
    return Path("~/.cache/auditflow/data").expanduser()


def candidate_roots(explicit: str | Path | None = None) -> list[tuple[str, Path]]:
    """Every place looked at, in order, as (how it was chosen, path)."""
    found: list[tuple[str, Path]] = []
    if explicit is not None and str(explicit) != "":
        found.append((f"{FLAG} argument", Path(explicit).expanduser()))
    env = os.environ.get(ENV_VAR, "")
    if env:
        found.append((f"environment variable {ENV_VAR}", Path(env).expanduser()))
    found.append(("shared folder next to the checkout", repo_data_root()))
    found.append(("user cache", user_cache_data_root()))
    return found


def _how_to_fix() -> str:
    return (
        f"Pass the folder that contains dqc/ (and taxonomy/) with {FLAG} PATH, or set {ENV_VAR}=PATH, "
        f"or place the data at {repo_data_root()} or {user_cache_data_root()}."
    )


def resolve_data_root(explicit: str | Path | None = None) -> Path:
    """The data root to use.

    Order: the explicit argument, ``AUDITFLOW_DATA_ROOT``, ``<checkout>/../shared/data``,
    ``~/.cache/auditflow/data``. An explicit argument or environment variable that names a missing
    folder is an error rather than a silent fall-through: the user asked for that folder, and quietly
    using another one would make results depend on which data happened to be lying around.

    :raises DataRootError: naming every place looked at and how to fix it.
    """
    candidates = candidate_roots(explicit)
    for how, path in candidates:
        if path.is_dir():
            return path.resolve()
        if how.startswith(FLAG) or how.startswith("environment"):
            raise DataRootError(
                f"the data root given by the {how} does not exist or is not a folder: {path}. " + _how_to_fix()
            )
    looked = "; ".join(f"{how}: {path}" for how, path in candidates)
    raise DataRootError(f"no AuditFlow data root found (looked at {looked}). " + _how_to_fix())


def data_root_or_none(explicit: str | Path | None = None) -> Path | None:
    """Like :func:`resolve_data_root`, for callers that can work without resources."""
    try:
        return resolve_data_root(explicit)
    except DataRootError:
        return None
