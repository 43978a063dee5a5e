"""Small HTML helpers shared by every page sitbench writes (the report, the audit sheet)."""

from __future__ import annotations

import base64
import hashlib
import json
import math
from collections.abc import Sequence
from html import escape


def esc(value: object) -> str:
    """HTML-escape any value (quotes included, so it is safe inside attributes)."""
    return escape(str(value), quote=True)


def num(value: object, digits: int = 4) -> str:
    """A number with ``digits`` significant digits, "yes"/"no" for booleans, "—" for null."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "—" if not math.isfinite(value) else f"{value:.{digits}g}"
    return esc(value)


def kv(items: Sequence[tuple[str, object]]) -> str:
    """A definition list of the non-empty items; dicts and lists shown as compact JSON."""
    rows = []
    for key, value in items:
        if value is None or value == "" or value == {} or value == []:
            continue
        if isinstance(value, dict | list):
            text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        else:
            text = str(value)
        rows.append(f"<dt>{esc(key)}</dt><dd>{esc(text)}</dd>")
    return f"<dl class='kv'>{''.join(rows)}</dl>"


def content_security_policy(script: str) -> str:
    """The pages' Content-Security-Policy: nothing loads from anywhere; only ``script`` (by hash) runs.

    No fetch, image, font or frame source is allowed (``default-src 'none'``), styles are inline, and
    the one inline script is allowed by its SHA-256, so markup that slipped past escaping could not
    run code or reach the network."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'"
    )
