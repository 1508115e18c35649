"""Output paths (``--html``, ``--xlsx``, ``--graph``, ``--out``, ``--used-keys``) that cannot be written
are one typed error, exit 2, before any work (issue 44, item 7): never an "internal error" after the run.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from auditflow.cli.main import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "auditflow" / "samples" / "acme-10k-2024" / "xml"


def _run(argv: list[str], capsys) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def _refused(code: int, err: str, path: Path) -> None:
    assert code == 2, err
    assert "internal error" not in err and "Traceback" not in err
    assert err.startswith(f"auditflow: error: {path}: ") and err.count("\n") == 1, err


# (argv before the path, what the error says to do); each command's other arguments need not be valid:
# the path is refused before the command reads anything
AT_A_FOLDER = [
    (["check", str(SAMPLE), "--no-taxonomy", "--html"], "give a file name, e.g. --html {p}/report.html"),
    (["check", str(SAMPLE), "--no-taxonomy", "--xlsx"], "give a file name, e.g. --xlsx {p}/workpaper.xlsx"),
    (["inspect", str(SAMPLE), "--no-taxonomy", "--graph"], "give a file name, e.g. --graph {p}/filing.graphml"),
    (["eval", "no-such-cases", "--html"], "give a file name, e.g. --html {p}/report.html"),
    (["eval", "no-such-cases", "--used-keys"], "give a file name, e.g. --used-keys {p}/used-keys.json"),
]


@pytest.mark.parametrize("argv,says", AT_A_FOLDER, ids=[" ".join(a[:1] + a[-1:]) for a, _ in AT_A_FOLDER])
def test_a_file_output_naming_a_folder_is_an_input_error(argv, says, tmp_path, capsys) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    started = time.perf_counter()
    code, err = _run([*argv, str(folder)], capsys)
    _refused(code, err, folder)
    assert says.format(p=folder) in err
    assert time.perf_counter() - started < 5  # before the filing is loaded and checked, not after
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("option", ["--html", "--xlsx"])
def test_a_file_output_under_a_file_is_an_input_error(option, tmp_path, capsys) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file, not a folder\n")
    out = blocker / "sub" / "report.out"
    code, err = _run(["check", str(SAMPLE), "--no-taxonomy", option, str(out)], capsys)
    _refused(code, err, out)
    assert f"{blocker} is a file, not a folder" in err
    assert blocker.read_text() == "a file, not a folder\n"


@pytest.mark.parametrize("argv,also", [
    (["eval", "no-such-cases", "--out"], ""),
    (["cases", "generate", "--filing", "x", "--out"], "or a file name ending in .yaml"),
])
def test_a_folder_output_naming_a_file_is_an_input_error(argv, also, tmp_path, capsys) -> None:
    blocker = tmp_path / "results"
    blocker.write_text("kept\n")
    code, err = _run([*argv, str(blocker)], capsys)
    _refused(code, err, blocker)
    assert "names an existing file, and it writes a folder of files" in err and also in err
    assert blocker.read_text() == "kept\n"


def test_a_writable_html_path_in_a_new_folder_is_still_written(tmp_path, capsys) -> None:
    """The checks refuse only what cannot be written: missing folders on the way are created, as before."""
    out = tmp_path / "new" / "deeper" / "report.html"
    code, err = _run(["check", str(SAMPLE), "--no-taxonomy", "--format", "json", "--html", str(out)], capsys)
    assert code in (0, 1), err
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_write_that_fails_after_the_check_is_typed_too(tmp_path, capsys, monkeypatch) -> None:
    """A full disk (or a folder removed during the run) after the check: exit 2, naming the path."""
    import auditflow.html.render as render

    def full(path, text):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(render, "write_html", full)
    out = tmp_path / "report.html"
    code, err = _run(["check", str(SAMPLE), "--no-taxonomy", "--format", "json", "--html", str(out)], capsys)
    _refused(code, err, out)
    assert "No space left on device" in err
