"""The distribution's metadata names its licence, its authors and where the project lives (issue 44).

``pip show pytest-auditflow`` had no home page, author or project URLs, and the repository had no
LICENSE file although pyproject declared Apache-2.0. The metadata is read as installed
(importlib.metadata), so a checkout installed before pyproject changed fails here until it is
installed again (``pip install -e '.[test]'``, as .ci/run does). A regular install from the repository
is checked by tests/ci/test_ci_templates.py (``pip show`` in its fresh venv).
"""
from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
URL = PROJECT["urls"]["Repository"]


@pytest.fixture(scope="module")
def metadata() -> importlib.metadata.PackageMetadata:
    try:
        meta = importlib.metadata.metadata("pytest-auditflow")
    except importlib.metadata.PackageNotFoundError:
        pytest.fail("pytest-auditflow is not installed: pip install -e '.[test]'")
    project_urls = {u.split(",", 1)[0].strip(): u.split(",", 1)[1].strip() for u in meta.get_all("Project-URL") or []}
    if project_urls != PROJECT["urls"]:
        pytest.fail(f"the installed metadata is older than pyproject.toml (Project-URL {project_urls}); "
                    "install the checkout again: pip install -e '.[test]'")
    return meta


def test_the_metadata_has_the_project_urls_author_and_license(metadata) -> None:
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL"))
    assert set(urls) == {"Homepage", "Repository", "Documentation", "Issues"}
    assert urls["Homepage"] == URL and all(u.startswith(URL) for u in urls.values())
    assert metadata["Author"] == "AuditFlow contributors"
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Version"] == PROJECT["version"]


def test_the_license_file_is_the_apache_license_2_0() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    for line in ("Apache License", "Version 2.0, January 2004", "http://www.apache.org/licenses/",
                 "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION", "END OF TERMS AND CONDITIONS"):
        assert line in text
    assert len(text.splitlines()) == 202  # the whole text, appendix included, as the ASF publishes it
