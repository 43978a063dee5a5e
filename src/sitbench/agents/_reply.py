"""The one reading of what an agent's ``respond`` returned, shared by every battery that calls an agent.

SIT (``sitbench run --agent``), the CHI memory axis (``sitbench chi memory run --agent``) and RES
(``sitbench res run --agent``) accept the same reply forms, through :func:`normalize_reply`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from sitbench.agents._http import AgentOutputError
from sitbench.agents._models import AgentReply

ACCEPTED_REPLY_FORMS = ('a str, a dict with a "text" string (optional "usage", "memory_ops", "model" and no other '
                        'key), or a sitbench.agents.AgentReply')
"""The reply forms ``respond`` may return, in words (quoted in every malformed-reply message)."""


def normalize_reply(value: Any) -> AgentReply:
    """Read what ``respond`` returned as an :class:`AgentReply`.

    Accepted: a ``str`` (the answer text); a ``dict`` with a ``"text"`` string and optionally
    ``"usage"``, ``"memory_ops"`` and ``"model"``; an :class:`AgentReply`; any other pydantic model
    whose fields are those of a reply. Over HTTP the body is the dict form.

    Args:
        value: what the agent's ``respond`` returned (awaited).

    Returns:
        The reply, validated.

    Raises:
        AgentOutputError: ``value`` is none of the accepted forms; the message says what came back
            (the type, or the first invalid field) and lists the accepted forms.
    """
    if isinstance(value, str):
        return AgentReply(text=value)
    if isinstance(value, AgentReply):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        try:
            return AgentReply.model_validate(value)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(map(str, error["loc"])) or "body"
            raise AgentOutputError(f"respond returned an invalid reply: {where}: {error['msg']}; "
                                   f"accepted replies: {ACCEPTED_REPLY_FORMS}") from None
    raise AgentOutputError(f"respond returned {type(value).__name__}; accepted replies: {ACCEPTED_REPLY_FORMS}")
