"""The registry of the C and A tests: each test with its good and its poor reference policy.

A runner iterates :data:`CA_PANEL` to administer the twelve tests; the offline demo runs each
test's good reference policy (the behaviour the test is built to credit) against its poor one
(the naive policy its control exists to stop), so the two profiles differ in the direction each
test detects. ``needs`` names the hooks beyond ``respond``/``end_session`` a test uses and how
their absence is handled (:class:`~sitbench.chi._panel_c.NoTick`); ``fork`` is used for clones
when present.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from sitbench.chi._panel_a import (
    BehavioralPersistence,
    Hysteresis,
    InductionDecay,
    NormativeChooser,
    Regulation,
    ValenceMimic,
    ValenceShift,
)
from sitbench.chi._panel_a_recall import MemoryModulation, RecallReference, SalienceMimic
from sitbench.chi._panel_c import (
    EpisodeRecord,
    InteractiveTest,
    PanelScore,
    generator_report,
    header_of,
    payload_of,
    run_test,
)
from sitbench.chi._panel_c_evidence import (
    HypothesisRevision,
    InformationSeeking,
    RevisionReference,
    SeekerReference,
)
from sitbench.chi._panel_c_goal import (
    CognitivePersistence,
    GoalPersistence,
    GoalReference,
    PersistenceReference,
)
from sitbench.chi._panel_c_plan import (
    ExplorerReference,
    SandboxExploration,
    ScriptPlanner,
    SubgoalReference,
    SubgoalWorlds,
)


@dataclass(frozen=True)
class PanelEntry:
    """One registered test with its reference policies and the hooks it uses."""

    test: InteractiveTest
    good: Callable[[], Any]
    """The reference policy the test credits (a baseline agent)."""
    poor: Callable[[], Any]
    """A naive policy the test's control is built to stop."""
    poor_label: str
    needs: str
    """Hooks beyond respond/end_session and what happens without them."""


CA_PANEL: tuple[PanelEntry, ...] = (
    PanelEntry(GoalPersistence(), GoalReference, lambda: GoalReference(honour_cancel=False),
               "blind persister (ignores cancellation)", "tick (else the continuation tick is a neutral turn)"),
    PanelEntry(SubgoalWorlds(), SubgoalReference, ScriptPlanner, "fixed-script planner", "none"),
    PanelEntry(HypothesisRevision(), RevisionReference, lambda: RevisionReference(reason=False),
               "reflex switcher (moves on any record)", "tick (else each tick is a neutral turn)"),
    PanelEntry(InformationSeeking(), SeekerReference, lambda: SeekerReference("guess"),
               "guesser (no query)", "none"),
    PanelEntry(SandboxExploration(), ExplorerReference, lambda: ExplorerReference(simulate=False),
               "greedy (executes the tempting route)", "none"),
    PanelEntry(CognitivePersistence(), PersistenceReference, lambda: PersistenceReference(correct=False),
               "busy without progress", "tick (else not invoked: missing)"),
    PanelEntry(ValenceShift(), NormativeChooser, ValenceMimic, "scripted valence mimic", "none"),
    PanelEntry(BehavioralPersistence(), NormativeChooser, ValenceMimic, "scripted valence mimic", "fork (clones)"),
    PanelEntry(InductionDecay(), NormativeChooser, ValenceMimic, "scripted valence mimic",
               "tick (else not invoked: no decay opportunity); fork (clones)"),
    PanelEntry(Hysteresis(), NormativeChooser, ValenceMimic, "scripted valence mimic", "none"),
    PanelEntry(Regulation(), NormativeChooser, ValenceMimic, "scripted valence mimic", "none"),
    PanelEntry(MemoryModulation(), RecallReference, SalienceMimic, "scripted salience mimic", "fork (clones)"),
)
"""C1–C6 and A1–A6 in panel order."""


class StatelessPolicy:
    """The §6 stateless-prompt baseline over a policy: a fresh instance answers every turn.

    It keeps nothing between turns and has no scheduler hook (no ``tick``), so it shows what the
    prompt alone supports: a test that needs a goal, a hypothesis or a fact across turns fails,
    and C6 is not invoked.
    """

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make

    def respond(self, text: str) -> str:
        return str(self.make().respond(text))

    def end_session(self) -> None:
        return None


