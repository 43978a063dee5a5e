"""Credentials never recorded: the redacted form of a URL, the one sitbench writes and prints.

A URL may carry credentials in its userinfo (``http://user:password@host/``) or in a query parameter
(``?token=…``). sitbench still connects with the URL it was given, but every manifest, response
record, log line and message holds :func:`redact_url`'s form, and ``--resume`` compares those forms.

This module is a leaf (standard library only), so any stage can redact what it records.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "REDACTED"
"""What a credential-looking query value is replaced with."""

_SECRET_PARAM = re.compile(r"token|key|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)
# scheme://userinfo@ anywhere in a text: the userinfo is what is dropped.
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#@\s'\"]*)@")
_QUERY_SECRET = re.compile(
    r"(?P<name>[?&](?:[A-Za-z0-9_.-]*(?:token|key|secret|passw|pwd|auth|sig|credential|session)[A-Za-z0-9_.-]*))="
    r"(?P<value>[^&#\s'\"]*)", re.IGNORECASE)


def redact_url(url: str) -> str:
    """``url`` without its userinfo and with credential-looking query values replaced.

    ``http://user:secret@127.0.0.1:8000/a?token=x&page=2`` becomes
    ``http://127.0.0.1:8000/a?token=REDACTED&page=2``. A string that is not a URL with a scheme is
    returned as it is (a module path, a file name).
    """
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc.rpartition("@")[2]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.search(name) for name, _ in pairs):
            query = urlencode([(n, REDACTED if _SECRET_PARAM.search(n) else v) for n, v in pairs], safe="/:")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """Every URL's userinfo and credential-looking query values in free text (a message, a log line) removed."""
    if "://" not in text:
        return text
    text = _USERINFO.sub(lambda m: m.group("scheme"), text)
    return _QUERY_SECRET.sub(lambda m: f"{m.group('name')}={REDACTED}", text)
