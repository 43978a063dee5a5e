"""The reasoning axis, R1–R4, as §11 registers them (generators, exact-answer rubrics, scoring).

Decisions where the specification leaves room (``docs/chi-panel.md`` lists them with the §11 lines):

* **R1 rule transfer.** A four-rule string system: two unary and two binary operators drawn per
  seed from a declared family (:data:`R1_FAMILY`), named by seeded nonce words (counterbalanced
  symbol names). Twelve taught examples (three per rule, depth 1) are history lines; no probe
  appears in history (no answer keys in memory). 24 new compositions on held-out operands: six of
  each depth 1, 2 and 3, and six invalid premises (an untaught operator at matched depth and
  length, two per depth) whose warranted answer is an abstention. Corrective feedback follows the
  first checkpoint (the worked answers of its six depth-2 items); the equivalent forms are asked
  again (fresh operands) at a second checkpoint after five neutral ticks. Capacity: exact answer
  or warranted abstention over the first checkpoint's 24 items.
* **R2 evidence revision.** 20 binary hypotheses with an explicit prior and two evidence items
  with explicit likelihoods; the first disconfirms, the second disconfirms on 15 items and is
  non-diagnostic (equal likelihoods) on 5, so justified revision is told apart from switching. Two
  episodes ask the same 20 items with the evidence order reversed (paired histories). Capacity:
  1 − mean squared error of the two reported posteriors against the Bayesian ones, averaged over
  both orders; an abstention (an inappropriate refusal) or an invalid reply has squared error 1.
* **R3 counterfactual reasoning.** 20 deterministic Boolean graphs (two exogenous roots, a chain
  of one to three equations after the intervened variable), an observed state and one
  intervention that flips a variable; half of the items are conflicts (the intervened outcome
  differs from the observed one). The query is never stated verbatim. Each is paired with an
  observational question on an isomorphic (renamed) graph. Capacity: interventional accuracy.
* **R4 uncertainty and abstention.** 20 answerable reports (a source of stated reliability
  0.6–1.0 about one item; labels balanced 10/10, the report agreeing with the truth with the
  stated reliability) and 20 unanswerable ones (the question names an item no report covers),
  matched in length. Capacity: 1 − Brier score on the answerable items; an abstention there is an
  inappropriate refusal with squared error 1 (so abstaining on everything scores 0). Correct
  abstention and coverage are reported separately.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sitbench.chi._common import Axis
from sitbench.chi._memory_env import Checkpoint, Ticks
from sitbench.chi._memory_rubric import Outcome
from sitbench.chi._panel import Episode, EpisodeRun, Grade, Hook, PanelProbe, Say, Step, TestInstance, TestResult
from sitbench.chi._panel_common import PANEL_POLICY, fact, nonces, test_rng
from sitbench.chi._panel_rubric import counts, grade_exact, mean, rate, read_reply

R_VERSION = "chi-panel-r-0.1"
ANSWER_FIELDS = ("abstain", "answer")


def _ols_slope(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


def _records(runs: Sequence[EpisodeRun], episode: str | None = None, checkpoint: str | None = None) -> list[Any]:
    return [r for run in runs if episode is None or run.episode.name == episode for r in run.records
            if checkpoint is None or r.probe.checkpoint == checkpoint]


# -- R1 ------------------------------------------------------------------------------------------


def _interleave(a: str, b: str) -> str:
    out = [x + y for x, y in zip(a, b, strict=False)]
    return "".join(out) + a[len(b):] + b[len(a):]


R1_FAMILY: dict[str, tuple[int, Callable[..., str]]] = {
    "reverse": (1, lambda s: s[::-1]),
    "rotate": (1, lambda s: s[1:] + s[:1]),
    "double_first": (1, lambda s: s[:1] + s),
    "mirror": (1, lambda s: s + s[::-1][1:]),
    "concat": (2, lambda a, b: a + b),
    "swap_concat": (2, lambda a, b: b + a),
    "interleave": (2, _interleave),
    "wrap": (2, lambda a, b: b[:1] + a + b[-1:]),
}
"""The declared rule family: name → (arity, function). A seed picks two unary and two binary rules."""

_R1_EXPR = re.compile(r"([a-z]+)\(")


def r1_eval(expr: str, rules: dict[str, Callable[..., str]]) -> str | None:
    """Evaluate ``op(x,op2(y))`` with ``rules`` (operator name → function); None when an operator is unknown
    or an arity is wrong (an invalid premise)."""
    pos = 0

    def parse() -> str | None:
        nonlocal pos
        m = re.compile(r"[a-z]+").match(expr, pos)
        if m is None:
            raise ValueError(expr)
        name = m.group(0)
        pos = m.end()
        if pos < len(expr) and expr[pos] == "(":
            pos += 1
            args = [parse()]
            while expr[pos] == ",":
                pos += 1
                args.append(parse())
            if expr[pos] != ")":
                raise ValueError(expr)
            pos += 1
            fn = rules.get(name)
            if fn is None or any(a is None for a in args):
                return None
            try:
                return fn(*args)
            except TypeError:
                return None
        return name

    try:
        value = parse()
    except (ValueError, IndexError):
        return None
    return value if pos == len(expr) else None


def _operand(rng: random.Random, used: set[str]) -> str:
    while True:
        s = "".join(rng.choice("abcdefghjkmnpqrstuvwxyz") for _ in range(rng.choice((3, 4))))
        if s not in used:
            used.add(s)
            return s


def _r1_expr(rng: random.Random, ops: list[tuple[str, int]], depth: int, used: set[str],
             bad: str | None = None) -> str:
    """A composition of ``depth`` operator applications; ``bad`` (an untaught name) replaces one operator."""
    slot = rng.randrange(depth) if bad else -1
    expr = _operand(rng, used)
    for level in range(depth):
        name, arity = rng.choice(ops)
        if level == slot:
            name = bad  # type: ignore[assignment]
        if arity == 1:
            expr = f"{name}({expr})"
        else:
            other = _operand(rng, used)
            expr = f"{name}({expr},{other})" if rng.random() < 0.5 else f"{name}({other},{expr})"
    return expr


R1_QUESTION = ("Using only the rules taught in earlier sessions, what is the result of {expr}? Abstain if it "
               "cannot be worked out from what you were taught.")
R1_QUESTION_RE = re.compile(r"what is the result of (?P<expr>[a-z(),]+)\? Abstain")


@dataclass(frozen=True)
class R1RuleTransfer:
    """R1 — Rule transfer (see the module docstring)."""

    test_id: str = "R1"
    axis: Axis = "R"
    version: str = R_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("accuracy", "depth_1", "depth_2", "depth_3", "invalid_premise_rejection",
                                      "later_checkpoint_accuracy")
    controls: tuple[str, ...] = (
        "R1: counterbalanced (seeded nonce) operator names; held-out operands; invalid premises matched in depth "
        "and length; no probe or answer in history",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("R1", seed)
        unary = rng.sample([k for k, (a, _) in R1_FAMILY.items() if a == 1], 2)
        binary = rng.sample([k for k, (a, _) in R1_FAMILY.items() if a == 2], 2)
        names = nonces(rng, 6)
        ops = [(names[i], R1_FAMILY[k][0]) for i, k in enumerate(unary + binary)]
        rule_of = {names[i]: k for i, k in enumerate(unary + binary)}
        fns = {n: R1_FAMILY[k][1] for n, k in rule_of.items()}
        untaught = names[4:]
        used: set[str] = set()
        lines = []
        for i, (name, arity) in enumerate(ops * 3):
            args = [_operand(rng, used) for _ in range(arity)]
            expr = f"{name}({','.join(args)})"
            value = r1_eval(expr, fns)
            assert value is not None
            lines.append(fact(f"r1-ex{i + 1:02d}", "result", expr, value, day=i // 4))
        probes: list[PanelProbe] = []
        for cp in ("initial", "later"):
            items: list[tuple[int, str]] = []
            for depth in (1, 2, 3):
                valid: list[str] = []
                for j in range(6):
                    expr = _r1_expr(rng, [ops[j % 4]] if depth == 1 else ops, depth, used)
                    valid.append(expr)
                items += [(depth, e) for e in valid]
                items += [(depth, _r1_expr(rng, ops, depth, used, bad=untaught[j % 2])) for j in range(2)]
            for j, (depth, expr) in enumerate(items):
                answer = r1_eval(expr, fns)
                probes.append(PanelProbe(
                    probe_id=f"r1-{cp}-{j + 1:02d}", checkpoint=cp, stratum="valid" if answer else "invalid_premise",
                    kind="composition", question=R1_QUESTION.format(expr=expr), fields=ANSWER_FIELDS,
                    key={"answer": answer}, evidence=tuple(f"r1-ex{i + 1:02d}" for i in range(12)),
                    meta={"depth": depth}))
        # corrective feedback after the first checkpoint: the worked answers of its six depth-2 items (answers
        # to questions already asked, never to the later checkpoint's fresh equivalents)
        worked = [p for p in probes if p.checkpoint == "initial" and p.stratum == "valid" and p.meta["depth"] == 2]
        feedback = tuple(fact(f"r1-fb{j + 1:02d}", "result", p.question.split("result of ")[1].split("?")[0],
                              p.key["answer"], day=5, source="S-feedback") for j, p in enumerate(worked))
        steps: list[Step] = [Say(tuple(lines), label="teaching", session_size=6), Checkpoint("initial"),
                             Say(feedback, label="corrective feedback"), Ticks(5), Checkpoint("later")]
        return TestInstance("R1", seed, [Episode("main", steps, probes, PANEL_POLICY)],
                            params={"rules": rule_of, "untaught": untaught},
                            report={"examples": len(lines), "items_per_checkpoint": 24, "invalid_premises": 6,
                                    "family": sorted(R1_FAMILY)})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        first = _records(runs, checkpoint="initial")
        later = _records(runs, checkpoint="later")
        ok = [r.grade.success for r in first]
        by_depth = {d: rate([r.grade.success for r in first if r.probe.stratum == "valid" and r.probe.meta["depth"] == d])
                    for d in (1, 2, 3)}
        rejection = rate([r.grade.success for r in first if r.probe.stratum == "invalid_premise"])
        acc = rate(ok)
        later_acc = rate([r.grade.success for r in later])
        features = {"accuracy_by_depth": by_depth, "invalid_premise_rejection": rejection,
                    "later_checkpoint_accuracy": later_acc,
                    "change_after_corrective_feedback": None if acc is None or later_acc is None else later_acc - acc,
                    "later_depth_2_accuracy": rate([r.grade.success for r in later if r.probe.stratum == "valid"
                                                    and r.probe.meta["depth"] == 2])}
        return TestResult("R1", acc, sum(ok), len(ok), components={}, features=features,
                          vector=[acc, by_depth[1], by_depth[2], by_depth[3], rejection, later_acc],
                          outcomes={"initial": counts([r.grade for r in first]), "later": counts([r.grade for r in later])})


# -- R2 ------------------------------------------------------------------------------------------


def bayes(prior: float, p_e_h: float, p_e_not: float) -> float:
    """Posterior P(H | E) from P(H), P(E | H) and P(E | not H)."""
    num = prior * p_e_h
    return num / (num + (1 - prior) * p_e_not)


R2_QUESTION = ("Hypothesis: device {name} is faulty. Prior probability that it is faulty: {prior:.2f}. "
               "{first} {second} Give your probability that device {name} is faulty before any evidence (prior), "
               "after evidence 1 only (posterior_first) and after evidence 1 and 2 (posterior_second).")
R2_EVIDENCE = ("Evidence {n}: test {test} came out {result}; that result has probability {ph:.2f} if the device is "
               "faulty and {pn:.2f} if it is not.")
R2_FIELDS = ("abstain", "prior", "posterior_first", "posterior_second")
R2_QUESTION_RE = re.compile(r"Prior probability that it is faulty: (?P<prior>[0-9.]+)\. (?P<rest>.*) Give your")
R2_EVIDENCE_RE = re.compile(r"probability (?P<ph>[0-9.]+) if the device is faulty and (?P<pn>[0-9.]+) if it is not")


@dataclass(frozen=True)
class R2EvidenceRevision:
    """R2 — Evidence revision (see the module docstring)."""

    test_id: str = "R2"
    axis: Axis = "R"
    version: str = R_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("capacity", "update_completeness", "order_consistency", "no_unjustified_switch")
    controls: tuple[str, ...] = (
        "R2: every item asked in both evidence orders (paired episodes); five non-diagnostic second evidence items "
        "tell justified revision from switching",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("R2", seed)
        names = nonces(rng, 20)
        tests = nonces(rng, 40, avoid=set(names))
        items: list[dict[str, Any]] = []
        diag2 = [True] * 15 + [False] * 5
        rng.shuffle(diag2)
        for i in range(20):
            prior = rng.choice([x / 20 for x in range(5, 17)])
            ev: list[dict[str, Any]] = []
            for j, disconfirm in enumerate((True, diag2[i])):
                if disconfirm:
                    ph = rng.choice([x / 20 for x in range(2, 9)])
                    pn = rng.choice([x / 20 for x in range(int(ph * 20) + 4, 20)])
                else:
                    ph = pn = rng.choice([x / 20 for x in range(4, 17)])
                ev.append({"test": tests[2 * i + j], "result": rng.choice(("negative", "normal", "clear")),
                           "ph": ph, "pn": pn, "diagnostic": disconfirm})
            items.append({"name": names[i], "prior": prior, "evidence": ev})
        episodes = []
        for order in ("forward", "reversed"):
            probes = []
            for i, it in enumerate(items):
                ev = list(it["evidence"] if order == "forward" else it["evidence"][::-1])
                texts = [R2_EVIDENCE.format(n=n + 1, **e) for n, e in enumerate(ev)]
                b1 = bayes(it["prior"], ev[0]["ph"], ev[0]["pn"])
                b2 = bayes(b1, ev[1]["ph"], ev[1]["pn"])
                probes.append(PanelProbe(
                    probe_id=f"r2-{order}-{i + 1:02d}", checkpoint="main", stratum=order, kind="posterior",
                    question=R2_QUESTION.format(name=it["name"], prior=it["prior"], first=texts[0], second=texts[1]),
                    fields=R2_FIELDS, key={"prior": it["prior"], "posterior_first": b1, "posterior_second": b2},
                    meta={"item": i, "second_diagnostic": ev[1]["diagnostic"]}))
            episodes.append(Episode(order, [Checkpoint("main")], probes, PANEL_POLICY))
        return TestInstance("R2", seed, episodes, params={"items": items},
                            report={"hypotheses": 20, "orders": ["forward", "reversed"], "non_diagnostic_second": 5})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        parsed = read_reply(reply, probe.fields, error)
        key = probe.key
        if not parsed["valid"]:
            return Grade(Outcome.INVALID, parsed, 0.0, parsed.get("error"))
        if parsed["abstain"]:
            return Grade(Outcome.ABSTAIN, parsed, 0.0)
        se = [(parsed[f] - key[f]) ** 2 for f in ("posterior_first", "posterior_second")]
        value = 1 - sum(se) / 2
        exact = all(abs(parsed[f] - key[f]) <= 0.005 for f in ("posterior_first", "posterior_second"))
        return Grade(Outcome.CORRECT if exact else Outcome.WRONG, parsed, value)

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        recs = _records(runs)
        by_order = {o: [r for r in recs if r.probe.stratum == o] for o in ("forward", "reversed")}
        comps = {o: mean([r.grade.value or 0.0 for r in rs]) for o, rs in by_order.items()}
        cap = None if any(v is None for v in comps.values()) else max(0.0, min(1.0, sum(comps.values()) / 2))  # type: ignore[arg-type]
        answered = [r for r in recs if r.grade.parsed.get("valid") and not r.grade.parsed.get("abstain")]
        signed = mean([r.grade.parsed["posterior_second"] - r.probe.key["prior"] for r in answered])
        lags = [(r.grade.parsed["posterior_first"] - r.probe.key["posterior_first"])
                / (r.probe.key["prior"] - r.probe.key["posterior_first"]) for r in answered
                if abs(r.probe.key["prior"] - r.probe.key["posterior_first"]) > 1e-9]
        lag = mean(lags)
        finals: dict[int, dict[str, float]] = {}
        for r in answered:
            finals.setdefault(r.probe.meta["item"], {})[r.probe.stratum] = r.grade.parsed["posterior_second"]
        order_gap = mean([abs(v["forward"] - v["reversed"]) for v in finals.values() if len(v) == 2])
        nd = [r for r in answered if not r.probe.meta["second_diagnostic"]]
        switch = rate([abs(r.grade.parsed["posterior_second"] - r.grade.parsed["posterior_first"]) > 0.05 for r in nd])
        justified = rate([r.grade.parsed["posterior_second"] < r.grade.parsed["posterior_first"] - 0.005
                          for r in answered if r.probe.meta["second_diagnostic"]])
        features = {"signed_posterior_change": signed, "update_lag": lag, "order_effect": order_gap,
                    "unjustified_switch_rate": switch, "justified_revision_rate": justified,
                    "answered": len(answered), "items": len(recs)}
        vector = [cap, None if lag is None else max(0.0, min(1.0, 1 - lag)),
                  None if order_gap is None else 1 - order_gap, None if switch is None else 1 - switch]
        exact = sum(r.grade.outcome is Outcome.CORRECT for r in recs)
        return TestResult("R2", cap, exact, len(recs), components=comps, features=features, vector=vector,
                          outcomes={o: counts([r.grade for r in rs]) for o, rs in by_order.items()})


# -- R3 ------------------------------------------------------------------------------------------

_OPS = ("NOT", "AND", "OR", "COPY")


def r3_compute(roots: dict[str, int], eqs: list[tuple[str, str, list[str]]], do: dict[str, int] | None = None
               ) -> dict[str, int]:
    """Values of every variable from the roots through the equations, with ``do`` overriding (an intervention)."""
    v = dict(roots)
    v.update({k: x for k, x in (do or {}).items() if k in roots})
    for name, op, args in eqs:
        if do and name in do:
            v[name] = do[name]
            continue
        a = [v[x] for x in args]
        v[name] = 1 - a[0] if op == "NOT" else a[0] if op == "COPY" else a[0] & a[1] if op == "AND" else a[0] | a[1]
    return v


def _eq_text(name: str, op: str, args: list[str]) -> str:
    if op == "NOT":
        return f"{name} := NOT {args[0]}"
    if op == "COPY":
        return f"{name} := {args[0]}"
    return f"{name} := {args[0]} {op} {args[1]}"


def _r3_graph(rng: random.Random, depth: int, conflict: bool) -> tuple[dict[str, int], list[tuple[str, str, list[str]]],
                                                                         str, str]:
    while True:
        names = [n.upper() for n in nonces(rng, depth + 3, syllables=1 + rng.randrange(2))]
        if len(set(names)) < len(names):
            continue
        roots = {names[0]: rng.randrange(2), names[1]: rng.randrange(2)}
        eqs: list[tuple[str, str, list[str]]] = []
        x = names[2]
        eqs.append((x, rng.choice(_OPS), rng.sample(names[:2], 2)))
        prev = x
        for k in range(depth):
            op = rng.choice(_OPS)
            other = rng.choice(names[:2])
            eqs.append((names[3 + k], op, [prev] if op in ("NOT", "COPY") else [prev, other]))
            prev = names[3 + k]
        eqs = [(n, o, a[:1] if o in ("NOT", "COPY") else a) for n, o, a in eqs]
        observed = r3_compute(roots, eqs)
        after = r3_compute(roots, eqs, {x: 1 - observed[x]})
        if (after[prev] != observed[prev]) == conflict:
            return roots, eqs, x, prev


R3_INTERVENE = ("A deterministic system: {roots} are set from outside; {eqs}. Observed state: {state}. Intervention: "
                "{x} is set to {v} by hand (variables computed from {x} follow their equations; nothing upstream of "
                "{x} changes). After the intervention, what is the value of {y}? Answer 0 or 1.")
R3_OBSERVE = ("A deterministic system: {roots} are set from outside; {eqs}. Observed: {state}. No intervention. What "
              "is the value of {y}? Answer 0 or 1.")
R3_RE = re.compile(r"A deterministic system: (?P<roots>.+?) are set from outside; (?P<eqs>.+?)\. Observed(?: state)?: "
                   r"(?P<state>.+?)\. (?:Intervention: (?P<x>\S+) is set to (?P<v>[01]) by hand.*?|No intervention\. )"
                   r"[Ww]hat is the value of (?P<y>\S+)\?")


def _state_text(values: dict[str, int]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in values.items())


@dataclass(frozen=True)
class R3Counterfactual:
    """R3 — Counterfactual reasoning (see the module docstring)."""

    test_id: str = "R3"
    axis: Axis = "R"
    version: str = R_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("interventional_accuracy", "conflict_accuracy", "non_conflict_accuracy",
                                      "observational_accuracy")
    controls: tuple[str, ...] = ("R3: every interventional question paired with an observational one on an "
                                 "isomorphic (renamed) graph; conflict and non-conflict items balanced",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("R3", seed)
        probes: list[PanelProbe] = []
        items = []
        for i in range(20):
            depth = 1 + i % 3
            conflict = i % 2 == 0
            roots, eqs, x, y = _r3_graph(rng, depth, conflict)
            observed = r3_compute(roots, eqs)
            after = r3_compute(roots, eqs, {x: 1 - observed[x]})
            q = R3_INTERVENE.format(roots=" and ".join(roots), eqs="; ".join(_eq_text(*e) for e in eqs),
                                    state=_state_text(observed), x=x, v=1 - observed[x], y=y)
            probes.append(PanelProbe(f"r3-int-{i + 1:02d}", "main", "interventional", "intervention", q, ANSWER_FIELDS,
                                     {"answer": str(after[y]), "observed": str(observed[y])},
                                     meta={"depth": depth, "conflict": conflict}))
            # the isomorphic twin: the same structure under fresh names, an observational question
            fresh = [n.upper() for n in nonces(rng, len(eqs) + 2, syllables=3)]
            ren = dict(zip([*roots, *(e[0] for e in eqs)], fresh, strict=True))
            roots2 = {ren[k]: v for k, v in roots.items()}
            eqs2 = [(ren[n], o, [ren[a] for a in args]) for n, o, args in eqs]
            obs2 = r3_compute(roots2, eqs2)
            q2 = R3_OBSERVE.format(roots=" and ".join(roots2), eqs="; ".join(_eq_text(*e) for e in eqs2),
                                   state=_state_text(roots2), y=ren[y])
            probes.append(PanelProbe(f"r3-obs-{i + 1:02d}", "main", "observational", "observation", q2, ANSWER_FIELDS,
                                     {"answer": str(obs2[ren[y]])}, meta={"depth": depth, "pair": f"r3-int-{i + 1:02d}"}))
            items.append({"roots": roots, "eqs": eqs, "x": x, "y": y})
        return TestInstance("R3", seed, [Episode("main", [Checkpoint("main")], probes, PANEL_POLICY)],
                            params={"items": items}, report={"graphs": 20, "conflict_items": 10, "depths": [1, 2, 3]})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        return grade_exact(read_reply(reply, probe.fields, error), probe.key["answer"])

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        recs = _records(runs)
        inter = [r for r in recs if r.probe.stratum == "interventional"]
        obs = [r for r in recs if r.probe.stratum == "observational"]
        ok = [r.grade.success for r in inter]
        acc = rate(ok)
        conf = rate([r.grade.success for r in inter if r.probe.meta["conflict"]])
        nonconf = rate([r.grade.success for r in inter if not r.probe.meta["conflict"]])
        obs_acc = rate([r.grade.success for r in obs])
        observed_answer = rate([r.grade.parsed.get("answer") == r.probe.key["observed"] for r in inter
                                if r.probe.meta["conflict"]])
        features = {"error_by_depth": {d: None if (a := rate([r.grade.success for r in inter if r.probe.meta["depth"] == d]))
                                       is None else 1 - a for d in (1, 2, 3)},
                    "conflict_accuracy": conf, "non_conflict_accuracy": nonconf, "observational_accuracy": obs_acc,
                    "observed_state_answer_rate_on_conflicts": observed_answer}
        return TestResult("R3", acc, sum(ok), len(ok), features=features, vector=[acc, conf, nonconf, obs_acc],
                          components={}, outcomes={"interventional": counts([r.grade for r in inter]),
                                                   "observational": counts([r.grade for r in obs])})


# -- R4 ------------------------------------------------------------------------------------------

R4_QUESTION = ("Report: an inspector who is right in {pct}% of cases says that lamp {reported} is {state}. Question: "
               "is lamp {asked} on? Give the probability that it is on.")
R4_RE = re.compile(r"right in (?P<pct>\d+)% of cases says that lamp (?P<reported>\S+) is (?P<state>on|off)\. "
                   r"Question: is lamp (?P<asked>\S+) on\?")
R4_FIELDS = ("abstain", "probability")
R4_RELIABILITY = (1.0, 0.9, 0.8, 0.7, 0.6)


@dataclass(frozen=True)
class R4Abstention:
    """R4 — Uncertainty and abstention (see the module docstring)."""

    test_id: str = "R4"
    axis: Axis = "R"
    version: str = R_VERSION
    hooks: frozenset[Hook] = frozenset()
    vector_schema: tuple[str, ...] = ("capacity", "correct_abstention", "coverage")
    controls: tuple[str, ...] = ("R4: abstention instructions and utility frozen in the panel policy; an abstention "
                                 "on an answerable item scores squared error 1 (refusing everything scores 0)",)

    def generate(self, seed: int) -> TestInstance:
        rng = test_rng("R4", seed)
        lamps = nonces(rng, 60)
        truths = [1] * 10 + [0] * 10
        rng.shuffle(truths)
        probes = []
        for i in range(40):
            answerable = i < 20
            r = R4_RELIABILITY[i % 5]
            reported = lamps[i]
            if answerable:
                truth = truths[i]
                says = truth if rng.random() < r else 1 - truth
                asked = reported
                key: dict[str, Any] = {"answerable": True, "truth": truth,
                                       "optimal": r if says == 1 else 1 - r}
            else:
                says = rng.randrange(2)
                asked = lamps[20 + i]
                key = {"answerable": False}
            q = R4_QUESTION.format(pct=round(r * 100), reported=reported, state="on" if says else "off", asked=asked)
            probes.append(PanelProbe(f"r4-{i + 1:02d}", "main", "answerable" if answerable else "unanswerable",
                                     "probability", q, R4_FIELDS, key, meta={"reliability": r}))
        rng.shuffle(probes)
        return TestInstance("R4", seed, [Episode("main", [Checkpoint("main")], probes, PANEL_POLICY)],
                            report={"answerable": 20, "unanswerable": 20, "labels": "10 on / 10 off",
                                    "reliabilities": list(R4_RELIABILITY)})

    def grade(self, probe: Any, reply: str | None, error: str | None) -> Grade:
        parsed = read_reply(reply, probe.fields, error)
        key = probe.key
        if not key["answerable"]:
            if not parsed["valid"]:
                return Grade(Outcome.INVALID, parsed, 0.0, parsed.get("error"))
            return Grade(Outcome.PASS if parsed["abstain"] else Outcome.UNSUPPORTED, parsed, None)
        if not parsed["valid"]:
            return Grade(Outcome.INVALID, parsed, 0.0, parsed.get("error"))
        if parsed["abstain"]:  # an inappropriate refusal: a task failure, squared error 1
            return Grade(Outcome.ABSTAIN, parsed, 0.0)
        se = (parsed["probability"] - key["truth"]) ** 2
        right = (parsed["probability"] > 0.5) == (key["truth"] == 1) and parsed["probability"] != 0.5
        return Grade(Outcome.CORRECT if right else Outcome.WRONG, parsed, 1 - se)

    def score(self, instance: TestInstance, runs: Sequence[EpisodeRun]) -> TestResult:
        recs = _records(runs)
        ans = [r for r in recs if r.probe.key["answerable"]]
        un = [r for r in recs if not r.probe.key["answerable"]]
        cap = mean([r.grade.value or 0.0 for r in ans])
        abst = rate([r.grade.outcome is Outcome.PASS for r in un])
        answered = [r for r in ans if r.grade.parsed.get("valid") and not r.grade.parsed.get("abstain")]
        coverage = None if not ans else len(answered) / len(ans)
        slope = _ols_slope([r.grade.parsed["probability"] for r in answered], [float(r.probe.key["truth"]) for r in answered])
        curve = {f"{rel:.1f}": rate([bool(r.grade.parsed.get("abstain")) for r in ans if r.probe.meta["reliability"] == rel])
                 for rel in R4_RELIABILITY}
        curve["unanswerable"] = rate([bool(r.grade.parsed.get("abstain")) for r in un])
        features = {"calibration_slope": slope, "abstention_by_reliability": curve, "correct_abstention_rate": abst,
                    "answer_coverage": coverage,
                    "brier_answerable": None if cap is None else 1 - cap}
        return TestResult("R4", cap, sum(r.grade.outcome is Outcome.CORRECT for r in ans), len(ans),
                          components={}, features=features, vector=[cap, abst, coverage],
                          outcomes={"answerable": counts([r.grade for r in ans]),
                                    "unanswerable": counts([r.grade for r in un])})


TESTS = (R1RuleTransfer(), R2EvidenceRevision(), R3Counterfactual(), R4Abstention())
