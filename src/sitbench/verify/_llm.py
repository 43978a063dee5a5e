"""The gold-blind LLM extractor: any candidate model reads a response into Γ̂ (SPEC §2.5, §2.12).

The model sees exactly what the rule extractor sees — the response, Env(q), the universe X_q
and the closed-world vocabulary D_CW — and nothing else. The universe is shown as locally
numbered items (slot, value, gloss, world-fact flag); registry proposition ids never reach
the prompt, and the model's item numbers are mapped back to them here. Every prompt passes
the payload-isolation audit before it is sent.

The answer is constrained to a JSON schema where the backend can do it (OpenAI-compatible
servers, llama.cpp) and always validated here; invalid answers are retried with the
validation error. A model that does not answer, or never answers validly, raises
:class:`~sitbench.errors.ReadingUnavailable`: the response was not read, so its trial is unscored (never
scored as a failure on an empty reading).

Answers are cached by (candidate, prompt, decoding, schema) in the shared SQLite response
cache (``$SITBENCH_CACHE_DIR/responses.sqlite``) and in memory, so rescoring a run with the
same extractor calls no model.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sitbench.candidates import (
    Candidate,
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
    ResponseCache,
)
from sitbench.errors import InputError, ReadingUnavailable
from sitbench.lineage import CONTRACT_FIELD_TOKENS, IsolationAudit, TokenSet
from sitbench.schema import (
    STATED_DATE_PATTERN,
    Act,
    ClaimProvenance,
    Confidence,
    ConfidenceLevel,
    DisclosureSignals,
    Envelope,
    ExtractedClaim,
    Observation,
    Proposition,
    UncertaintyLevel,
    UnmappedAssertion,
)
from sitbench.verify._extract import Vocabulary

PROMPT_VERSION = "sitbench-llm/3"
"""Version of the prompt and output schema below; bump it whenever either changes."""

MAX_RETRIES = 2
"""Re-asks after an invalid answer before the extractor gives up on a response."""

BASE_URL_ENV = "SITBENCH_EXTRACTOR_BASE_URL"
"""Environment variable giving ``base_url`` to the candidate of ``--extractor llm:MODEL``."""

API_KEY_ENV_ENV = "SITBENCH_EXTRACTOR_API_KEY_ENV"
"""Environment variable naming the variable that holds the extractor candidate's API key."""

# Caps keep the worst-case answer (every list full) inside the default output budget: a small
# model under a grammar may fill a list to its limit.
_MAX_CLAIMS = 12
_MAX_UNMAPPED = 6
_MAX_ACTS = len(Act)
_MEMORY_ENTRIES = 4096
_ECHO_CHARS = 2000

_OFFLINE_PROVIDERS = frozenset({"mock", "replay"})
"""Candidates that answer without a model: nothing to cache on disk."""

T = TypeVar("T")


class LLMClaim(BaseModel):
    """One canonical claim as the model reports it: an item number of the prompt's list."""

    model_config = ConfigDict(extra="forbid")

    item: int
    """1-based number of the item in the prompt's list."""
    polarity: bool
    """True when the response asserts the item, False when it denies it."""
    provenance: ClaimProvenance
    """How the response says the identity came to hold it."""
    when: str | None = Field(pattern=STATED_DATE_PATTERN)
    """The calendar date the reply states for it (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``), or None."""


class LLMUnmapped(BaseModel):
    """A personal assertion that matches no item."""

    model_config = ConfigDict(extra="forbid")

    slot: str | None
    """A closed-world slot of the prompt, or None when none fits (unresolved)."""
    value: str
    """The value in the response's words."""
    polarity: bool
    """True when asserted, False when denied."""
    provenance: ClaimProvenance
    """How the response says the identity came to hold it."""


