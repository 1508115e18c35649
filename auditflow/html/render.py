"""The Jinja2 environment both pages render with (auditflow.html.check_page, auditflow.html.suite_page).

Autoescaping is on for every template: case ids, messages and model output are untrusted text. The
inline stylesheet and script are package files read once; a ``</`` inside them would end the
element early, so it is refused when they are read.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

import jinja2
from markupsafe import Markup



def _static(name: str) -> Markup:
    text = resources.files("auditflow.html").joinpath("static", name).read_text(encoding="utf-8")
    if "</" in text:
        raise ValueError(f"auditflow/html/static/{name} must not contain '</' (it is inlined)")
    return Markup(text)


def text_content(value: object) -> Markup:
    """Escaped for element content only (``&``, ``<``, ``>``): quotes need no escape there, and the JSON
    of hundreds of observations is a large share of a report (``&#34;`` is five bytes for one)."""
    return Markup(str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("auditflow.html", "templates"),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(css=_static("report.css"), js=_static("report.js"))
    env.filters["text"] = text_content
    return env


def write_html(path: Path, text: str) -> Path:
    """Write with ``\\n`` line ends on every platform (the bytes must not depend on the OS)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return path
