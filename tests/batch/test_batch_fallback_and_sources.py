"""Without dask, ``--batch`` runs serially and says so in one line (issue 43, Must show); bad sources
are one-line errors with exit 2 before any work; the sources' forms (folder of filings, list file,
glob, data-root names) and --format parquet."""
from __future__ import annotations

import json

import pytest

from auditflow.batch.sources import content_hash, expand_sources
from auditflow.errors import InputError
from tests.batch.conftest import REPO, auditflow, batch_findings

THREE = ("aapl-10q-2023-07-01", "nflx-10q-2024-03-31", "gahc-10q-2024-09-30")


@pytest.fixture
def no_dask(tmp_path):
    """A PYTHONPATH on which ``import dask`` and ``import distributed`` fail, as when the extra is not installed."""
    root = tmp_path / "no-dask"
    for name in ("dask", "distributed"):
        (root / name).mkdir(parents=True)
        (root / name / "__init__.py").write_text(f"raise ImportError('no module named {name} (blocked by the test)')\n")
    return root


def test_without_dask_the_batch_runs_serially_with_a_one_line_notice(tmp_path, data_root, serial_findings, no_dask):
    out = tmp_path / "r.jsonl"
    listing = tmp_path / "three.txt"
    listing.write_text("# three filings by data-root name\n" + "\n".join(THREE) + "\n")
    proc = auditflow(["check", "--batch", str(listing), "--out", str(out), "--no-progress"], data_root,
                     PYTHONPATH=f"{no_dask}:{REPO}")
    assert proc.returncode in (0, 1), proc.stderr
    notice = [x for x in proc.stderr.splitlines() if "dask is not installed" in x]
    assert notice == ["auditflow: dask is not installed (pip install 'pytest-auditflow[batch]'): checking the 3 "
                      "filing(s) serially in this process"]
    got = batch_findings(out)
    assert got == {k: v for k, v in serial_findings.items() if k.rsplit("/", 1)[-1] in THREE}
    assert "serial (this process)" in proc.stderr
    # --scheduler cannot be served without dask: an error, not a silent serial run
    proc = auditflow(["check", "--batch", str(listing), "--out", str(tmp_path / "s.jsonl"), "--scheduler",
                      "tcp://127.0.0.1:1"], data_root, PYTHONPATH=f"{no_dask}:{REPO}")
    assert proc.returncode == 2 and "--scheduler needs dask.distributed" in proc.stderr


def test_parquet_holds_the_same_rows(tmp_path, data_root, no_dask):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "r.parquet"
    proc = auditflow(["check", "--batch", *THREE, "--out", str(out), "--format", "parquet", "--no-progress"], data_root,
                     PYTHONPATH=f"{no_dask}:{REPO}")
    assert proc.returncode in (0, 1), proc.stderr
    table = pq.read_table(out).to_pylist()
    lines = [json.loads(x) for x in (tmp_path / "r.parquet.jsonl").read_text().splitlines()]
    assert [r["filing"] for r in table] == [r["filing"] for r in lines] == list(THREE)
    assert [json.loads(r["findings"]) for r in table] == [r["findings"] for r in lines]
    assert [r["n_findings"] for r in table] == [len(r["findings"]) for r in lines]


@pytest.mark.parametrize("source, message", [
    ("no-such-filing-anywhere", "no-such-filing-anywhere: no such filing or source"),
    ("/nonexistent/*/x", "the glob matches nothing"),
])
def test_a_bad_source_is_one_line_and_exit_2(tmp_path, data_root, source, message):
    out = tmp_path / "r.jsonl"
    proc = auditflow(["check", "--batch", source, "--out", str(out)], data_root)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and message in proc.stderr, proc.stderr
    assert not out.exists() or out.stat().st_size == 0


def test_a_bad_line_of_a_list_file_is_named_with_its_line(tmp_path, data_root):
    listing = tmp_path / "list.txt"
    listing.write_text(f"{THREE[0]}\n\n# a comment\nnot-a-filing\n")
    with pytest.raises(InputError, match=r"list.txt:4: no such filing or source.*: not-a-filing"):
        expand_sources([str(listing)], data_root)


def test_sources_expand_folders_lists_globs_once_each(tmp_path, data_root):
    listing = tmp_path / "list.txt"
    listing.write_text(f"{data_root / 'filings' / THREE[0]}\n{THREE[1]}\n")
    got = expand_sources([str(data_root / "filings"), str(listing), str(data_root / "filings-rolled" / "*-10k-*")],
                         data_root)
    names = [f.path.name for f in got]
    assert len(names) == len(set(names)) == 11 + sum(1 for p in (data_root / "filings-rolled").glob("*-10k-*"))
    assert names[:2] == sorted(p.name for p in (data_root / "filings").iterdir())[:2]


def test_the_content_hash_follows_content_not_place(tmp_path, data_root):
    import shutil

    src = data_root / "filings" / THREE[0]
    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(src, a)
    shutil.copytree(src, b)
    assert content_hash(a) == content_hash(b) == content_hash(src)
    xml = next(b.glob("*_htm.xml"))
    xml.chmod(0o644)
    xml.write_bytes(xml.read_bytes().replace(b"</xbrl", b"<!-- x --></xbrl", 1))
    assert content_hash(b) != content_hash(a)
