"""The deterministic, gold-blind semantic extractor: response → Γ̂(a) = ⟨Ŷ, Ĝ, Û, û, ŵ⟩.

Inputs are the response, the query envelope Env(q), the extraction universe X_q and the
closed-world vocabulary D_CW — nothing else. This module imports no contract, lineage or
probe type, so it cannot see a label (tests check the import graph).

Rules, in the order they apply to each clause:
- markup is blanked; the text is split into sentences and clauses (contrastive connectives,
  semicolons, dashes, a new first-person subject after a comma, leading interjections);
- long quotations (four words or more) are masked: quoted speech asserts nothing;
- questions, hypotheticals ("if I had…", "imagine"), and reported speech ("you said…",
  "you keep saying…") assert nothing; reported speech is ACKNOWLEDGE_ASSERTION;
- memory uncertainty ("I don't remember…") asserts nothing and expresses not-knowing;
- facts about the identity are asserted by first-person clauses; world facts by impersonal
  declarative clauses (or first-person clauses that say how they were learned);
- polarity is the parity of negators in the clause, after removing idioms that contain a
  negator without negating ("never forget", "no doubt", "not only");
- "there" refers back to the last place mentioned (in the response, else in the question);
- a bare "No." / "I didn't." negates what the previous clause (or the question) put forward,
  a bare "Yes." affirms what the question asked about;
- belief history ("I used to think…") asserts the change, not the former stance as current;
- a response that goes along with a presupposition of the question ("When you lived in
  Kyoto, where…" → "the best matcha was by the river") adopts it, unless it denies,
  abstains or withholds;
- in a closed-world slot with cue phrases, a value with no proposition id ("I lived in Tokyo")
  is kept as an unmapped assertion with its slot and value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sitbench.schema import (
    Act,
    ClaimProvenance,
    ClosedWorldDeclaration,
    DisclosureSignals,
    Envelope,
    ExtractedClaim,
    Observation,
    Proposition,
    UncertaintyLevel,
    UnmappedAssertion,
)
from sitbench.verify._text import Clause, clauses, clean

VERIFIER_VERSION = "sitbench-verifier/1.0"
"""Version of the extractor and scorer; bump it whenever a rule changes a verdict."""

MAX_CHARS = 200_000
"""Responses longer than this are cut before extraction (recorded nowhere else; keeps cost bounded)."""

_I = re.IGNORECASE


def _words(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(?:" + "|".join(phrases) + r")(?![\w'])", _I)


_FIRST_PERSON = _words(r"i", r"i'm", r"i've", r"i'd", r"i'll", r"me", r"my", r"mine", r"myself", r"we", r"we've",
                       r"we're", r"we'd", r"our", r"ours", r"ourselves")
_SECOND_PERSON = _words(r"you", r"your", r"you're", r"you've", r"you'd", r"yours", r"yourself")
_NEGATOR = re.compile(r"(?<![\w'])(?:not|no|never|neither|nor|none|nothing|nowhere|cannot)(?![\w'])|n't(?![\w])|n’t", _I)
_FALSE_NEGATORS = _words(r"never forget", r"never forgot", r"no doubt", r"not only", r"no wonder",
                         r"can't wait", r"cannot wait", r"nothing beats", r"nothing like", r"not least",
                         r"no longer think", r"no longer believe", r"not sure", r"not certain",
                         r"not entirely sure", r"no idea", r"don't know", r"do not know", r"don't remember",
                         r"do not remember", r"can't remember", r"cannot remember", r"don't recall",
                         r"can't recall", r"couldn't be happier", r"never been happier",
                         r"rather not", r"prefer not", r"not ready", r"not going to (?:get into|discuss|share)",
                         r"can't share", r"cannot share", r"not at liberty", r"not something i(?:'m| am) (?:discussing|sharing)",
                         r"not really something", r"no comment")
_HYPOTHETICAL = _words(r"if i", r"if we", r"if you", r"suppose", r"supposing", r"imagine", r"imagining",
                       r"hypothetically", r"had i", r"in another life", r"i wish", r"pretend", r"let's say",
                       r"what if")
_REPORT_DOUBT = re.compile(
    r"(?<![\w'])(?:you(?:'ve| have)?\s+(?:keep|kept)\s+(?:saying|insisting|telling)|you\s+(?:insist|claim|claimed|"
    r"seem to think|seem to remember|think|thought|believe|remember|recall|are saying|'re saying|suggest that|say)|"
    r"i know you|i understand (?:that )?you|according to you|everyone (?:says|remembers|thinks|seems)|"
    r"people (?:say|think|remember)|i hear (?:that )?you|you're (?:remembering|thinking of)|"
    r"you (?:may|might) be (?:thinking|remembering))(?![\w'])", _I)
_REPORT_TOLD = re.compile(r"(?<![\w'])you(?:'ve| have)?\s+(?:said|told me|mentioned)(?![\w'])", _I)
_MEMORY_UNCERTAIN = _words(r"don't remember", r"do not remember", r"can't remember", r"cannot remember",
                           r"don't recall", r"do not recall", r"can't recall", r"cannot recall",
                           r"no memory of", r"not sure i ever", r"don't think i ever")
_ABSTAIN = _words(r"i don't know", r"i do not know", r"i'm not sure", r"i am not sure", r"not sure",
                  r"no idea", r"i can't say", r"i cannot say", r"can't help (?:you )?with", r"not familiar",
                  r"haven't (?:learned|learnt|studied|come across)", r"have not (?:learned|learnt|studied)",
                  r"never (?:learned|learnt|studied)", r"don't have (?:any )?(?:knowledge|background|training)",
                  r"outside (?:of )?(?:what i know|my (?:knowledge|experience|expertise))",
                  r"not (?:something|a topic|an area) i(?:'ve| have)? (?:learned|studied|know)",
                  r"i have no (?:record|memory)", r"beyond me", r"couldn't tell you", r"can't tell you",
                  r"not (?:something|anything) i know", r"i wouldn't know", r"no way (?:for me )?to know")
_REJECT = _words(r"that's not true", r"that is not true", r"that isn't true", r"not true", r"that's not right",
                 r"that isn't right", r"that's not correct", r"that isn't correct", r"that's wrong",
                 r"you're mistaken", r"you are mistaken", r"you must be thinking of", r"you're thinking of",
                 r"that wasn't me", r"never happened", r"didn't happen", r"that's not me", r"not me",
                 r"i think you've got", r"you've got (?:me|the wrong)", r"mixing me up", r"confusing me with",
                 r"i have to correct", r"let me correct", r"to set the record straight", r"nope")
_WITHHOLD = _words(r"rather not", r"prefer not", r"keep (?:[\w']+ ){0,3}(?:to myself|private|quiet|under wraps)",
                   r"not ready to (?:share|talk|say|discuss)", r"can't share", r"cannot share",
                   r"not going to (?:get into|discuss|share|say)", r"not at liberty", r"that's private",
                   r"that is private", r"private matter", r"not something i(?:'m| am) (?:discussing|sharing)",
                   r"no comment", r"not (?:really )?something i (?:discuss|share|talk about)",
                   r"i'll keep (?:that|my plans|it)", r"between me and", r"not (?:for|up for) discussion",
                   r"mind if i don't", r"won't get into", r"not comfortable (?:sharing|discussing)")
_QUALIFY = _words(r"probably", r"maybe", r"perhaps", r"possibly", r"i might be wrong", r"might be wrong",
                  r"not entirely sure", r"not completely sure", r"if i remember (?:right|correctly)",
                  r"if i recall (?:right|correctly)", r"as far as i (?:recall|remember|know)", r"i guess",
                  r"i suspect", r"fairly sure", r"pretty sure", r"i'm not certain", r"not certain",
                  r"could be wrong", r"roughly", r"i believe so", r"i think so", r"don't quote me")
_ACQUIRED_CUE = _words(r"learn(?:ed|t|ing)?", r"studied", r"study(?:ing)?", r"course", r"classes", r"class",
                       r"lessons?", r"training", r"trained", r"certificat\w*", r"exam", r"read", r"reading",
                       r"practi[cs]\w*", r"picked up", r"taught", r"workshop", r"module", r"seminar", r"lecture\w*")
_TOLD_CUE = _words(r"told me", r"tells me", r"heard from", r"according to (?!you)", r"(?:he|she|they) said",
                   r"(?:he|she|they) mentioned", r"says that", r"informed me")
_EXPERIENCE_CUE = _words(r"we agreed", r"we decided", r"we settled", r"we called", r"we named", r"we went with",
                         r"we chose", r"we picked")
_GENERAL_LABEL = _words(r"in general", r"generally", r"speaking generally", r"general knowledge",
                        r"as an assistant", r"general assistant", r"from general", r"textbook", r"commonly",
                        r"well[- ]known", r"as a general matter", r"broadly speaking", r"general terms",
                        r"general information", r"not from (?:my own|personal) (?:experience|knowledge|study)")
_HISTORICAL = _words(r"used to", r"back then", r"at the time", r"previously", r"once thought", r"in the past",
                     r"formerly", r"at first", r"originally", r"before that", r"those days")
_BARE_NEGATION = re.compile(
    r"^\W*(?:no|nope|nah|not really|not quite|not exactly|actually no|not true|that's not true|that isn't true|"
    r"that's not right|that isn't right|that's wrong|that's not correct|i didn't|i did not|i haven't|i have not|"
    r"i never did|i wasn't|i was not|never|that never happened|that wasn't me|not me|i don't think so|"
    r"afraid not|sadly no|definitely not|absolutely not|certainly not|i never have)\W*$", _I)
_BARE_AFFIRMATION = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|correct|right|true|that's right|that's true|that is true|indeed|absolutely|"
    r"definitely|i am|i have|i did|i do|still am|i still am|i still do|sure am|of course)\W*$", _I)
_THERE = _words(r"there")
_OTHER_SUBJECT = _words(r"you", r"he", r"she", r"they", r"it's", r"it is", r"that's", r"there's")
_PRESUPPOSITION_BLOCK = _words(r"might", r"may", r"maybe", r"perhaps", r"if", r"whether", r"rumou?r", r"word is")
_AUX_START = re.compile(r"^\W*(?:are|is|am|do|did|does|have|has|had|can|could|would|will|were|was|should|shall)\b", _I)
_CAPITALIZED_VALUE = re.compile(r"\s*(?:the\s+)?(?:['\"‘“]([^'\"’”]{1,40})['\"’”]|([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}))")
_NOT_VALUES = {"i", "the", "a", "an", "my", "our", "it", "this", "that", "there", "then", "and", "but", "so",
               "we", "he", "she", "they", "you", "january", "february", "march", "april", "may", "june", "july",
               "august", "september", "october", "november", "december", "monday", "tuesday", "wednesday",
               "thursday", "friday", "saturday", "sunday", "yes", "no", "for", "in", "at", "on"}
_QUOTE = re.compile(r"[\"“”](?:[^\"“”]{0,400})[\"“”]")
_PLACE_PREDICATES = {"lived_in", "grew_up_in", "visited", "worked_in"}


@dataclass(frozen=True)
class _Form:
    prop: Proposition
    pattern: re.Pattern[str] | None
    parts: tuple[re.Pattern[str], ...]


def _form_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w])" + r"[\s-]+".join(words) + r"(?:s|es|ed|ing|ers?)?(?![\w])", _I)


class Vocabulary:
    """The extractor's compiled inputs: the universe X_q and the closed-world vocabulary D_CW."""

    def __init__(self, universe: Sequence[Proposition], closed_world: Sequence[ClosedWorldDeclaration]):
        self.universe = tuple(universe)
        self.closed_world = tuple(closed_world)
        self.by_id = {p.prop_id: p for p in self.universe}
        self._forms: list[_Form] = []
        simple: list[tuple[str, Proposition]] = []
        for prop in self.universe:
            for form in prop.surface_forms:
                if "+" in form:
                    parts = tuple(_form_pattern(part.strip()) for part in form.split("+") if part.strip())
                    self._forms.append(_Form(prop, None, parts))
                else:
                    simple.append((form, prop))
        # One alternation for every simple form: a single scan per clause instead of one per form.
        self._simple_props = [prop for _, prop in simple]
        alternatives = "|".join(f"(?P<f{i}>" + r"[\s-]+".join(re.escape(w) for w in form.split()) + ")"
                                for i, (form, _) in enumerate(simple))
        self._simple = re.compile(r"(?<![\w])(?:" + alternatives + r")(?:s|es|ed|ing|ers?)?(?![\w])", _I) \
            if simple else None
        self._envelope_cache: dict[str, tuple[list[Proposition], list[Proposition]]] = {}
        self._cw_cues = []
        self_slots = {p.slot for p in self.universe if p.entity == "self"}
        for decl in self.closed_world:
            for cue in decl.cues:
                self._cw_cues.append((decl, re.compile(r"(?<![\w])" + re.escape(cue) + r"(?![\w])", _I),
                                      decl.slot in self_slots))

    def mentions(self, text: str) -> list[tuple[Proposition, int, int]]:
        """Propositions whose surface forms occur in ``text``, each once, in universe order."""
        found: dict[str, tuple[Proposition, int, int]] = {}
        if self._simple is not None:
            for m in self._simple.finditer(text):
                prop = self._simple_props[int(m.lastgroup[1:])]  # type: ignore[index]
                found.setdefault(prop.prop_id, (prop, m.start(), m.end()))
        for form in self._forms:
            if form.prop.prop_id not in found and all(part.search(text) for part in form.parts):
                m = form.parts[-1].search(text)
                assert m is not None
                found[form.prop.prop_id] = (form.prop, m.start(), m.end())
        return [found[p.prop_id] for p in self.universe if p.prop_id in found]


