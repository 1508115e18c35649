"""Where AuditFlow finds its read-only resources (DQC lists, taxonomies, test filings).

The resources are large, licensed separately and shared between checkouts, so they are never
copied into the repository: every run locates a *data root* directory instead. The search order
lets a user override the location per run (``--data-root``), per shell (``AUDITFLOW_DATA_ROOT``),
and otherwise finds the shared folder next to the checkout (searched upwards from the project folder
and the current folder, so an installed copy finds it as well as an editable one) or a per-user cache.
"""
from __future__ import annotations

import os
from pathlib import Path

from auditflow.errors import DataRootError

ENV_VAR = "AUDITFLOW_DATA_ROOT"
FLAG = "--data-root"


SHARED = Path("shared") / "data"


def repo_data_root() -> Path:
    """``../shared/data`` next to the checkout this module was imported from (an editable install:
    this file is ``<repo>/auditflow/dataroot.py``). After ``pip install .`` the module lives in
    site-packages and this path leads nowhere, hence :func:`shared_data_beside`."""
    return Path(__file__).resolve().parents[2] / SHARED


def shared_data_beside(start: str | Path | None = None) -> Path:
    """The nearest ``shared/data`` beside ``start`` (default: the current folder) or beside one of its
    parents, i.e. the first existing ``<folder>/../shared/data`` going up; if none exists, the one
    beside ``start`` itself (so messages name where it was expected).

    This is how a checkout finds the data root whatever the install: ``pytest`` passes its rootdir,
    the command line the current folder, both inside the checkout."""
    here = Path(start if start is not None else Path.cwd()).expanduser().resolve()
    for folder in (here, *here.parents):
        candidate = folder.parent / SHARED
        if candidate.is_dir():
            return candidate
    return here.parent / SHARED


def user_cache_data_root() -> Path:
    """The per-user fallback, for installs that are not next to a shared folder."""
    return Path("~/.cache/auditflow/data").expanduser()


def candidate_roots(explicit: str | Path | None = None, *, start: str | Path | None = None) -> list[tuple[str, Path]]:
    """Every place looked at, in order, as (how it was chosen, path). ``start`` is the project folder
    (pytest's rootdir); the current folder is searched after it."""
    found: list[tuple[str, Path]] = []
    if explicit is not None and str(explicit) != "":
        found.append((f"{FLAG} argument", Path(explicit).expanduser()))
    env = os.environ.get(ENV_VAR, "")
    if env:
        found.append((f"environment variable {ENV_VAR}", Path(env).expanduser()))
    starts = [Path(start)] if start is not None else []
    starts.append(Path.cwd())
    for s in starts:
        found.append((f"shared/data beside {s} or a parent folder", shared_data_beside(s)))
    found.append(("shared folder next to the installed package's checkout", repo_data_root()))
    unique: dict[Path, tuple[str, Path]] = {}
    for how, path in found:
        unique.setdefault(path, (how, path))
    return list(unique.values()) + [("user cache", user_cache_data_root())]


def _how_to_fix() -> str:
    return (
        f"Pass the folder that contains dqc/ (and taxonomy/) with {FLAG} PATH, or set {ENV_VAR}=PATH, "
        f"or place the data at ../shared/data beside the project folder, or at {user_cache_data_root()}."
    )


def resolve_data_root(explicit: str | Path | None = None, *, start: str | Path | None = None) -> Path:
    """The data root to use.

    Order: the explicit argument, ``AUDITFLOW_DATA_ROOT``, ``shared/data`` beside ``start`` (pytest's
    rootdir) or a parent, the same beside the current folder, ``../shared/data`` next to the checkout the
    package was imported from (editable installs), ``~/.cache/auditflow/data``. An explicit argument or environment variable that names a missing
    folder is an error rather than a silent fall-through: the user asked for that folder, and quietly
    using another one would make results depend on which data happened to be lying around.

    :raises DataRootError: naming every place looked at and how to fix it.
    """
    candidates = candidate_roots(explicit, start=start)
    for how, path in candidates:
        if path.is_dir():
            return path.resolve()
        if how.startswith(FLAG) or how.startswith("environment"):
            raise DataRootError(
                f"the data root given by the {how} does not exist or is not a folder: {path}. " + _how_to_fix()
            )
    looked = "; ".join(f"{how}: {path}" for how, path in candidates)
    raise DataRootError(f"no AuditFlow data root found (looked at {looked}). " + _how_to_fix())


def data_root_or_none(explicit: str | Path | None = None, *, start: str | Path | None = None) -> Path | None:
    """Like :func:`resolve_data_root`, for callers that can work without resources."""
    try:
        return resolve_data_root(explicit, start=start)
    except DataRootError:
        return None


def chosen_data_root(explicit: str | Path | None = None) -> Path | None:
    """The data root a command uses: one named (flag or ``$AUDITFLOW_DATA_ROOT``) must exist; without
    one, the defaults, and None when none of them does."""
    return resolve_data_root(explicit) if explicit or os.environ.get(ENV_VAR) else data_root_or_none()