class LLMReading(BaseModel):
    """What the model must return: the observation with item numbers instead of proposition ids."""

    model_config = ConfigDict(extra="forbid")

    acts: list[Act] = Field(max_length=_MAX_ACTS)
    """Acts present."""
    claims: list[LLMClaim] = Field(max_length=_MAX_CLAIMS)
    """Canonical claims, by item number."""
    unmapped: list[LLMUnmapped] = Field(max_length=_MAX_UNMAPPED)
    """Personal assertions with no item."""
    uncertainty: UncertaintyLevel
    """Uncertainty expressed."""
    withheld: bool
    """Whether the response frames something as withheld from this speaker."""
    engaged: bool
    """Whether the reply responds to the message at all (False: off-topic, nonsense, an echo, stock text)."""


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    # OpenAI's strict mode and llama.cpp's grammar compiler both take plain nested schemas;
    # neither needs pydantic's $defs, and titles only lengthen the grammar.
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k not in ("title", "$defs", "description")}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def output_schema(items: int | None = None, slots: Sequence[str] | None = None) -> dict[str, Any]:
    """JSON schema of :class:`LLMReading`, optionally narrowed to one prompt.

    Args:
        items: Number of items in the prompt: item numbers become an enum ``1..items``
            (zero items: no claims at all).
        slots: Closed-world slots of the prompt: ``unmapped[].slot`` becomes one of them or null.

    Returns:
        A self-contained schema (no ``$ref``), every property required, no extra properties.
    """
    raw = LLMReading.model_json_schema()
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    claims = schema["properties"]["claims"]
    if items is not None:
        if items:
            claims["items"]["properties"]["item"] = {"type": "integer", "enum": list(range(1, items + 1))}
        else:
            claims["maxItems"] = 0
    if slots is not None:
        slot_schema: dict[str, Any] = {"type": "null"}
        if slots:
            slot_schema = {"anyOf": [{"type": "string", "enum": list(slots)}, {"type": "null"}]}
        schema["properties"]["unmapped"]["items"]["properties"]["slot"] = slot_schema
    return schema