def _count_negators(text: str) -> int:
    stripped = _FALSE_NEGATORS.sub(" ", text)
    return len(_NEGATOR.findall(stripped))


def _negated_at(text: str, position: int) -> bool:
    """Polarity of a mention: negators before it; a clause-initial subject takes the whole clause's."""
    before = _count_negators(text[:position])
    if before == 0 and len(text[:position].split()) <= 3:
        return _count_negators(text) % 2 == 1
    return before % 2 == 1


def _mask_quotes(text: str) -> str:
    def mask(m: re.Match[str]) -> str:
        inner = m.group(0)
        return " " * len(inner) if len(inner.split()) >= 4 else inner

    return _QUOTE.sub(mask, text)


def _personal_provenance(text: str) -> ClaimProvenance:
    if _EXPERIENCE_CUE.search(text):
        return ClaimProvenance.PERSONAL_EXPERIENCE
    if _TOLD_CUE.search(text):
        return ClaimProvenance.TOLD_BY
    if _ACQUIRED_CUE.search(text):
        return ClaimProvenance.ACQUIRED
    return ClaimProvenance.PERSONAL_EXPERIENCE


def _is_place(prop: Proposition) -> bool:
    return prop.predicate in _PLACE_PREDICATES


def _envelope_facts(envelope: Envelope, vocabulary: Vocabulary) -> tuple[list[Proposition], list[Proposition]]:
    cached = vocabulary._envelope_cache.get(envelope.utterance)
    if cached is None:
        cached = (_presupposed(envelope, vocabulary),
                  [p for p, _, _ in vocabulary.mentions(envelope.utterance) if not p.world_fact])
        if len(vocabulary._envelope_cache) > 4096:
            vocabulary._envelope_cache.clear()
        vocabulary._envelope_cache[envelope.utterance] = cached
    return cached


