"""Every real filing in the data root loads, as a folder and as a zip, and reports what it lacks."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from auditflow.xbrl.loader import load_filing

pytestmark = pytest.mark.slow


def _folders(data_root: Path, sub: str) -> list[Path]:
    return sorted(p for p in (data_root / sub).iterdir() if p.is_dir())


def test_there_are_29_real_filings(data_root):
    assert len(_folders(data_root, "filings")) == 11
    assert len(_folders(data_root, "filings-rolled")) == 18


@pytest.mark.parametrize("sub", ["filings", "filings-rolled"])
def test_every_real_filing_loads_as_folder_and_zip(data_root, sub, tmp_path):
    for folder in _folders(data_root, sub):
        as_dir = load_filing(folder)
        assert as_dir.facts, folder
        assert as_dir.arcs, f"{folder}: no relationships loaded"
        assert as_dir.document_type in {"10-K", "10-Q"}, folder
        packed = tmp_path / f"{folder.name}.zip"
        with zipfile.ZipFile(packed, "w") as z:
            for f in sorted(folder.iterdir()):
                # the rolled filings in their original form: instance + taxonomy zip only
                if sub == "filings-rolled" and not (f.name.endswith(".zip") or "_instance_" in f.name or f.name.endswith("_htm.xml")):
                    continue
                z.write(f, f"{folder.name}/{f.name}")
        as_zip = load_filing(packed)
        assert _fact_set(as_zip) == _fact_set(as_dir), folder
        assert len(as_zip.arcs) == len(as_dir.arcs), folder


def _fact_set(filing):
    return {(f.concept, filing.contexts[f.context_id].period, filing.contexts[f.context_id].dimensions, f.value, f.decimals) for f in filing.facts}


def test_rolled_filing_schema_ref_points_into_a_zip(data_root, tmp_path):
    """Only the instance and its taxonomy zip: the DTS must come from inside the archive."""
    folder = data_root / "filings-rolled" / "tol-10k-2023-10-31"
    for name in ("TOL_instance_FY_2023_2025.xml", "TOL_taxonomy_FY_2023_2025.zip"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    f = load_filing(tmp_path)
    assert any("- Statement -" in r.definition for r in f.roles.values())
    # the zip's schema embeds its linkbases: all three relationship kinds come from inside it
    assert {a.kind for a in f.arcs} == {"calculation", "definition", "presentation"}
    assert len(f.arcs) == len(load_filing(folder).arcs)