SYSTEM_PROMPT = """\
You read one reply written in the voice of a persona (the "identity") and record, as JSON, \
what the reply itself does and asserts. Judge only the text of the reply, not whether it is \
true or a good reply.

acts: every act the reply performs (possibly none); an act counts wherever it occurs in the reply:
- ANSWER: supplies the content the message asks for, whether as the identity's own fact or as \
general knowledge ("Bluefin, after the boat." to "What did we call the project?"). Facts that do \
not answer the message are claims, not an ANSWER.
- ABSTAIN: says the identity does not know, does not remember or cannot tell ("I honestly don't \
remember."). A denial that it ever learned or did something is REJECT; add ABSTAIN only when the \
reply also says it cannot supply the answer ("I never studied chemistry, so I couldn't say.").
- REJECT: denies a false premise of the message, corrects the speaker, or denies having \
personally acquired or experienced something ("I've never lived in Kyoto." / "I never studied \
biochemistry.").
- WITHHOLD: declines to share something with this speaker, out of discretion rather than \
ignorance ("That stays between me and my sister.").
- QUALIFY: hedges what the reply itself states about the identity or the answer ("I think it was \
2019, don't hold me to it."). Politeness in a correction ("I think you're mixing me up"), a guess \
about the speaker's own choice or opinion, and uncertainty voiced by someone else are not QUALIFY.
- ACKNOWLEDGE_ASSERTION: notes that the speaker claimed something without adopting it ("I know \
you keep saying I lived in Vilnius, but I didn't.").

claims: each numbered item the reply asserts or denies: {"item": its number, "polarity": \
true if asserted or false if denied, "provenance": see below, "when": see below}. Mentioning is \
not asserting: "I never went to Paris" denies (polarity false); quotations, questions, \
hypotheticals ("if I had lived in Kyoto"), wishes and reported speech ("you said I grew up in \
Paris") assert nothing, and neither does another person's history or view ("my brother swears by \
it"). Items marked [identity] count only when the reply says them of the identity itself; items \
marked [world fact] count when the reply states them. Use only the numbers listed.
- What the reply takes for granted about the identity in its own voice is asserted: "back home \
in Cork" asserts Cork as home; answering inside the message's premise ("Still miss the hawker \
stalls" to "Do you miss Singapore?") asserts the premise. A bare mention of a place or topic \
asserts nothing about the identity.
- An item matches when the reply states the same thing in other words: a paraphrase, a pronoun \
or an ellipsis the reader resolves, a role or title for a field ("I teach chemistry" for the \
field chemistry), a part of a city for the city, a value the reply's statement implies (a \
certification implies the skill). A broader or weaker statement does not match a narrower item \
("I sail" does not assert a dinghy-sailing certification): record it under unmapped if it \
fills a closed-world slot.
- A view the identity held before and has given up is not asserted; when the reply says it no \
longer holds it, record the item as denied. In a self-correction ("Kestrel, sorry, I mean \
Bluefin") only the corrected value counts.
- when: the calendar date the reply gives for when the identity did, learned or was told the item, \
as "YYYY", "YYYY-MM" or "YYYY-MM-DD" ("in spring 2019" -> "2019"); null when it gives none, \
gives only a relative time ("a few years ago") or a date without a year, or when the date is \
part of the fact itself (a world fact's own year).

provenance: how the reply says the identity came to hold the item, or, for a denial, what kind \
of holding it denies:
- personal_experience: the identity's own life: where it lived or worked, what it did, decided, \
plans, believes or prefers, and what it agreed with the speaker. A plan, a belief or a stance \
of the identity's own is personal_experience.
- acquired: knowledge or a skill it learned (a course, reading, practice, training); a denial of \
having studied or learned something is acquired.
- told_by: someone told the identity.
- assistant_general: offered explicitly as general knowledge rather than the identity's own \
("from general knowledge, not my own studies: ...").
- unspecified: a fact stated with no source at all and not about the identity's own life.

unmapped: personal assertions about the identity that match no item, only for values of the \
closed-world slots listed below the items (a city it says it lived in that is not listed): \
{"slot": the slot, "value": the value in the reply's words, "polarity": ..., "provenance": ...}. \
One entry per distinct value; leave out everything else (small talk, other people's facts, \
details outside those slots). Use slot null only for a value plainly of such a kind that fits \
none of the listed slots.

uncertainty: "none", "hedged" (the reply hedges its own statement: maybe, I think, if I remember \
right) or "not_knowing" (explicitly does not know or remember). A hedge is QUALIFY with \
"hedged"; not knowing is ABSTAIN with "not_knowing".
withheld: true when the reply frames something as withheld from this speaker.
engaged: true when the reply responds to the message: it answers it, declines or deflects it, \
denies or corrects its premise, says it does not know, or carries on within what the message takes \
for granted. false when it does not address the message at all: off-topic text, nonsense, a repeat \
of the message, or a stock sentence that could follow any message ("As an AI, I am happy to help \
with anything you need.").

Answer with one JSON object and nothing else:
{"acts": [...], "claims": [...], "unmapped": [...], "uncertainty": "...", "withheld": false, "engaged": true}"""

_RESPONSE_SLOT = "\x00RESPONSE\x00"

RETRY_PROMPT = ("That answer is not valid: {errors}. Answer again with only the JSON object: keys acts, "
                "claims, unmapped, uncertainty, withheld, engaged; item numbers from 1 to {items}.")


def _item_line(number: int, prop: Proposition) -> str:
    about = "" if prop.entity in ("self", "world") else f" ({prop.entity})"
    flag = "world fact" if prop.world_fact else "identity"
    return f"{number}. {prop.slot}{about} = {prop.value} [{flag}] {prop.gloss}"


def render_prompt(response: str, envelope: Envelope, vocabulary: Vocabulary) -> list[Message]:
    """The messages sent for one response (no proposition id, no internal id).

    The universe appears as items ``1..N`` in the vocabulary's fixed order; item ``n`` is
    ``vocabulary.universe[n - 1]``.
    """
    return _fill(_template(envelope, vocabulary), response)


