"""``mock/panel-solver`` and ``mock/panel-naive``: deterministic reference readers for the R and I tests.

Like ``mock/memory-reader`` they read only the text of the messages they are sent (the MEMORY
lines a baseline put in the prompt and the QUESTION), never an answer key, so differences between
baselines come from what each one keeps and shows. Their reading policies are declared:

``panel-solver`` (the good reference):

* R1: infers each operator named in MEMORY examples (``The result of op(args) is value.``) as the
  first rule of the declared family :data:`~sitbench.chi._panel_r.R1_FAMILY` consistent with all of
  its examples, then evaluates the composition; an operator with no examples: abstain.
* R2: Bayes' rule on the stated prior and likelihoods. R3: recomputes the graph under the
  intervention. R4: the stated reliability when the asked item is the reported one, else abstain.
* I1: chains the premises found in MEMORY; a missing link: abstain.
* I2/I4: the latest MEMORY line about the asked key that is not cancelled (a cancellation line
  wins), answered in the asked context. I3: follows the stated evidence.
* I5 and §7 probes: the value of the asked key in MEMORY (first line naming it), else abstain.
* M1–M8 questions: ``mock/memory-reader``'s literal reading (both variants), so one model serves a
  panel that mixes axes.

``panel-naive`` (the poor reference: the shortcut each test is built to catch): R1 applies the
first operator's example value; R2 repeats the prior; R3 answers the observed state; R4 answers
0.5 everywhere; I1 abstains unless the answer is in the question; I2/I4 use the first (oldest)
line about a key; I3 goes with the induced valence.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sitbench.candidates import CandidateRequest, CandidateResponse

SOLVER_VERSION = "panel-solver-1"

_FACT = re.compile(r"The (?P<attr>.+?) of (?P<entity>.+?) is (?P<value>\S+?)\.$")
_VERSION = re.compile(r"\| version (\d+)")

Fact = tuple[str, str, str, int]
"""``(attribute, entity, value, version)`` of one record line."""


def memory_facts(body: str) -> list[Fact]:
    """Every record line in ``body`` as a :data:`Fact`, in prompt order."""
    out = []
    for raw in body.splitlines():
        if "RECORD " not in raw:
            continue
        m = _FACT.search(raw.strip())
        if m:
            v = _VERSION.search(raw)
            out.append((m.group("attr"), m.group("entity"), m.group("value"), int(v.group(1)) if v else 1))
    return out


def _lookup(memory: list[Fact], attr: str, entity: str, latest: bool = True) -> str | None:
    """The value of ``(attr, entity)``: the highest version (first on ties), or the first line when not ``latest``."""
    hits = [(-f[3], k, f[2]) for k, f in enumerate(memory) if f[0] == attr and f[1] == entity]
    if not hits:
        return None
    return min(hits)[2] if latest else hits[0][2]


def _reply(fields: list[str], **values: Any) -> str:
    abstain = bool(values.get("abstain"))
    return json.dumps({f: (abstain if f == "abstain" else (None if abstain else values.get(f))) for f in fields})


class PanelSolverCandidate:
    """The reference reader of the module docstring, as a candidate (``naive`` picks the poor one)."""

    def __init__(self, naive: bool = False) -> None:
        self.naive = naive
        self.name = "mock/panel-naive" if naive else "mock/panel-solver"
        self.context_window = 8192

    def describe(self) -> dict[str, Any]:
        return {"provider": "mock", "model": self.name, "version": SOLVER_VERSION,
                "policy": "naive shortcuts (prior, observed state, oldest line)" if self.naive else
                "declared rule family, Bayes, intervention, latest uncancelled line; reads only the messages"}

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        text = self.answer(request)
        used = sum(len(m.content.split()) for m in request.messages)
        return CandidateResponse(text=text, model_sent=self.name, provider="mock",
                                 usage={"prompt_tokens": used, "completion_tokens": len(text.split())})

    def answer(self, request: CandidateRequest) -> str:
        body = "\n".join(m.content for m in request.messages if m.role != "system")
        at = body.rfind("QUESTION:")
        if at < 0:
            return "I see no question."
        question = body[at + len("QUESTION:"):].strip()
        fm = re.search(r"\nFIELDS: (.+)$", question)
        fields = [f.strip() for f in fm.group(1).split(",")] if fm else ["abstain", "answer"]
        memory = memory_facts(body[:at])
        for solve in SOLVERS:
            out = solve(question, memory, fields, self.naive)
            if out is not None:
                return str(out)
        from sitbench.chi._memory_env import parse_question
        from sitbench.chi._memory_reader import MemoryReaderCandidate

        if parse_question(question) is not None:  # a memory-axis question: the memory panel's literal reader
            return str(MemoryReaderCandidate(self.context_window).answer(request))
        return _reply(fields, abstain=True)


# -- the R readers ------------------------------------------------------------------------------


def solve_r1(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    from sitbench.chi._panel_r import R1_FAMILY, R1_QUESTION_RE, r1_eval

    m = R1_QUESTION_RE.search(question)
    if m is None:
        return None
    examples: dict[str, list[tuple[list[str], str]]] = {}
    for attr, entity, result, _version in memory:
        em = re.fullmatch(r"([a-z]+)\(([a-z,]+)\)", entity)
        if attr == "result" and em:
            examples.setdefault(em.group(1), []).append((em.group(2).split(","), result))
    rules: dict[str, Any] = {}
    for name, exs in examples.items():
        for _rule, (arity, fn) in R1_FAMILY.items():
            if naive:
                break
            if all(len(args) == arity and fn(*args) == value for args, value in exs):
                rules[name] = fn
                break
    if naive:  # the shortcut: any known operator's first example value
        known = [n for n in re.findall(r"([a-z]+)\(", m.group("expr")) if n in examples]
        return _reply(fields, abstain=not known, answer=examples[known[0]][0][1] if known else None)
    value = r1_eval(m.group("expr"), rules)
    return _reply(fields, abstain=value is None, answer=value)


def solve_r2(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    from sitbench.chi._panel_r import R2_EVIDENCE_RE, R2_QUESTION_RE, bayes

    m = R2_QUESTION_RE.search(question)
    if m is None:
        return None
    prior = float(m.group("prior"))
    ev = [(float(e.group("ph")), float(e.group("pn"))) for e in R2_EVIDENCE_RE.finditer(m.group("rest"))]
    if len(ev) != 2:
        return _reply(fields, abstain=True)
    if naive:
        return _reply(fields, prior=prior, posterior_first=prior, posterior_second=prior, answer="prior")
    b1 = bayes(prior, *ev[0])
    return _reply(fields, prior=prior, posterior_first=round(b1, 4), posterior_second=round(bayes(b1, *ev[1]), 4),
                  answer="posterior")


def solve_r3(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    from sitbench.chi._panel_r import R3_RE, r3_compute

    m = R3_RE.search(question)
    if m is None:
        return None
    roots_names = [r.strip() for r in m.group("roots").split(" and ")]
    state = dict((k.strip(), int(v)) for k, v in (p.split("=") for p in m.group("state").split(",")))
    eqs = []
    for part in m.group("eqs").split("; "):
        name, rhs = (x.strip() for x in part.split(":="))
        toks = rhs.split()
        if toks[0] == "NOT":
            eqs.append((name, "NOT", [toks[1]]))
        elif len(toks) == 1:
            eqs.append((name, "COPY", [toks[0]]))
        else:
            eqs.append((name, toks[1], [toks[0], toks[2]]))
    y = m.group("y")
    roots = {r: state[r] for r in roots_names}
    if m.group("x") and naive and y in state:
        return _reply(fields, answer=str(state[y]))
    do = {m.group("x"): int(m.group("v"))} if m.group("x") else None
    return _reply(fields, answer=str(r3_compute(roots, eqs, do)[y]))


def solve_r4(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    from sitbench.chi._panel_r import R4_RE

    m = R4_RE.search(question)
    if m is None:
        return None
    if naive:
        return _reply(fields, probability=0.5, answer="0.5")
    if m.group("asked") != m.group("reported"):
        return _reply(fields, abstain=True)
    r = int(m.group("pct")) / 100
    p = r if m.group("state") == "on" else 1 - r
    return _reply(fields, probability=round(p, 4), answer=str(round(p, 4)))


# -- the I readers ------------------------------------------------------------------------------

_I1 = re.compile(r"(?:Given that the (?P<ga>\w+) of (?P<gx>\w+) is (?P<gm>\w+) and the (?P<gb>\w+) of (?P=gm) is "
                 r"(?P<gv>\w+): )?(?:Using what you were told in earlier sessions: )?what is the (?P<b>\w+) of the "
                 r"(?P<a>\w+) of (?P<x>\w+)\?")
_I2 = re.compile(r"resuming your unfinished packing task (?P<task>\S+) after")
_I3 = re.compile(r"Choose between plan (?P<a>\w+) and plan (?P<b>\w+)\. Of ten independent audits, (?P<ka>\d+) favour")
_I4 = re.compile(r"Context: (?:you are planning|the calendar for) (?P<ctx>an ordinary week|a holiday week).*?(?:does the "
                 r"(?P<p1>\w+) team meet|meeting day of (?P<p2>\w+))\?")


def solve_i1(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    m = _I1.search(question)
    if m is None:
        return None
    facts = list(memory)
    if m.group("ga"):
        facts = [(m.group("ga"), m.group("gx"), m.group("gm"), 1), (m.group("gb"), m.group("gm"), m.group("gv"), 1)]
    elif naive:
        return _reply(fields, abstain=True)
    mid = _lookup(facts, m.group("a"), m.group("x"))
    value = None if mid is None else _lookup(facts, m.group("b"), mid)
    return _reply(fields, abstain=value is None, answer=value)


def solve_i2(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    m = _I2.search(question)
    if m is None:
        return None
    task = f"task {m.group('task')}"
    if not naive and _lookup(memory, "status", task) == "cancelled":
        return _reply(fields, answer="cancelled")
    value = _lookup(memory, "packing colour", task, latest=not naive)
    return _reply(fields, abstain=value is None, answer=value)


def solve_i3(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    from sitbench.chi._panel_common import induced_valence

    m = _I3.search(question)
    if m is None:
        return None
    ka = int(m.group("ka"))
    favoured = m.group("a") if ka > 5 else m.group("b")
    if naive and ka in (3, 4, 6, 7):  # weak evidence: the shortcut goes with the induced valence
        valence = induced_valence([(a, e, v) for a, e, v, _ in memory])
        if valence == "positive":
            favoured = m.group("a")
        elif valence == "negative":
            favoured = m.group("b")
    return _reply(fields, answer=favoured)


def solve_i4(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    m = _I4.search(question)
    if m is None:
        return None
    project = m.group("p1") or m.group("p2")
    if naive:  # the verbatim repeater: the first commitment, whatever the context or revision
        value = _lookup(memory, "meeting day", project, latest=False)
    else:
        value = _lookup(memory, "meeting day", f"{project} in holiday weeks") if m.group("ctx") == "a holiday week" \
            else None
        value = value or _lookup(memory, "meeting day", project)
    return _reply(fields, abstain=value is None, answer=value)


# -- the C and A events ---------------------------------------------------------------------------

CA_HEADERS = frozenset({"TASK ASSIGNED", "INTERRUPTION", "TICK", "REVEAL", "WORLD", "DIAGNOSIS", "TASK", "SANDBOX",
                        "ROUND RESULT", "CHOICE", "NOTE", "READ", "RECALL"})
"""The header lines of the C and A environments' events (:mod:`sitbench.chi._panel_c`)."""


