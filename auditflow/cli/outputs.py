"""Output paths a command will write (``--html``, ``--xlsx``, ``--graph``, ``--out`` ...), checked before
any work.

A report path that names a folder, or sits under a file, used to surface as an ``IsADirectoryError``
after minutes of checking, printed as an "internal error" (issue 44). These checks run first and give an
:class:`~auditflow.errors.InputError` (exit 2) naming the option, the path and what to give instead
(README, "Commands"; docs/reliability.md, "The rule for the command line").
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from auditflow.errors import InputError


@dataclass(frozen=True)
class OutputOption:
    """One option of a command that names something the command writes."""

    dest: str  # the argparse attribute
    option: str  # as the user typed it
    kind: str  # "file", "folder", or "file-or-folder" (a .yaml/.yml name is a file, anything else a folder)
    example: str  # a file name to suggest inside a folder the user gave by mistake


# command (and subcommand) -> its output options
OUTPUTS: dict[str, tuple[OutputOption, ...]] = {
    "check": (OutputOption("html", "--html", "file", "report.html"),
              OutputOption("xlsx", "--xlsx", "file", "workpaper.xlsx"),
              OutputOption("out", "--out", "file", "results.jsonl")),  # --batch's results file
    "inspect": (OutputOption("graph", "--graph", "file", "filing.graphml"),),
    "eval": (OutputOption("out", "--out", "folder", ""),
             OutputOption("html", "--html", "file", "report.html"),
             OutputOption("used_keys", "--used-keys", "file", "used-keys.json")),
    "cases generate": (OutputOption("out", "--out", "file-or-folder", "cases.case.yaml"),),
}


def check_outputs(args) -> None:
    """Check every output path ``args`` names for its command.

    :raises InputError: on the first one that cannot be written, naming it and what to do.
    """
    command = args.command + (f" {args.cases_command}" if getattr(args, "cases_command", None) else "")
    for opt in OUTPUTS.get(command, ()):
        value = getattr(args, opt.dest, None)
        if not value:
            continue
        kind = opt.kind
        if kind == "file-or-folder":
            kind = "file" if Path(value).suffix in (".yaml", ".yml") else "folder"  # as cases.emit decides
        try:
            if kind == "file":
                check_output_file(value, opt.option, example=opt.example)
            else:
                check_output_folder(value, opt.option, or_file=opt.example if opt.kind == "file-or-folder" else "")
        except OSError as exc:  # a folder on the way that cannot be looked into, a name too long...
            raise InputError(f"{opt.option}: cannot use this path: {exc.strerror or exc}: give another path",
                             path=str(value)) from None


def check_output_file(value: str | os.PathLike, option: str, *, example: str = "report") -> Path:
    """``value`` can be created or replaced as a file: it is not a folder, and the nearest existing
    folder above it is a writable folder (missing folders between are created by the writers)."""
    path = Path(value).expanduser()
    if path.is_dir():
        raise InputError(f"{option} names a folder, and it writes one file: give a file name, "
                         f"e.g. {option} {path / example}", path=str(value))
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"{option}: the file exists and is not writable: make it writable or give another "
                         "path", path=str(value))
    _check_parent(path, value, option)
    return path


def check_output_folder(value: str | os.PathLike, option: str, *, or_file: str = "") -> Path:
    """``value`` is a writable folder, or can be created as one. ``or_file``: an example file name
    when the option also takes one (``cases generate --out x.case.yaml``)."""
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        also = f", or a file name ending in .yaml (e.g. {option} {or_file})" if or_file else ""
        raise InputError(f"{option} names an existing file, and it writes a folder of files: give a folder "
                         f"(it is created if missing){also}", path=str(value))
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise InputError(f"{option}: the folder is not writable: make it writable or give another one",
                             path=str(value))
        return path
    _check_parent(path, value, option)
    return path


def _check_parent(path: Path, value, option: str) -> None:
    """The nearest existing ancestor of ``path`` must be a writable folder (a file there means the
    path runs through a file, which no ``mkdir`` can fix)."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"{option}: {parent} is a file, not a folder, so nothing can be written under it: "
                         "give a path in a folder", path=str(value))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{option}: the folder {parent} is not writable: make it writable or give a path "
                         "in another folder", path=str(value))


def write_failed(exc: OSError, value, option: str) -> InputError:
    """An output that passed :func:`check_outputs` and still failed to write (a full disk, a folder
    removed meanwhile): the same typed error, with the system's reason."""
    return InputError(f"{option}: cannot write it: {exc.strerror or exc}: check the path and free space, "
                      "or give another path", path=str(value))