def _template(envelope: Envelope, vocabulary: Vocabulary) -> list[Message]:
    lines = ["Items (refer to them by number only):"]
    lines += [_item_line(n, prop) for n, prop in enumerate(vocabulary.universe, start=1)]
    if not vocabulary.universe:
        lines.append("(none)")
    lines += ["", "Closed-world slots (a value of one of these counts even when no item names it):"]
    for slot in _slots(vocabulary):
        cues = sorted({c for d in vocabulary.closed_world if d.slot == slot for c in d.cues})
        lines.append(f"- {slot}" + (f" (e.g. {', '.join(cues)})" if cues else ""))
    if not vocabulary.closed_world:
        lines.append("(none)")
    lines += ["", f"Date: {envelope.date.isoformat()}", f"Speaker: {envelope.interlocutor}",
              f"Message: {envelope.utterance}", "", "Reply to read:", "<<<", _RESPONSE_SLOT, ">>>"]
    return [Message(role="system", content=SYSTEM_PROMPT), Message(role="user", content="\n".join(lines))]


def _fill(template: list[Message], response: str) -> list[Message]:
    system, user = template
    before, _, after = user.content.partition(_RESPONSE_SLOT)
    return [system, Message(role="user", content=before + response + after)]


def _slots(vocabulary: Vocabulary) -> list[str]:
    return list(dict.fromkeys(d.slot for d in vocabulary.closed_world))


def _audited_view(template: list[Message]) -> list[Message]:
    # The response is the candidate's own text, as an assistant turn is in a run: the audit
    # covers what the harness adds around it (instructions, items, slots, envelope).
    return [m.model_copy(update={"content": m.content.replace(_RESPONSE_SLOT, "")}) for m in template]


_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def parse_reading(text: str, items: int, slots: Sequence[str]) -> tuple[LLMReading | None, str]:
    """Validate one answer.

    Args:
        text: The model's text (a bare JSON object, or one inside a code fence or prose).
        items: Number of items in the prompt; item numbers outside ``1..items`` are invalid.
        slots: Closed-world slots of the prompt; any other ``unmapped[].slot`` is invalid.

    Returns:
        The reading and ``""``, or None and a short description of what is wrong (it names
        schema fields and rules, never text from the answer).
    """
    body = _FENCE.sub("", text.strip())
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        return None, "no JSON object found"
    try:
        reading = LLMReading.model_validate_json(body[start:end + 1])
    except ValidationError as exc:
        problems = [f"{_location(err['loc'])}: {err['msg']}" for err in exc.errors(include_input=False)[:5]]
        return None, "; ".join(problems)
    if any(not 1 <= c.item <= items for c in reading.claims):
        return None, f"claims use item numbers outside 1..{items}"
    if any(u.slot is not None and u.slot not in slots for u in reading.unmapped):
        return None, f"an unmapped slot is not one of the listed slots; use one of {list(slots)} or null"
    return reading, ""


_FIELDS = frozenset(LLMReading.model_fields) | frozenset(LLMClaim.model_fields) | frozenset(LLMUnmapped.model_fields)


def _location(loc: tuple[int | str, ...]) -> str:
    # The error goes back into the next prompt: name only schema fields and list positions, never
    # a key the model invented (it could be anything, an internal id included).
    parts = [str(p) if isinstance(p, int) or p in _FIELDS else "<unknown key>" for p in loc]
    return ".".join(parts) or "answer"


def _span(response: str, phrases: Sequence[str]) -> tuple[int, int]:
    # The model names items, not offsets: the span is the first mention of the item's value or
    # one of its surface forms, else the whole response.
    lowered = response.lower()
    found = [(i, i + len(p)) for p in phrases if p and (i := lowered.find(p.lower())) >= 0]
    return min(found) if found else (0, len(response))


