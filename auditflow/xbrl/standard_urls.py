"""Map the URLs of standard taxonomy schemas to their namespaces without opening them.

Filings point at ``https://xbrl.fasb.org/us-gaap/2023/elts/us-gaap-2023.xsd#us-gaap_Assets``. When the
schema itself is not available offline (our copy of US-GAAP 2024 lacks its element schema), the
URL and the FASB/SEC id convention (``prefix_LocalName``) still name the concept exactly.
"""
from __future__ import annotations

import re

_FASB = re.compile(r"^https?://xbrl\.fasb\.org/(us-gaap|srt|us-gaap-ebp)/(\d{4})/.*?/?([a-z-]+)-(\d{4})\.xsd$")
_SEC = re.compile(r"^https?://xbrl\.sec\.gov/([a-z]+)/(\d{4})/([a-z]+)-(\d{4}(?:-\d\d-\d\d)?)\.xsd$")


def standard_namespace_for_url(url: str) -> str | None:
    """``https://xbrl.fasb.org/us-gaap/2024/elts/us-gaap-2024.xsd`` -> ``http://fasb.org/us-gaap/2024``."""
    m = _FASB.match(url)
    if m:
        family, year = m.group(1), m.group(2)
        if family == "us-gaap" and m.group(3) == "us-gaap-ebp":
            family = "us-gaap-ebp"
        return f"http://fasb.org/{family}/{year}"
    m = _SEC.match(url)
    if m and m.group(1) == m.group(3):
        return f"http://xbrl.sec.gov/{m.group(1)}/{m.group(4)}"
    return None