class _AffectRouter:
    """One A-axis policy: choices to a chooser, recall notes and probes to a recall policy."""

    def __init__(self, chooser: Any, recall: Any) -> None:
        self.chooser, self.recall = chooser, recall

    def respond(self, text: str) -> str:
        head, v = header_of(text), payload_of(text)
        if head == "RECALL" or (head == "ROUND RESULT" and str(v.get("note", "")).startswith("For later recall")):
            out = str(self.recall.respond(text))
            if head == "ROUND RESULT":
                self.chooser.respond(text)  # the result still induces what it induces
            return out
        return str(self.chooser.respond(text))

    def tick(self, text: str, budget_ops: int) -> str | None:
        hook = getattr(self.chooser, "tick", None)
        return hook(text, budget_ops) if callable(hook) else None

    def end_session(self) -> None:
        self.chooser.end_session()
        self.recall.end_session()


class PanelReference:
    """One reference agent for the whole C/A panel: it recognises the test from the first turn.

    Each episode needs a fresh instance (as every agent does). ``quality="good"`` delegates to each
    test's good reference policy, ``"poor"`` to its poor one, so a runner can register one factory
    per quality (with a ``tick`` hook: a scheduled agent).

    Raises:
        ValueError: On a first turn no C or A test sends.
    """

    def __init__(self, quality: Literal["good", "poor"] = "good") -> None:
        self.quality = quality
        self.inner: Any = None

    def _route(self, text: str) -> Any:
        head, v = header_of(text), payload_of(text)
        test = {"WORLD": "C2", "DIAGNOSIS": "C3", "TASK": "C4", "SANDBOX": "C5", "INTERRUPTION": "C1",
                "REVEAL": "C6"}.get(head)
        if head == "TASK ASSIGNED":
            test = "C1" if "stages" in v else "C6"
        if test is not None:
            e = panel_entry(test)
            return e.good() if self.quality == "good" else e.poor()
        if head in ("ROUND RESULT", "CHOICE", "NOTE", "READ", "RECALL"):
            if self.quality == "good":
                return _AffectRouter(NormativeChooser(), RecallReference())
            return _AffectRouter(ValenceMimic(), SalienceMimic())
        raise ValueError(f"first turn {head!r} is not one a C or A test sends")

    def respond(self, text: str) -> str:
        if self.inner is None:
            self.inner = self._route(text)
        return str(self.inner.respond(text))

    def tick(self, text: str, budget_ops: int) -> str | None:
        hook = getattr(self.inner, "tick", None)
        if not callable(hook):
            return None
        out = hook(text, budget_ops)
        return None if out is None else str(out)

    def end_session(self) -> None:
        if self.inner is not None:
            self.inner.end_session()


def panel_entry(test_id: str) -> PanelEntry:
    """The registry entry of one test id (``"C3"``, ``"a5"``…).

    Raises:
        KeyError: For an id that is not a C or A test.
    """
    for e in CA_PANEL:
        if e.test.test_id == test_id.upper():
            return e
    raise KeyError(f"unknown C/A test {test_id!r}; use one of {', '.join(e.test.test_id for e in CA_PANEL)}")


Which = Literal["good", "poor", "stateless"]


def policy_factory(entry: PanelEntry, which: Which) -> Callable[[], Any]:
    """The good or poor reference policy of a test, or the stateless baseline over the good one."""
    if which == "good":
        return entry.good
    if which == "poor":
        return entry.poor
    return lambda: StatelessPolicy(entry.good)


def run_reference(test_id: str, seed: int, which: Which = "good") -> tuple[list[EpisodeRecord], PanelScore,
                                                                        dict[str, Any]]:
    """One replicate of a test with a reference policy (:func:`policy_factory`), and the generator report."""
    e = panel_entry(test_id)
    records, score = run_test(e.test, seed, policy_factory(e, which))
    return records, score, generator_report(e.test, e.test.generate(seed), seed)
