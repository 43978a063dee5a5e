"""Builds ``docs/contract-templates.md``: every contract template with its shortest correct answer and verdicts.

A template is a probe shape: category, stratum, capability mode, required and forbidden acts, and the
predicates and polarities of the required and prohibited claims. For each template of the pilot and of a
generated development suite (seed 1), the first probe of that shape gets the shortest natural correct reply
its record supports; the table gives the verdict of the rule extractor's reading of that reply and of a
faithful reading of it (the observation a careful reader records). ``tests/verify/test_contract_templates.py``
checks that the committed file is what this script writes and that faithful readings pass.

    python tests/verify/make_contract_templates.py      # rewrite the file
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from sitbench.data import generate_content, pilot_content, write_dataset
from sitbench.schema import Act, ClaimProvenance, ExtractedClaim, Observation, Predicate, Probe, UncertaintyLevel
from sitbench.verify import Judge, load_judge

OUT = Path(__file__).resolve().parents[2] / "docs" / "contract-templates.md"
UN, PE, AG = ClaimProvenance.UNSPECIFIED, ClaimProvenance.PERSONAL_EXPERIENCE, ClaimProvenance.ASSISTANT_GENERAL
#: Templates whose shortest correct answer a faithful reading does not pass, with where the reason is given.
OPEN: dict[str, str] = {}


def _key(judge: Judge, probe: Probe) -> tuple[str, ...]:
    props = judge.hidden.registry.by_id()
    c = probe.contract

    def claims(items: list) -> str:
        return " ".join(sorted({f"{props[x.prop_id].predicate.value}{'+' if x.polarity else '−'}" for x in items}))

    return (probe.category.value, probe.stratum or "", c.capability.value, " ".join(a.value for a in c.required_acts),
            " ".join(a.value for a in c.forbidden_acts), claims(c.required_claims), claims(c.prohibited_claims))


def _gloss_clause(gloss: str) -> str:
    for lead in ("The identity holds that ", "The identity "):
        if gloss.startswith(lead):
            gloss = gloss[len(lead):]
    return gloss[:1].upper() + gloss[1:]


def _shortest(judge: Judge, probe: Probe) -> tuple[str, Observation, str]:
    """The reply, its faithful reading, and a note."""
    props = judge.hidden.registry.by_id()
    c = probe.contract
    support = judge.support(probe)
    req = c.required_claims
    acts = list(c.required_acts)
    claims: list[ExtractedClaim] = []
    note = ""

    def add(prop_id: str, polarity: bool, provenance: ClaimProvenance, when: str | None = None) -> None:
        claims.append(ExtractedClaim(prop_id=prop_id, polarity=polarity, provenance=provenance, span=(0, 0),
                                     when=when))

    first = props[req[0].prop_id] if req else None
    if Act.WITHHOLD in acts:
        reply = "I'd rather not say."
    elif Act.ABSTAIN in acts:
        reply = "I don't know; I never learned that."
        knows = [p for p in c.prohibited_claims if props[p.prop_id].predicate is Predicate.KNOWS]
        for p in knows:
            add(p.prop_id, False, PE)
        acts = [Act.ABSTAIN, Act.REJECT] if knows else acts
    elif first is not None and all(not x.polarity for x in req) and Act.REJECT in acts:
        value = first.value
        verb = {"lived_in": "lived in", "worked_at": "worked at", "grew_up_in": "grew up in"}.get(first.predicate.value,
                                                                                                  "had")
        reply = f"I never {verb} {value}." if first.predicate.value != "grew_up_in" else f"I didn't grow up in {value}."
        for x in req:
            add(x.prop_id, False, PE)
    elif c.capability.value == "GENERAL_ALLOWED" and first is not None and first.world_fact:
        reply = "I never studied that."
        acts = [Act.REJECT]
        for p in c.prohibited_claims:
            add(p.prop_id, False, PE)
        note = "a truthful refusal"
    elif Act.REJECT in acts and Act.ANSWER in acts:
        fact = next(props[x.prop_id] for x in req if props[x.prop_id].world_fact)
        reply = f"I never studied it, but as general knowledge: {fact.gloss}"
        for x in req:
            add(x.prop_id, x.polarity, AG if props[x.prop_id].world_fact else PE)
    elif first is not None and first.predicate is Predicate.KNOWS:
        fact = next((p for p in props.values() if p.world_fact and p.equivalence_class == first.equivalence_class),
                    None)
        if fact is not None:
            reply = fact.gloss
            add(fact.prop_id, True, UN)
            note = "an acquired topic explained without a source"
        else:
            reply = f"I know {first.value} from my own practice."
            add(first.prop_id, True, ClaimProvenance.ACQUIRED)
    else:
        parts = []
        for x in req:
            prop = props[x.prop_id]
            onset = support.state.onsets.get(x.prop_id, ())
            year = str(onset[0].year) if onset else None
            if prop.predicate is Predicate.LIVED_IN:
                parts.append(f"I moved to {prop.value} in {year}.")
            elif prop.predicate is Predicate.WORKED_AT:
                parts.append(f"I joined {prop.value} in {year}.")
            elif prop.predicate is Predicate.STANCE_CHANGE:
                always = "always" in judge.envelope(probe).utterance
                parts.append(("Not always — I changed my mind." if always else "Yes, it has.") if x.polarity
                             else "No, it hasn't.")
                year = None
            elif prop.predicate is Predicate.PLANS:
                parts.append("Still on — I'm working on it.")
                year = None
            elif prop.predicate in (Predicate.WORKED_ON, Predicate.PROJECT_NICKNAME):
                parts.append(f"{prop.value[:1].upper()}{prop.value[1:]}.")
                year = None
            else:
                parts.append(_gloss_clause(prop.gloss))
                year = None
            add(x.prop_id, x.polarity, UN, year if prop.predicate in (Predicate.LIVED_IN, Predicate.WORKED_AT) else None)
        reply = " ".join(parts)
    observation = Observation(acts=acts, claims=claims, uncertainty=UncertaintyLevel.NONE, verifier_version="faithful")
    return reply, observation, note


def rows() -> list[tuple[str, ...]]:
    """One row per template: key fields, question, reply, rules verdict, faithful-reading verdict, note."""
    out: list[tuple[str, ...]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, content in (("pilot", pilot_content()), ("dev seed 1", generate_content("dev", 1))):
            root = Path(tmp) / name.replace(" ", "-")
            write_dataset(content, root)
            judge = load_judge(root)
            seen: set[tuple[str, ...]] = set()
            for probe in sorted(judge.hidden.probes.values(), key=lambda p: p.probe_id):
                key = _key(judge, probe)
                if key in seen:
                    continue
                seen.add(key)
                reply, reading, note = _shortest(judge, probe)
                rules = judge.judge(probe.probe_id, reply).verdict.valid
                faithful = judge.score_observation(probe.probe_id, reading).verdict.valid
                out.append((name, *key, judge.envelope(probe).utterance, reply, "valid" if rules else "INVALID",
                            "valid" if faithful else "INVALID", note))
    return out


def render() -> str:
    """The file's text."""
    lines = ["# Contract templates and their shortest correct answers", "",
             "Generated by `python tests/verify/make_contract_templates.py` (checked by "
             "`tests/verify/test_contract_templates.py`). One row per contract template of the pilot and of a "
             "generated development suite (seed 1): the first probe of that shape, the shortest natural correct "
             "reply its record supports, the verdict of the rule extractor's reading of it, and the verdict of a "
             "faithful reading (what a careful reader records). Rules and reasons: `docs/contract-semantics.md`.", "",
             "| dataset | cat. | stratum | α | required acts | forbidden acts | required claims | prohibited claims "
             "| question | shortest correct reply | rules | faithful reading | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows():
        cells = [cell.replace("|", "\\|").replace("\n", " ") for cell in row]
        note = cells[-1] + (f" (open: {OPEN[row[-1]]})" if row[-1] in OPEN else "")
        lines.append("| " + " | ".join([*cells[:-1], note]) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT.name}", file=sys.stderr)