def presupposed(envelope: Envelope, vocabulary: Vocabulary) -> list[Proposition]:
    """Facts about the identity that the utterance takes for granted (wh-questions and statements
    addressed to "you"; not yes/no questions, not hedged rumours)."""
    return list(_envelope_facts(envelope, vocabulary)[0])


def _presupposed(envelope: Envelope, vocabulary: Vocabulary) -> list[Proposition]:
    out: dict[str, Proposition] = {}
    for clause in clauses(clean(envelope.utterance)):
        if not _SECOND_PERSON.search(clause.text) or _PRESUPPOSITION_BLOCK.search(clause.text):
            continue
        if _AUX_START.search(clause.text) or _count_negators(clause.text) % 2:
            continue
        for prop, _, _ in vocabulary.mentions(clause.text):
            if not prop.world_fact:
                out.setdefault(prop.prop_id, prop)
    return list(out.values())


def asked_about(envelope: Envelope, vocabulary: Vocabulary) -> list[Proposition]:
    """Facts about the identity the utterance mentions (what a bare yes/no answers)."""
    return list(_envelope_facts(envelope, vocabulary)[1])


@dataclass
class _ClauseFacts:
    clause: Clause
    claims: list[ExtractedClaim]
    mentioned: list[Proposition]
    first_person: bool
    asserting: bool