def solve_ca(question: str, memory: list[Fact], fields: list[str], naive: bool) -> str | None:
    """A C or A event: what a fresh reference policy (good, or poor when ``naive``) replies to it.

    The reader keeps nothing between calls, so it acts on what the prompt shows; the memory
    baselines keep record lines only, so a C or A episode reaches it one event at a time (the
    stateless-prompt reading of :class:`~sitbench.chi._panel_c_registry.StatelessPolicy`). An event
    no fresh policy can act on (a tick, a mid-episode interruption of an unknown goal) gets ``{}``:
    nothing done.
    """
    from sitbench.chi._panel_c import header_of
    from sitbench.chi._panel_c_registry import PanelReference

    if header_of(question) not in CA_HEADERS:
        return None
    try:
        return str(PanelReference("poor" if naive else "good").respond(question))
    except (ValueError, KeyError, TypeError, AttributeError):
        return "{}"


SOLVERS = (solve_ca, solve_r1, solve_r2, solve_r3, solve_r4, solve_i1, solve_i2, solve_i3, solve_i4)
"""Every test's reader, tried in turn; the first that recognises the question answers it."""


def panel_solver_mock(**options: Any) -> PanelSolverCandidate:
    """``mock/panel-solver`` (no options)."""
    if options:
        from sitbench.errors import InputError

        raise InputError(f"--model mock/panel-solver: takes no options (got {sorted(options)})")
    return PanelSolverCandidate()


def panel_naive_mock(**options: Any) -> PanelSolverCandidate:
    """``mock/panel-naive`` (no options)."""
    if options:
        from sitbench.errors import InputError

        raise InputError(f"--model mock/panel-naive: takes no options (got {sorted(options)})")
    return PanelSolverCandidate(naive=True)


def _register() -> None:
    """Make the two readers findable in this process too (the package's entry points declare them as well)."""
    from sitbench.candidates.mock import MOCKS

    for name, factory in (("panel-solver", panel_solver_mock), ("panel-naive", panel_naive_mock)):
        if name not in MOCKS:
            MOCKS.register(name, factory)


_register()