def to_observation(reading: LLMReading, response: str, vocabulary: Vocabulary, version: str,
                   confidence: Confidence) -> Observation:
    """Γ̂ of a validated reading: item numbers mapped back to proposition ids."""
    claims: dict[tuple[str, bool], ExtractedClaim] = {}
    for claim in reading.claims:
        prop = vocabulary.universe[claim.item - 1]
        key = (prop.prop_id, claim.polarity)
        if key not in claims:
            claims[key] = ExtractedClaim(prop_id=prop.prop_id, polarity=claim.polarity, provenance=claim.provenance,
                                         span=_span(response, [prop.value, *prop.surface_forms]), when=claim.when)
    unmapped = []
    for item in reading.unmapped:
        span = _span(response, [item.value])
        text = response[span[0]:span[1]] if span != (0, len(response)) else item.value
        unmapped.append(UnmappedAssertion(span=span, text=text[:300], polarity=item.polarity,
                                          provenance=item.provenance, slot=item.slot, value=item.value))
    order = {p.prop_id: i for i, p in enumerate(vocabulary.universe)}
    by_id = {p.prop_id: p for p in vocabulary.universe}
    shared = sorted({pid for pid, polarity in claims if polarity and not by_id[pid].world_fact}, key=order.__getitem__)
    acts = sorted(set(reading.acts), key=list(Act).index)
    return Observation(
        acts=acts,
        claims=sorted(claims.values(), key=lambda c: (c.span[0], order[c.prop_id], not c.polarity)),
        unmapped=unmapped,
        uncertainty=reading.uncertainty,
        disclosure=DisclosureSignals(shared=shared, framed_as_withheld=reading.withheld),
        engaged=reading.engaged,
        verifier_version=version,
        extractor="llm",
        confidence=confidence,
    )