def extract(response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
    """Γ̂(a) for one response. Pure and deterministic; never raises on any string input.

    Args:
        response: The candidate's text.
        envelope: Env(q) of the scored turn.
        vocabulary: X_q and D_CW, compiled (:class:`Vocabulary`).
    """
    text = _mask_quotes(clean(str(response)[:MAX_CHARS]))
    acts: set[Act] = set()
    claims: dict[tuple[str, bool], ExtractedClaim] = {}
    unmapped: list[UnmappedAssertion] = []
    not_knowing = hedged = withheld = False
    facts: list[_ClauseFacts] = []
    last_place: Proposition | None = None
    asked = asked_about(envelope, vocabulary)
    envelope_places = [p for p in asked if _is_place(p)]
    general_paragraph = False
    previous_sentence = -1

    def add(prop: Proposition, polarity: bool, provenance: ClaimProvenance, span: tuple[int, int]) -> ExtractedClaim:
        key = (prop.prop_id, polarity)
        claim = ExtractedClaim(prop_id=prop.prop_id, polarity=polarity, provenance=provenance, span=span)
        claims.setdefault(key, claim)
        return claims[key]

    for clause in clauses(text):
        body = clause.text
        span = (clause.start, clause.end)
        if clause.sentence != previous_sentence:
            # A blank line ends the reach of a "speaking generally" label.
            if "\n\n" in text[max(0, clause.start - 3):clause.start]:
                general_paragraph = False
            previous_sentence = clause.sentence
        if _GENERAL_LABEL.search(body):
            general_paragraph = True
        if _WITHHOLD.search(body):
            withheld = True
        if _QUALIFY.search(body):
            hedged = True
        first_person = bool(_FIRST_PERSON.search(body)) or (
            bool(facts) and facts[-1].clause.sentence == clause.sentence and facts[-1].first_person
            and not _OTHER_SUBJECT.search(body))
        found = vocabulary.mentions(body)
        positions = {p.prop_id: start for p, start, _ in found}
        mentioned = [p for p, _, _ in found]
        if _THERE.search(body) and not any(_is_place(p) for p in mentioned):
            anchor = last_place or (envelope_places[0] if envelope_places else None)
            if anchor is not None:
                mentioned.append(anchor)
        for prop in mentioned:
            if _is_place(prop):
                last_place = prop
        record = _ClauseFacts(clause, [], mentioned, first_person, asserting=False)
        facts.append(record)

        if _BARE_NEGATION.search(body):
            acts.add(Act.REJECT)
            targets = [p for p in (facts[-2].mentioned if len(facts) > 1 else []) if not p.world_fact]
            targets = targets or presupposed(envelope, vocabulary) or asked
            for prop in targets:
                record.claims.append(add(prop, False, ClaimProvenance.PERSONAL_EXPERIENCE, span))
            continue
        if _BARE_AFFIRMATION.search(body) and not clause.question:
            for prop in asked:
                record.claims.append(add(prop, True, ClaimProvenance.PERSONAL_EXPERIENCE, span))
            continue
        if _REJECT.search(body):
            acts.add(Act.REJECT)
        if _ABSTAIN.search(body):
            acts.add(Act.ABSTAIN)
            not_knowing = True
        if clause.question or _HYPOTHETICAL.search(body):
            continue
        if _REPORT_DOUBT.search(body) or _REPORT_TOLD.search(body):
            acts.add(Act.ACKNOWLEDGE_ASSERTION)
            continue
        if _MEMORY_UNCERTAIN.search(body):
            acts.add(Act.ABSTAIN)
            not_knowing = True
            continue
        negative = _count_negators(body) % 2 == 1
        historical = bool(_HISTORICAL.search(body))
        record.asserting = True
        for prop in mentioned:
            negative = _negated_at(body, positions.get(prop.prop_id, len(body)))
            if prop.world_fact:
                if first_person and not _ACQUIRED_CUE.search(body):
                    continue
                if general_paragraph:
                    provenance = ClaimProvenance.ASSISTANT_GENERAL
                elif first_person:
                    provenance = ClaimProvenance.ACQUIRED
                else:
                    provenance = ClaimProvenance.UNSPECIFIED
                record.claims.append(add(prop, not negative, provenance, span))
                continue
            if prop.entity == "self" and not first_person:
                continue
            if historical and prop.predicate == "stance":
                continue
            provenance = _personal_provenance(body) if first_person else ClaimProvenance.UNSPECIFIED
            record.claims.append(add(prop, not negative, provenance, span))
            if negative and prop.entity == "self":
                acts.add(Act.REJECT)
                if prop.predicate in ("knows", "has_skill"):
                    acts.add(Act.ABSTAIN)
                    not_knowing = True
        # Values with no proposition id inside closed-world slots that have cue phrases.
        for decl, cue, needs_first_person in vocabulary._cw_cues:
            if needs_first_person and not first_person:
                continue
            for m in cue.finditer(body):
                v = _CAPITALIZED_VALUE.match(body, m.end())
                if not v:
                    continue
                value = (v.group(1) or v.group(2) or "").strip()
                if not value or value.lower() in _NOT_VALUES or vocabulary.mentions(value):
                    continue
                unmapped.append(UnmappedAssertion(
                    span=span, text=body, polarity=not _negated_at(body, v.start()),
                    provenance=_personal_provenance(body) if first_person else ClaimProvenance.UNSPECIFIED,
                    slot=decl.slot, value=value))
        if first_person and not record.claims and not any(u.span == span for u in unmapped):
            if not (_ABSTAIN.search(body) or _WITHHOLD.search(body) or _REJECT.search(body)):
                unmapped.append(UnmappedAssertion(span=span, text=body[:300], polarity=not negative,
                                                  provenance=_personal_provenance(body)))

    # Going along with a presupposition adopts it.
    if not (acts & {Act.REJECT, Act.ABSTAIN}) and not withheld:
        content = [f for f in facts if f.asserting and not f.clause.question and len(f.clause.text.split()) >= 3]
        if content:
            for prop in presupposed(envelope, vocabulary):
                if (prop.prop_id, True) not in claims and (prop.prop_id, False) not in claims:
                    add(prop, True, ClaimProvenance.PERSONAL_EXPERIENCE, (content[0].clause.start, content[0].clause.end))

    if withheld:
        acts.add(Act.WITHHOLD)
    if hedged:
        acts.add(Act.QUALIFY)
    positive = [c for c in claims.values() if c.polarity]
    if positive or any(u.polarity and u.slot for u in unmapped):
        acts.add(Act.ANSWER)
    uncertainty = (UncertaintyLevel.NOT_KNOWING if not_knowing
                   else UncertaintyLevel.HEDGED if hedged else UncertaintyLevel.NONE)
    shared = sorted({c.prop_id for c in positive if not vocabulary.by_id[c.prop_id].world_fact},
                    key=[p.prop_id for p in vocabulary.universe].index)
    order = list(Act)
    ordered_claims = sorted(claims.values(), key=lambda c: (c.span[0], c.prop_id, not c.polarity))
    return Observation(
        acts=sorted(acts, key=order.index),
        claims=ordered_claims,
        unmapped=unmapped,
        uncertainty=uncertainty,
        disclosure=DisclosureSignals(shared=shared, framed_as_withheld=withheld),
        verifier_version=VERIFIER_VERSION,
    )
