"""``replay/PATH``: a candidate that answers from recorded answers, keyed by the prompt it is sent.

It serves frozen readings (a person's or a model's answers to the LLM extractor's prompts) as if a model
gave them: ``--extractor llm:replay/readings.jsonl``. Each line of the file is a JSON object with
``prompt_sha256`` (:func:`prompt_sha256` of the messages) and ``answer`` (the text to return); other
fields are kept for people and ignored here. A prompt the file does not hold is a dropped call with
that reason, never a guess, so a reading made under another prompt version is never replayed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from sitbench.candidates._protocol import CandidateRequest, CandidateResponse, Message
from sitbench.errors import InputError
from sitbench.stores import iter_lines, loads_json, open_regular

REPLAY_MAX_BYTES = 1 << 30
"""The largest readings file replayed: 1 GiB (its answers are held in memory)."""


def _text(raw: bytes, path: Path, number: int) -> str:
    """One line as UTF-8 text; InputError naming the file, line and byte otherwise."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path} line {number}: not valid UTF-8 (byte {raw[exc.start]:#04x} at column "
                         f"{exc.start + 1}); a readings file is UTF-8 JSON text: restore it or save it as UTF-8") \
            from None

NO_RECORDED_ANSWER = "no recorded answer for this prompt"
"""The drop reason of a prompt the recorded answers do not hold."""


def prompt_sha256(messages: list[Message]) -> str:
    """The key an answer is recorded and replayed under: SHA-256 of the messages' roles and texts."""
    payload = json.dumps([[m.role, m.content] for m in messages], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ReplayCandidate:
    """Answers each request with the recorded answer to the same messages."""

    def __init__(self, path: Path) -> None:
        """Load the recorded answers.

        Raises:
            InputError: the file is missing, a line is not a JSON object with both keys, or two lines
                record different answers to one prompt.
        """
        self.path = path
        self.name = f"replay/{path.name}"
        self.answers: dict[str, str] = {}
        digest = hashlib.sha256()
        read = 0
        hint = "give the path of a JSONL file of {\"prompt_sha256\", \"answer\"} lines"
        with open_regular(path, hint) as handle:
            for number, raw in iter_lines(handle, str(path)):
                digest.update(raw)
                read += len(raw)
                if read > REPLAY_MAX_BYTES:
                    raise InputError(f"{path}: larger than {REPLAY_MAX_BYTES >> 20} MiB, the most sitbench reads "
                                     "of a readings file; give the right file, or split it")
                self._add(number, raw)
        self.digest = digest.hexdigest()

    def _add(self, number: int, raw: bytes) -> None:
        """Record one line's answer (blank lines skipped)."""
        if not raw.strip():
            return
        path = self.path
        line = _text(raw, path, number)
        row = loads_json(line, str(path), number)
        try:
            key, answer = row["prompt_sha256"], row["answer"]
            if not isinstance(key, str):
                raise TypeError(key)
        except (KeyError, TypeError):
            raise InputError(f"{path}:{number}: not a JSON object with prompt_sha256 and answer; fix or "
                             "remove the line") from None
        if not isinstance(answer, str):
            answer = json.dumps(answer, ensure_ascii=False)
        if self.answers.get(key, answer) != answer:
            raise InputError(f"{path}:{number}: a second, different answer to prompt {key[:12]}…; keep one")
        self.answers[key] = answer

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        answer = self.answers.get(prompt_sha256(request.messages))
        if answer is None:
            return CandidateResponse(text=None, status="drop", provider="replay", model_sent=self.name,
                                     drop_reason=NO_RECORDED_ANSWER)
        return CandidateResponse(text=answer, provider="replay", model_sent=self.name)

    def describe(self) -> dict[str, Any]:
        return {"provider": "replay", "model": self.name, "sha256": self.digest}


def replay_candidate(name: str, **options: Any) -> ReplayCandidate:
    """``replay/PATH`` (no options)."""
    if options:
        raise InputError(f"--model replay/{name}: a replay takes no options (got {sorted(options)})")
    if not name:
        raise InputError("--model replay/: name the file of recorded answers, e.g. replay/readings.jsonl")
    return ReplayCandidate(Path(name))