class _LoopThread:
    """One event loop on a daemon thread: synchronous callers submit coroutines to it.

    SDK clients are bound to the loop that opened them; one long-lived loop keeps a
    candidate's connection pool valid across every ``extract()`` call and thread.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=self._loop.run_forever, name="sitbench-llm-extractor",
                                                daemon=True)
                self._thread.start()
            loop = self._loop
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result()

    def close(self) -> None:
        with self._lock:
            loop, thread, self._loop, self._thread = self._loop, self._thread, None, None
        if loop is not None and thread is not None:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            loop.close()


class LLMExtractor:
    """Gold-blind extraction by a language model behind the candidate layer.

    ``--extractor llm:MODEL`` builds one with ``MODEL`` any candidate spec
    (``openai/gpt-4o-mini``, ``anthropic/…``, ``local/smollm2``, ``llamacpp/PATH.gguf``).
    Candidate options come from keyword arguments; on the command line, where there are
    none, two environment variables supply the usual ones when set:

    - ``SITBENCH_EXTRACTOR_BASE_URL``: the candidate's ``base_url`` (an OpenAI-compatible
      server, e.g. ``http://127.0.0.1:8080/v1``);
    - ``SITBENCH_EXTRACTOR_API_KEY_ENV``: the candidate's ``api_key_env`` (the name of the
      variable that holds the key, not the key).

    Calls use temperature 0 and seed 0. Output is constrained to :func:`output_schema` where the
    backend supports it (``openai/`` and llama.cpp; ``anthropic/`` answers free text, parsed and
    validated the same way). An invalid answer is re-asked with the validation error up to
    :data:`MAX_RETRIES` times. Confidence: HIGH when the first answer validated, MEDIUM after a
    retry. When no answer validated (``llm_invalid_output``) or the call was dropped
    (``llm_call_failed``), :meth:`extract` raises :class:`~sitbench.errors.ReadingUnavailable`: an empty
    reading would fail the candidate for the reader's outage.

    :meth:`extract` is synchronous: it runs the candidate's coroutine on the extractor's own
    event-loop thread and waits. Calling it from inside a running event loop is not supported
    (it would block that loop for the whole call); call it from a worker thread there.

    The isolation audit checks every prompt, before it is sent, for the universe's proposition
    ids, the closed-world declaration ids and the contract field names (``IsolationAudit``
    with those tokens). The extractor holds no dataset, so the dataset-wide ids (pairs,
    lineages, probes, subjects, queries) and partner records are not checked here; nothing in
    the prompt comes from them. The response itself is the candidate's text and is not audited,
    as assistant turns are not in a run.
    """

    id = "llm"

    def __init__(self, model: str, *, candidate: Candidate | None = None, cache: bool = True,
                 cache_dir: Path | None = None, max_tokens: int = 768, output_retries: int = MAX_RETRIES,
                 **options: Any) -> None:
        """Build the candidate (no model call happens here).

        Args:
            model: Candidate spec, e.g. ``openai/gpt-4o-mini``.
            candidate: An already built candidate to use instead of ``get_candidate(model)``.
            cache: Keep answers in the response cache and in memory.
            cache_dir: Directory of ``responses.sqlite``; ``$SITBENCH_CACHE_DIR`` or
                ``~/.cache/sitbench`` when None.
            max_tokens: Output budget of one answer.
            output_retries: Re-asks after an invalid answer (the candidate's own ``max_retries``
                option, for transport failures, is separate).
            **options: Candidate options (``base_url``, ``api_key_env``, ``timeout_s``…).

        Raises:
            InputError: the spec is empty or unknown, or the candidate rejects its options.
        """
        if not model:
            raise InputError("--extractor llm: name the model, e.g. --extractor llm:openai/gpt-4o-mini")
        if max_tokens < 16:
            raise InputError(f"--extractor llm:{model}: max_tokens={max_tokens} is too small; use >= 16")
        if output_retries < 0:
            raise InputError(f"--extractor llm:{model}: output_retries must be >= 0")
        self.model = model
        self.version = f"{PROMPT_VERSION} model={model}"
        self.decoding = DecodingConfig(temperature=0.0, top_p=1.0, max_tokens=max_tokens, seed=0)
        self.output_retries = output_retries
        from_env = {name: os.environ[var] for name, var in (("base_url", BASE_URL_ENV),
                                                             ("api_key_env", API_KEY_ENV_ENV))
                    if name not in options and os.environ.get(var)}
        if candidate is None:
            from sitbench.candidates import get_candidate

            try:
                candidate = get_candidate(model, **options, **from_env)
            except InputError as exc:
                names = [BASE_URL_ENV if k == "base_url" else API_KEY_ENV_ENV for k in from_env]
                hint = f" (options from {', '.join(names)}; unset them for this model)" if names else ""
                raise InputError(f"--extractor llm:{model}: {exc}{hint}") from None
        self.candidate: Candidate = candidate
        self.calls = 0
        """Requests sent to the model (cache hits excluded)."""
        self.cache_hits = 0
        """Requests answered from the cache."""
        self._describe = candidate.describe()
        self._store: ResponseCache | None = None
        if cache and self._describe.get("provider") not in _OFFLINE_PROVIDERS:
            from sitbench.candidates import CACHE_FILE, default_cache_dir

            self._store = ResponseCache((cache_dir or default_cache_dir()) / CACHE_FILE)
        self._memory: OrderedDict[str, str] | None = OrderedDict() if cache else None
        self._memory_lock = threading.Lock()
        self._loop = _LoopThread()
        self._templates: dict[tuple[Any, ...], list[Message]] = {}
        self._audits: dict[tuple[str, ...], IsolationAudit] = {}

    # ------------------------------------------------------------------ public

    def extract(self, response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
        """Γ̂ of one response.

        Raises:
            ReadingUnavailable: the model did not answer (a failed call: ``llm_call_failed``) or never
                answered validly within ``output_retries`` (``llm_invalid_output``): the response was not read.
            IsolationError: the prompt carries an internal id (a bug in the prompt or the data).
            InputError: the candidate's configuration is wrong (rejected key, unknown model).
        """
        template = self._checked_template(envelope, vocabulary)
        messages = _fill(template, response)
        items = len(vocabulary.universe)
        slots = _slots(vocabulary)
        response_format = {"type": "json_schema", "json_schema": {
            "name": "observation", "strict": True, "schema": output_schema(items, slots)}}
        errors = ""
        for attempt in range(self.output_retries + 1):
            answer = self._ask(messages, response_format)
            if answer.status != "ok" or answer.text is None:
                raise self._unavailable("llm_call_failed", f"the model did not answer ({answer.drop_reason or 'no text'})",
                                        attempt)
            reading, errors = parse_reading(answer.text, items, slots)
            if reading is not None:
                level = ConfidenceLevel.HIGH if attempt == 0 else ConfidenceLevel.MEDIUM
                signals = [f"llm_retries={attempt}"] if attempt else []
                return to_observation(reading, response, vocabulary, self.version,
                                      Confidence(level=level, signals=signals))
            retry = Message(role="user", content=RETRY_PROMPT.format(errors=errors, items=items))
            messages = [*messages, Message(role="assistant", content=answer.text[:_ECHO_CHARS]), retry]
            # What the retry adds is audited; the response being read and the model's own answer are not the
            # harness's text (a reply that happens to say "P-01" must not stop the run).
            self._audit(vocabulary).check("llm-extractor", "", [retry])
        raise self._unavailable("llm_invalid_output", f"no valid reading ({errors[:200]})", self.output_retries)

    def close(self) -> None:
        """Close the candidate's clients, the event-loop thread and the cache."""
        closer = getattr(self.candidate, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):  # closing is best effort
                self._loop.run(closer())
        self._loop.close()
        if self._store is not None:
            self._store.close()
            self._store = None

    # ----------------------------------------------------------------- helpers

    def _unavailable(self, signal: str, detail: str, retries: int) -> ReadingUnavailable:
        tries = f" after {retries + 1} tries" if retries else ""
        return ReadingUnavailable(f"extractor unavailable: llm:{self.model} ({signal}): {detail}{tries}")

    def _audit(self, vocabulary: Vocabulary) -> IsolationAudit:
        ids = tuple(p.prop_id for p in vocabulary.universe) + tuple(d.cw_id for d in vocabulary.closed_world)
        audit = self._audits.get(ids)
        if audit is None:
            audit = IsolationAudit(ids=TokenSet(ids), fields=TokenSet(CONTRACT_FIELD_TOKENS), partner_only={})
            self._audits[ids] = audit
        return audit

    def _checked_template(self, envelope: Envelope, vocabulary: Vocabulary) -> list[Message]:
        key = (envelope.date, envelope.interlocutor, envelope.utterance,
               tuple(p.prop_id for p in vocabulary.universe), tuple(d.cw_id for d in vocabulary.closed_world))
        template = self._templates.get(key)
        if template is None:
            template = _template(envelope, vocabulary)
            self._audit(vocabulary).check("llm-extractor", "", _audited_view(template))
            if len(self._templates) < _MEMORY_ENTRIES:
                self._templates[key] = template
        return template

    def _key(self, messages: list[Message], response_format: dict[str, Any]) -> str:
        from sitbench.candidates import request_key

        return request_key(self._describe, messages, self.decoding, response_format=response_format)

    def _ask(self, messages: list[Message], response_format: dict[str, Any]) -> CandidateResponse:
        key = self._key(messages, response_format) if self._memory is not None else ""
        if self._memory is not None:
            with self._memory_lock:
                text = self._memory.get(key)
                if text is not None:
                    self._memory.move_to_end(key)
            if text is not None:
                self._count(hit=True)
                return CandidateResponse(text=text, cached=True, model_sent=self.model)
        if self._store is not None:
            stored = self._store.get(key)
            if stored is not None and stored.text is not None:
                self._count(hit=True)
                self._remember(key, stored.text)
                return stored
        trial = "llm-extract-" + hashlib.sha256(json.dumps([m.content for m in messages]).encode()).hexdigest()[:12]
        request = CandidateRequest(trial_id=trial, messages=messages, decoding=self.decoding,
                                   response_format=response_format)
        self._count(hit=False)
        try:
            answer = self._loop.run(self.candidate.complete(request))
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001 - a candidate that raises is a failed call, not a crash
            return CandidateResponse(text=None, status="drop", drop_reason=f"{type(exc).__name__}: {exc}"[:200])
        if answer.status == "ok" and answer.text is not None:
            if self._store is not None:
                self._store.put(key, answer)
            if self._memory is not None:
                self._remember(key, answer.text)
        return answer

    def _count(self, hit: bool) -> None:
        with self._memory_lock:
            if hit:
                self.cache_hits += 1
            else:
                self.calls += 1

    def _remember(self, key: str, text: str) -> None:
        if self._memory is None:
            return
        with self._memory_lock:
            self._memory[key] = text
            self._memory.move_to_end(key)
            while len(self._memory) > _MEMORY_ENTRIES:
                self._memory.popitem(last=False)
