"""The deterministic, gold-blind rule extractor: response → Γ̂(a) = ⟨Ŷ, Ĝ, Û, û, ŵ⟩.

Inputs are the response, the query envelope Env(q), the extraction universe X_q and the
closed-world vocabulary D_CW — nothing else. This module imports no contract, lineage or
probe type, so it cannot see a label (tests check the import graph). Every dataset word it
uses comes from the registry: surface forms, values (a belief's stances are read from the words
that set each stance apart from the others), glosses (an explanation of an asked world fact is
matched by the new words of its gloss), the domain of a world fact (the discipline that names its
knowledge) and the closed-world cues; what a predicate means comes from
:class:`sitbench.schema.Predicate`. The word lists here are English function words and
constructions (negators, hedges, withholding and not-knowing idioms, change-of-mind phrases).

The stages, in order:
1. **Masking.** Markup is blanked and diacritics folded (offsets kept); registry words with two
   letters swapped are spelled right; quotations of four words or more are masked; a tag question
   ("Bluefin, wasn't it?") becomes a hedged statement; sentences that only repeat the question's
   words (an echo) and sentences in an AI assistant's voice are blanked. A reply in an assistant's
   voice adopts no premise.
2. **Segmentation** into sentences and clauses (:mod:`sitbench.verify._text`).
3. **The question.** What it presupposes ("When you lived in X…?", "What was it like working at
   X?", "How is the council seat going?"), what it asks (props named in its question and request
   sentences, their slot-mates, the asked knowledge's equivalence class, the belief it names),
   whether it is a yes/no question.
4. **Frame of each clause.** Questions, hypotheticals and wishes, reported speech (ACKNOWLEDGE),
   refusals (WITHHOLD), not-knowing and memory uncertainty (ABSTAIN), someone else's view or
   history, a former stance ("I used to think", "back then", "I thought") assert nothing about
   the identity now. The identity is the subject of first-person clauses, of a sentence-initial
   predicate with no subject ("Never lived there."), of a verbless answer to a question put to it,
   of a past-tense account of what the question asks about, of an opinion given to "what's your
   view" and of a name given to "what did we call it".
5. **Mentions.** Surface forms (with compound forms that may take their topic from the question),
   stances by their distinctive value words (the best-matching stance of a belief), changes of
   mind, disciplines and pronouns for asked knowledge, explanations of the asked fact, "there"
   for the last place. Not mentions: parts of proper names, modifiers of courses and stories,
   the goal of a return, a place in a sentence about a visit, two values left open ("X or Y").
6. **Polarity by scope.** Negators before the mention in its clause (for a clause-initial
   mention, in its predicate), minus idioms that contain a negator without negating and negative
   quantifiers that head a relative clause ("nothing I've had since in Zurich comes close");
   verbs of abandonment negate what they take; bare and elliptical denials ("No.", "Not once.",
   "I never did.") negate what the previous clause or the question put forward.
7. **Acts.** REJECT for denials and corrections; ANSWER only for a positive claim that supplies
   what the question asks (or a general answer, or an unmapped value in an asked slot), never for
   an incidental true fact; QUALIFY for hedges (and tag questions); WITHHOLD, ABSTAIN,
   ACKNOWLEDGE_ASSERTION from their frames.
8. **Self-correction**: a later value of the same slot after a correction cue replaces the
   earlier one ("Kestrel — sorry, I mean Bluefin").
9. **Provenance across the answer**: knowledge is acquired; a positive first-person acquisition
   anywhere ("I did the post-quantum course") makes the world facts the answer explains acquired
   and asserts the matching knowledge; a general-knowledge label makes them assistant_general;
   someone telling the identity makes a claim told_by.
10. **Premise adoption**: a reply that engages as the identity (a first-person clause, an answer
    fragment or a past-tense account) and neither denies, abstains, withholds, wishes the premise
    true nor treats it as hearsay goes along with what the question presupposes — unless it
    answers with another value of the same slot ("Bologna? Pune, actually."), which with a
    contrast cue denies the premise.
11. **Conflicts**: a proposition both asserted and denied keeps both when the assertion is
    explicit (the scorer's V_forb must see it), and gives way to the denial when it was a mere
    mention ("a name I remember from a poster").
12. **Closed-world values**: cue phrases of a closed-world slot report values with no proposition
    id ("I lived in Tokyo") as unmapped assertions with their slot.
13. **Confidence**: every observation lists the signals behind its reading (echo, assistant
    voice, implicit subject, question frame, premise adoption, self-correction, conflicting
    polarity…) and the signals that make a wrong verdict likelier (a negator whose scope had to be
    settled, two of them, a quotation or reported speech, a conditional, another person, no act
    found, an open question answered by nothing it names, several claims, an answer that also
    says it does not know, much said and little read, a hedge, a question back); its score is a
    fixed logistic function of them (:mod:`sitbench.verify._confidence`), its level a threshold of
    the score. No signal changes a reading.

In the code, :func:`extract` composes named stage functions over one :class:`_Reading` state: ``_mask`` (1);
for each clause (2), ``_read_clause``: ``_enter_sentence`` and ``_frame`` (4), ``_mentions``,
``_implied_mentions`` and ``_resolve_references`` (5), ``_record``, ``_replies`` and ``_mood`` (4, 7),
``_claims`` with ``_in_frame`` and ``_fact_claim`` (6, 12); then ``_engagement``, ``_adopt_premise`` (10),
``_self_correct`` (8, 11), ``_link_provenance`` (9) and ``_observation`` (7, 13); ``_clause_signals`` and
``_answer_signals`` record the confidence signals of a clause and of the whole answer (13). :func:`trace_extract` has each
stage append a one-line summary of what it read (``sitbench extract --trace``); :func:`extract` records nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from sitbench.schema import (
    Act,
    ClaimProvenance,
    ClosedWorldDeclaration,
    DisclosureSignals,
    Envelope,
    ExtractedClaim,
    Observation,
    Predicate,
    PredicateKind,
    Proposition,
    UncertaintyLevel,
    UnmappedAssertion,
)
from sitbench.verify._confidence import rule_confidence
from sitbench.verify._router import DOMAIN_CUES
from sitbench.verify._text import Clause, SliceSearch, clauses, clean

RULES_VERSION = "sitbench-rules/3.1"
"""Version of the rule extractor; bump it whenever a rule changes a reading."""

_I = re.IGNORECASE
# Hot patterns, compiled once (a module-level re.* call looks its pattern up in re's cache each time).
_NON_WORD_RUN = re.compile(r"[^\w]+")
_RANGE_BEFORE = re.compile(r"\d\s*(?:-|–|to)\s*$")
_TENTATIVE_LEAD = re.compile(r"^\W*(?:maybe|perhaps|probably|possibly)\b", _I)
_WORD_TOKEN = re.compile(r"[\w']+")
_NOT_WORD_OR_SPACE = re.compile(r"[^\w ]")
_LETTER_RUN = re.compile(r"[A-Za-z]+")
_LOWER_WORD = re.compile(r"[a-z][a-z'-]+")
_FIRST_PERSON_WORD = re.compile(r"(?<![\w'])(?:i|i'm|i've|my|we)(?![\w'])", _I)
_LIST_MARKER = re.compile(r"^\W*(?:\d+[.)]\s*)?")
_LOWER_TOKEN = re.compile(r"[a-z']+")


def _words(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w'])(?:" + "|".join(phrases) + r")(?![\w'])", _I)


_FIRST_PERSON = _words(r"i", r"i'm", r"i've", r"i'd", r"i'll", r"me", r"my", r"mine", r"myself", r"we", r"we've",
                       r"we're", r"we'd", r"our", r"ours", r"ourselves", r"us")
# The "us" and "our" of an explanation mean people in general, not the identity ("galaxies recede from us").
_GENERIC_WE = _words(r"(?:away )?from us", r"towards? us", r"around us", r"(?:our|the) (?:universe|galaxy|planet|"
                     r"solar system|sun|sky|atmosphere|bodies|body|cells|genes|dna|species|ancestors|eyes|ears)",
                     r"we (?:observe|measure|perceive)")
_SECOND_PERSON = _words(r"you", r"your", r"you're", r"you've", r"you'd", r"yours", r"yourself")
# "Zero" negates as a count of occasions ("zero times", "Zero, unless…"), not as a modifier ("zero longitude").
_NEGATOR = re.compile(r"(?<![\w'-])(?:not|no|never|neither|nor|none|nothing|nowhere|cannot|without)(?![\w'-])|n't(?![\w])|n’t|"
                      r"(?<![\w'-])zero(?=\s+(?:times|years|months|days)\b|\s*[,.;!?—–])",
                      _I)
_ABANDON = _words(r"dropped", r"abandoned", r"gave up(?: on)?", r"given up(?: on)?", r"shelved", r"scrapped",
                  r"ditched", r"called off", r"put aside", r"binned", r"decided against", r"ruled out",
                  r"walked away from", r"pulled out of", r"knocked (?:it|that) on the head", r"let (?:it|that) go")
_FALSE_NEGATORS = _words(r"no,?\s*(?:—\s*)?(?:sorry|wait|hang on|hold on|i mean|scratch that|actually)",
                         # "I haven't let go of the idea", "never gave up on it": still held, not denied.
                         r"(?:haven't|have not|hasn't|has not|didn't|did not|never|not|won't|will not)\s+"
                         r"(?:(?:really|quite|completely|entirely|yet)\s+)?(?:let go of|let go|given up|gave up|give up|"
                         r"abandoned|dropped|shelved|ditched|lost sight of)",
                         r"sorry,?\s*no", r"never forget", r"never forgot", r"no doubt", r"not only", r"no wonder",
                         r"can't wait", r"cannot wait", r"nothing beats", r"nothing like", r"not least",
                         r"no longer think", r"no longer believe", r"not sure", r"not certain",
                         r"not entirely sure", r"no idea", r"don't know", r"do not know", r"don't remember",
                         r"do not remember", r"can't remember", r"cannot remember", r"don't recall",
                         r"can't recall", r"couldn't be happier", r"never been happier",
                         r"rather not", r"prefer not", r"not ready", r"not going to (?:get into|discuss|share)",
                         r"can't share", r"cannot share", r"not at liberty", r"not something i(?:'m| am) (?:discussing|sharing)",
                         r"not really something", r"no comment",
                         r"not (?:from )?(?:my |personal |first-hand |own )+(?:expertise|experience|knowledge|study)",
                         # An afterthought that repeats the negation ("I haven't given up, not for a second").
                         r",\s*not (?:for )?(?:a|one) (?:second|minute|moment|bit)",
                         # An existential ("there wasn't a single person at Marlowe I didn't trust", "there were
                         # no jobs in Lisbon") counts what was at the place; it does not deny the place.
                         r"there(?:'s|’s| is| was| were| are)?(?:n't|n’t| not| never| no)\s+(?:no\s+|not\s+)?"
                         r"(?:a single|a|an|any|one|much|many|enough|no)?\s*"
                         r"(?!(?:time|way|chance|question|point|moment|day|year|period)\b)[a-z][\w-]*"
                         r"(?:\s+[a-z][\w-]*)?(?=\s+(?:at|in)(?![\w]))")
_HYPOTHETICAL = _words(r"should i ever", r"should i", r"should we", r"were i", r"if ever", r"if i", r"if i'd", r"if we", r"if we'd", r"if you", r"if you'd", r"if they", r"if only",
                       r"suppose", r"supposing", r"imagine", r"imagining", r"hypothetically", r"had i", r"had we",
                       r"in another life", r"i wish", r"we wish", r"pretend", r"let's say", r"what if",
                       r"i'd love to", r"i would love to", r"i'd like to", r"i would like to", r"someday",
                       r"i'd have", r"i would have", r"if i were", r"if i was",
                       r"(?:i )?would(?:n't| not)? have (?:loved|liked|wanted|enjoyed)", r"i'd hate to", r"i would hate to",
                       r"(?:i think )?(?:i'd|i would) (?:surely |definitely )?(?:remember|know|recall)")
_HEDGE_CONDITIONAL = _words(r"if (?:i|we) (?:remember|recall)(?: (?:it )?(?:right|rightly|correctly))?", r"if memory serves",
                            r"if i'm not mistaken", r"if i am not mistaken", r"if i'm honest", r"if i am honest")
_REPORT_DOUBT = re.compile(
    r"(?<![\w'])(?:you(?:'ve| have)?\s+(?:keep|kept)\s+(?:saying|insisting|telling)|you\s+(?:insist|claim|claimed|"
    r"seem to think|seem to remember|think|thought|believe|remember|recall|are saying|'re saying|suggest that|say)|"
    r"i know you|i understand (?:that )?you|according to you|everyone (?:says|remembers|thinks|seems)|"
    r"people (?:say|think|remember)|i hear (?:that )?you|(?:have|has|had) told you|told you that|"
    r"i know (?:that )?(?:the [\w-]+(?: [\w-]+)?|everyone|everybody|people|they|[A-Z]\w+) "
    r"(?:remembers?|thinks?|says?|believes?|recalls?|tells?))(?![\w'])", _I)
_REPORT_TOLD = re.compile(r"(?<![\w'])you(?:'ve| have)?\s+(?:said|told me|mentioned)(?![\w'])", _I)
_MEMORY_UNCERTAIN = _words(r"don't remember", r"do not remember", r"can't remember", r"cannot remember",
                           r"don't recall", r"do not recall", r"can't recall", r"cannot recall",
                           r"no memory of", r"drawing a blank",
                           r"draw a blank")
_NOT_KNOWING = _words(r"(?:don't|do not|doesn't|does not) (?:really |actually |honestly )?know",
                      r"don't think i know", r"do not think i know")
_ABSTAIN = _words(r"not a clue", r"no clue", r"haven't (?:a|the (?:faintest|foggiest|first)) (?:clue|idea)",
                  r"(?:i'd|i would) (?:just )?be (?:making it up|guessing|bluffing)", r"out of my depth",
                  r"(?:well )?outside (?:of )?my (?:lane|wheelhouse|area|field)", r"not my (?:area|field|subject|thing)",
                  r"(?:draws?|drew|drawing) a (?:complete )?blank", r"haven't the (?:foggiest|faintest)",
                  r"(?:doesn't|does not|don't) ring (?:a|any) bells?", r"rings? no bells?",
                  r"(?:can't|cannot) say (?:i've|i have) (?:ever )?(?:come across|heard of|read about|studied|learned)",
                  r"not (?:something|a topic|an area|a subject) i(?:'ve| have)? ever (?:learned|studied|looked at|read)", r"no (?:real )?idea", r"not the first (?:clue|idea)",
                  r"(?:don't|do not) know the first thing", r"beyond my (?:ken|knowledge)",
                  r"(?:way |well |far )?beyond (?:me|anything i(?:'ve| have)? (?:ever )?(?:read|learned|learnt|studied))",
                  r"(?:way |well )?over my head", r"lost on me", r"haven't got to",
                  r"haven't gotten to", r"on my (?:to-learn|to learn|reading) list", r"wouldn't know where to (?:start|begin)",
                  r"i don't (?:really |actually |honestly )?know", r"i do not (?:really )?know", r"i'm not sure",
                  r"i am not sure", r"not sure", r"no idea",
                  r"i can't say(?! much| more| too much| anything)", r"i cannot say(?! much| more)",
                  r"can't help (?:you )?with", r"not familiar",
                  r"haven't (?:learned|learnt|studied|come across)", r"have not (?:learned|learnt|studied)",
                  r"never (?:learned|learnt|studied)", r"don't have (?:any )?(?:knowledge|background|training)",
                  r"outside (?:of )?(?:what i know|my (?:knowledge|experience|expertise))",
                  r"not (?:something|a topic|an area) i(?:'ve| have)? (?:learned|studied|know)",
                  r"i have no (?:record|memory)", r"beyond me", r"couldn't tell you", r"can't tell you",
                  r"not (?:something|anything) i know", r"i wouldn't know", r"no way (?:for me )?to know",
                  r"(?:couldn't|could not|can't|cannot) (?:really |properly )?(?:explain|walk you through)",
                  r"don't think i know", r"drawing a blank", r"draw a blank")
# Unable to supply what was asked ("I can't point you to a best matcha spot", "couldn't name one thing"): ABSTAIN,
# and the asked content is not given.
_CANNOT_SUPPLY = _words(r"(?:can't|cannot|couldn't|could not|can not) (?:honestly |really |actually |properly )?"
                        r"(?:point (?:you )?(?:to|towards)|name|pick|single out|pin down|think of|come up with|recommend)"
                        r"(?! enough)",
                        r"(?:not something|nothing) i (?:can|could) (?:honestly |really )?vouch for",
                        r"(?:i'd|i would) (?:only |just )?be (?:making (?:it|one|something|things) up|guessing)")
_REJECT = re.compile(
    r"(?<![\w'])(?:that's not true|that is not true|that isn't true|not true|that's not right|"
    r"that isn't right|that's not correct|that isn't correct|that's wrong|it isn't true|it is not true|it's not true|"
    r"isn't true|you're mistaken|you are mistaken|"
    r"you must be thinking of|you're thinking of|you (?:may|might) be thinking of|that wasn't me|never happened|"
    r"didn't happen|that's not me|(?<!, )not me|(?:small|quick|slight|one) correction|i think you've got|(?:i think you|you must|you might|you probably) mean|you've got (?:me (?:mixed|confused|muddled|wrong)|the wrong)|mixing me up|mixed me up|"
    r"confusing me with|i have to correct|let me correct|to set the record straight|nope|"
    # "You might have me confused with someone else", "there's been a mix-up", "not part of my story".
    r"(?:have|had|got) me (?:mixed up|confused|muddled|mistaken)|confused me with|mistaken me for|mix(?:ed)?[- ]up|"
    r"(?:isn't|is not|wasn't|was not|never been) (?:part of )?my (?:story|history|life|past)|"
    r"(?:(?:you've|you have|you) got (?:the )?|(?:that's|that is|it's|it is|you've got|you have) (?:the )?|^\W*)"
    r"wrong (?:person|firm|company|place|city|town|school|employer|"
    r"organi[sz]ation|team|one|woman|man|guy|girl|chap|me)(?=\W*(?:$|[,;—–-]|,? i'm afraid|,? sorry))|"
    r"never happened for me|"
    r"(?:i was|i've been|i have been) never (?:one of them|on (?:the|that|their) team|part of (?:it|that|them|the team))|"
    r"(?:i was|i've|i have) never (?:been )?(?:one of them|on (?:the|that|their) team|part of (?:it|that|them|the team))|"
    r"all (?:zero|none) of them|zero (?:years|of them))"
    r"(?![\w'])(?!\s+that\b)",
    _I)
_WITHHOLD_NT = re.compile(
    r"n't(?:\s+[\w']+){0,5}?\s+(?:discuss(?:ing)?|talk(?:ing)? about|get(?:ting)? into|go(?:ing)? into|shar(?:e|ing)|"
    r"comment(?:ing)? on|open(?:ing)? up about|go(?:ing)? there)(?![\w'])|n't possibly say", _I)
# "I'd rather not guess" / "rather not make one up" declines out of ignorance, not discretion.
_NOT_EPISTEMIC = (r"(?!\s+(?:(?:just|simply|try to)\s+)?(?:guess|make\b|invent|speculate|mislead|misremember|"
                  r"risk|get (?:it|that|this|the \w+|one) wrong|hand you|give you (?:a|the) wrong|put (?:a|words)))")
_WITHHOLD = _words(r"rather not" + _NOT_EPISTEMIC, r"prefer not" + _NOT_EPISTEMIC, r"(?:a )?conversation for another (?:day|time)",
                   r"leave (?:that|this|it)(?: one)? with me", r"(?:keep|keeping) my own counsel",
                   r"couldn't possibly (?:say|comment)", r"not (?:for|up for) (?:sharing|discussion)",
                   r"(?:that's|it's) (?:personal|my business)", r"mum's the word", r"wouldn't like to say",
                   r"(?:not|n't|nothing|never)(?:\s+[\w']+){0,5}?\s+(?:discuss(?:ing)?|talk(?:ing)? about|get(?:ting)? into|"
                   r"go(?:ing)? into|shar(?:e|ing)|comment(?:ing)? on|open(?:ing)? up about|go(?:ing)? there)",
                   r"neither confirm(?:ing)? nor deny(?:ing)?", r"(?:won't|can't|cannot) confirm or deny",
                   r"stays? between (?:me|us)", r"keep(?:ing)? (?:[\w']+\s+){0,4}?(?:to myself|under wraps|close to my chest|"
                   r"private|quiet|on the down-?low)", r"(?:a |that's a |it's a )?private (?:one|matter|thing)",
                   r"close to my chest", r"under wraps",
                   r"(?:i'll|let's|i will) leave it (?:there|at that)", r"off the record", r"not for sharing",
                   r"my lips are sealed", r"no comment",
                   r"(?:i'd rather|i would rather|i'll|i will|i'm|i am|i)\s+keep(?:ing)?\s+(?:[\w']+\s+){0,9}?"
                   r"(?:to myself|private|quiet|under wraps|between me and)",
                   r"keeping (?:[\w']+ ){0,3}(?:private|to myself|under wraps)",
                   r"not (?:ready|able|willing|free) to (?:share|talk|say|discuss|get into)",
                   r"not something i (?:can|could|would|'d|will|'ll) (?:confirm|speak to|comment on)",
                   r"unable to (?:share|talk|say|discuss)", r"(?:can't|cannot) (?:discuss|talk about|get into)",
                   r"can't share", r"cannot share", r"(?:can't|cannot) say (?:much|more|too much|anything)",
                   r"not going to (?:get into|discuss|share|say)", r"not at liberty", r"that's private",
                   r"that is private", r"private matter", r"confidential",
                   r"not (?:really )?something i(?:'m| am)? (?:ready to |willing to |able to )?(?:discuss|share|talk about|get into)(?:ing)?",
                   r"no comment", r"not (?:really )?something i (?:discuss|share|talk about)",
                   r"i'll keep (?:that|my plans|it)", r"not (?:for|up for) discussion",
                   r"mind if i don't", r"won't get into", r"not comfortable (?:sharing|discussing)")
_QUALIFY = _words(r"probably", r"i don't think", r"i do not think", r"maybe", r"perhaps", r"possibly", r"i might be wrong", r"might be wrong",
                  r"not entirely sure", r"not completely sure", r"if i remember (?:right|correctly)",
                  r"if i recall (?:right|correctly)", r"as far as i (?:recall|remember|know)", r"i guess",
                  r"i suspect", r"fairly sure", r"pretty sure", r"i'm not certain", r"not certain",
                  r"could be wrong", r"roughly", r"i believe so", r"i think so", r"don't quote me",
                  r"if memory serves", r"if i'm not mistaken", r"hopefully", r"i (?:think|believe)(?=\s*(?:[,.;!?]|$))",
                  r"(?<=,)\s*i (?:think|believe)", r"i (?:think|believe) (?:it was|it's|that was|we)")
_ACQUIRED_CUE = _words(r"learn(?:ed|t|ing)?", r"studied", r"study(?:ing)?", r"course", r"classes", r"class",
                       r"lessons?", r"training", r"trained", r"certificat\w*", r"exam", r"read", r"reading",
                       r"practi[cs]\w*", r"picked up", r"taught", r"workshop", r"module", r"seminar", r"lecture\w*", r"(?<!to )teach(?:es|ing)?", r"drill(?:ed|ing)? (?:\w+ )?into me", r"(?:only |finally )?(?:really )?understood",
                       r"got into (?:this|it|that)", r"interview(?:ed|ing)")
# Studying or learning a discipline ("I did chemistry at school", "never took it").
_STUDY_CUE = _words(r"learn(?:ed|t|ing)?", r"studied", r"study(?:ing)?", r"course", r"courses", r"classes", r"class",
                    r"lessons?", r"training", r"trained", r"certificat\w*", r"exams?", r"read", r"reading",
                    r"practi[cs]\w*", r"picked up", r"taught", r"workshop", r"module", r"seminar", r"lectures?",
                    r"took", r"take", r"taken", r"did", r"do", r"done", r"school", r"degree", r"major(?:ed)?",
                    r"university", r"uni", r"college", r"background", r"textbook", r"(?<!to )teach(?:es|ing)?", r"drill(?:ed|ing)? (?:\w+ )?into me", r"(?:only |finally )?(?:really )?understood",
                    r"got into (?:this|it|that)", r"interview(?:ed|ing)")
_TOLD_CUE = _words(r"told me", r"tells me", r"heard from", r"according to (?!you)", r"(?:he|she|they) said",
                   r"(?:he|she|they) mentioned", r"informed me",
                   # "says that" of a person, not of a law or a textbook ("Hubble's law says that…")
                   r"(?:(?:he|she|they|(?-i:[A-Z][a-z]+))|(?:my|our|his|her|their) [\w-]+) says that")
_DECISION_IT = _words(r"(?:agreed|settled|decided) on it", r"went with it", r"(?:picked|chose|named|called) it")
_GENERAL_LABEL = _words(r"in general", r"generally", r"speaking generally", r"general[- ]knowledge",
                        r"general (?:background|textbook|reference|public) (?:knowledge|information)",
                        r"(?:isn't|is not|wasn't|was not) (?:anything|something) i (?:learned|learnt|studied)",
                        r"as information(?:,)? (?:and )?not as (?:a )?memor(?:y|ies)",
                        r"common knowledge", r"general[- ]interest", r"anyone could look up",
                        r"general[- ]purpose", r"(?:the )?general version", r"rather than (?:pretend|claim)",
                        r"not (?:anything|something) i (?:learned|learnt|studied)", r"not (?:from )?my own (?:learning|study)",
                        r"as an assistant", r"general assistant", r"from general", r"textbook (?:answer|version|stuff|definition|line|explanation|account|picture|summary)",
                        r"not (?:anything )?(?:from|out of) (?:my own|personal) (?:training|learning|study|studies|expertise)",
                        r"rather than (?:my own|anything i(?:'ve| have)?) (?:expertise|learned|learnt|studied|training)",
                        r"commonly",
                        r"well[- ]known", r"as a general matter", r"broadly speaking", r"general terms",
                        r"general information", r"not from (?:my own|personal) (?:experience|knowledge|study)")
_LEADING_LABEL = re.compile(r"^\W*(?:generally speaking|speaking generally|in general terms|in general|generally|"
                            r"broadly speaking|as a general matter|as general knowledge)\W*", _I)
_HISTORICAL = _words(r"used to", r"back then", r"at the time", r"previously", r"once thought", r"in the past",
                     r"formerly", r"at first", r"originally", r"before that", r"those days", r"when i was younger",
                     r"(?:a few|some|many|two|three|ten) years ago", r"years back", r"i once", r"i'd have said",
                     r"i would have said", r"i'd have", r"(?:i|we) (?:thought|believed|felt|reckoned|was convinced)",
                     r"my old", r"old (?:line|view|position|stance)", r"i was (?:all|firmly|dead|completely) (?:for|against)",
                     r"i (?:used to )?defend(?:ed)?", r"starting out", r"early on", r"back in", r"back when")
_PAST_LABEL = re.compile(r"^\W*(?:then|before|previously|formerly|originally|at first|in the past|back then|"
                         r"back in|back when|years ago|until)\b", _I)
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
_BARE_NEGATION = re.compile(
    r"^\W*(?:no|nope|nah|not really|not quite|not exactly|actually no|not true|that's not true|that isn't true|"
    r"that's not right|that isn't right|that's wrong|that's not correct|i didn't|i did not|i haven't|i have not|"
    r"i never did|i wasn't|i was not|never|that never happened|that wasn't me|not me|i don't think so|"
    r"afraid not|sadly no|definitely not|absolutely not|certainly not|i never have|not any ?more|no longer|"
    r"not once|never once|not even once|not ever|never ever|not in this life(?:time)?|not at all|"
    r"not once,? not even [\w ]+)\W*$", _I)
_BARE_AFFIRMATION = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|correct|right|true|that's right|that's true|that is true|indeed|absolutely|"
    r"definitely|i am|i have|i did|i do|still am|i still am|i still do|sure am|of course|sure did|it is|it's true)\W*$",
    _I)
_DISCOURSE_LEAD = re.compile(r"^\W*(?:(?:between (?:you and me|us|the two of us|ourselves)|honestly|well|oh|ah|ha|"
                             r"hmm+|um+|so|actually|okay|ok)\W+)+", _I)
# VP ellipsis: an auxiliary or "been"/"going anywhere" with nothing after it ("I never did", "I've never been").
_ELLIPSIS_WORDS = frozenset({
    "i", "we", "i'm", "i've", "i'd", "we've", "we're", "we'd", "never", "not", "no", "did", "didn't", "do", "don't",
    "have", "haven't", "has", "hasn't", "had", "hadn't", "was", "wasn't", "were", "weren't", "am", "been", "be",
    "going", "anywhere", "actually", "really", "ever", "even", "either", "though", "honestly", "sadly", "afraid",
    "so", "all", "yet", "still", "personally", "myself", "but", "and", "sorry", "i'm afraid", "at", "there",
    "certainly", "definitely", "absolutely", "ah", "oh", "well", "nope", "no,", "just", "simply", "quite",
    "unfortunately", "alas", "ha"})
# What would have had to happen first did not ("I'd just have to have lived there first").
_PREREQUISITE_NOT_MET = _words(r"(?:i'd|i would) (?:just |first |still )?have (?:had )?to have (?:lived|been|worked|grown up|studied)")
# A reply that wishes the premise were true denies it ("I wish!", "If only I had!").
_WISH_REPLY = re.compile(r"^\W*(?:(?:oh|ah|ha|ho|honestly|god|gosh),?\s+)?(?:i wish|if only|chance would be a fine thing|"
                         r"in my dreams|dream on)(?:\s+(?:i|we)\s+(?:had|did|could|were|was|have))?\W*$", _I)
# A place still to come ("Montevideo's still on the list") is a place the identity has not lived.
_PLACE_TO_COME = _words(r"(?:still |firmly )?on (?:my|the) (?:bucket |wish |travel |to-visit )?list",
                        r"one day,? (?:i(?:'ll| will| hope)|hopefully)", r"(?:yet|still) to (?:visit|go|get there|make it)")
_THERE = _words(r"there", r"(?:that's|that is|that was|which is|which was) where")
# A declarative clause closed by a tag ("Bluefin, wasn't it?", "we named it X, right?") is a hedged assertion.
# A match never starts inside a run of white space (it would start at the run's first character anyway, as the
# search from there reaches every later split of the run): without "(?<!\s)", a long run is tried from each of
# its characters, quadratic in its length. The runs are possessive ("\s*+"): what follows each is not white
# space, so giving part of one back never helps.
_TAG_QUESTION = re.compile(
    r"(?:,|(?<!\s)\s)\s*+(?:right|wasn't it|was it not|isn't it|is it not|didn't we|did we not|don't we|didn't i|"
    r"haven't i|hadn't we|weren't we|wasn't i|aren't i|yeah|yes|no|correct|wasn't that it|if i remember|"
    r"i think|i believe|remember|no\?)\s*+(\?)", _I)
# Self-description as an AI system: the identity is not speaking, so nothing personal is asserted.
_ASSISTANT_VOICE = re.compile(
    r"(?<![\w'])(?:(?:i'm|i am|as)\s+(?:just\s+)?an?\s+(?:[\w-]+\s+){0,3}?(?:ai|assistant|language model|chatbot|"
    r"bot|llm)|i'm here to (?:help|assist|answer)|i am here to (?:help|assist|answer)|how (?:can|may) i (?:help|assist)|"
    r"(?:let me know|feel free to ask) if you have (?:any )?(?:other|more|further) questions|"
    # Stock sentences an assistant puts before or after any answer: they speak about the exchange, not the life.
    r"here(?:'s| is) (?:the|my|an|your) answer|(?:that's|what) a (?:great|good|interesting) question|"
    r"great question|hope (?:this|that) helps|as an ai|"
    # Talk about the prompt's own materials ("This identity evidence is…") is not the identity speaking.
    r"(?:this|the|supplied|provided|given)\s+(?:identity\s+)?evidence\s+(?:is|says|shows|states|suggests))(?![\w'])", _I)
# A sentence-initial predicate with no subject in reply to a question put to the identity
# ("Never lived there.", "Grew up in Bozeman.", "Loved it.") has the identity as its subject.
_IMPLICIT_SUBJECT = re.compile(
    r"^\W*(?:(?:never|not|hardly|barely|only|just|actually|really|honestly|once|always|mostly|mainly|"
    r"definitely|certainly|sadly|still|also|even)\s+)*(?:ever\s+)?(?:[a-z]{2,}ed|grew|spent|went|made|"
    r"took|got|knew|learnt|taught|left|came|met|saw|built|wrote|ran|set|been|studied|"
    r"(?:was|were|had|did|have|has)(?:n't)?)(?![\w'])", _I)
_PAST_TENSE = _words(r"was", r"were", r"had", r"did", r"used to", r"(?-i:[a-z])[a-z]{2,}ed")
# A negative quantifier heading a relative clause ("nothing I've had since in Zurich comes close")
# negates the main predicate, not what the relative clause says.
_NEG_QUANTIFIER_RELATIVE = re.compile(
    r"(?<![\w'])(?:nothing|nobody|no one|none|nowhere|no\s+[\w-]+)(?=\s+(?:(?:else|other)\s+)?"
    r"(?:i|i've|i'd|we|we've|that|which|who|you|since|ever)\b)", _I)
# A correction between two values of one slot: the later value stands ("Kestrel — sorry, I mean Bluefin").
_CORRECTION = _words(r"sorry", r"i mean", r"i meant", r"scratch that", r"wait", r"hang on", r"hold on",
                     r"correction", r"rather", r"no,", r"no —", r"no -", r"no wait", r"actually", r"i'm muddling",
                     r"mixing (?:myself|things|it) up", r"let me correct", r"or rather", r"not that", r"strike that")
_OTHER_SUBJECT = _words(r"you", r"he", r"she", r"they", r"it's", r"it is", r"that's", r"there's", r"which",
                        r"who", r"people", r"everyone", r"someone")
_NO_SUBJECT_START = re.compile(
    r"^\W*(?:(?:and|then|later|also|even|still|or|plus|before that|after that|afterwards|not|never|but not)\b|"
    r"(?!(?:the|a|an|this|these|those|its|their|his|her|some|every|each|most|ask|try|check|see|look|go|talk|"
    r"speak|email|google|come|do|please|let)\b)(?-i:[a-z]))", _I)
_IMPERATIVE_OR_DETERMINER = re.compile(r"^\W*(?:the|a|an|this|these|those|its|their|his|her|ask|try|check|see|look|"
                                       r"go|talk|speak|email|google|come|do|please|let)\b", _I)
_PRESUPPOSITION_BLOCK = _words(r"might", r"may", r"maybe", r"perhaps", r"if", r"whether", r"rumou?r", r"word is")
_HEARSAY = _words(r"sounds?(?: like)?", r"seems?(?: like)?")
_AUX_START = re.compile(r"^\W*(?:are|is|am|do|did|does|have|has|had|can|could|would|will|were|was|should|shall)\b", _I)
_FINITE = _words(r"is", r"are", r"was", r"were", r"am", r"be", r"been", r"has", r"have", r"had", r"do", r"does", r"did",
                 r"will", r"would", r"can", r"could", r"should", r"shall", r"may", r"might", r"must", r"i", r"we",
                 r"you", r"he", r"she", r"they", r"it", r"there", r"keeps?", r"gets?", r"makes?", r"sounds?",
                 r"seems?", r"looks?", r"goes", r"went", r"came")
_COPULAR_ANSWER = re.compile(r"^\W*(?:it's|it is|it was|that's|that was|that is)\s+(?:\w+\s+)?", _I)
_LEAD_ADVERB = re.compile(r"^\W*(?:(?:mostly|mainly|definitely|probably|maybe|perhaps|possibly|just|only|strictly|"
                          r"basically|largely|primarily|certainly|surely|oh|ah|well|hmm+|um+|honestly)\W+){0,2}", _I)
_CAPITALIZED_VALUE = re.compile(r"\s*(?:the\s+)?(?:['\"‘“]([^'\"’”]{1,40})['\"’”]|([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2}))")
_SUBJECT_BEFORE = re.compile(r"(?<![\w'])(?:i|we|i've|we've|i'd|we'd)\s+(?:[\w']+\s+)?$", _I)
_NAMED_NP = re.compile(r"\s*(?:a|an|the)\s+(?:[\w-]+\s+){0,3}?(?:called|named)(?=\s)", _I)
_CLASSIFIER_CALLED = re.compile(
    r"(?<![\w])(?:a|an|the)\s+(?:[\w-]+\s+){0,2}?(firm|company|start-?up|business|employer|labs?|studio|agency|"
    r"consultancy|outfit|city|town|project|rig)\s+(?:called|named)(?=\s)", _I)
_CLASSIFIER_PREDICATE = {"firm": "worked_at", "company": "worked_at", "startup": "worked_at", "start-up": "worked_at",
                         "business": "worked_at", "employer": "worked_at", "lab": "worked_at", "labs": "worked_at",
                         "studio": "worked_at", "agency": "worked_at", "consultancy": "worked_at", "outfit": "worked_at",
                         "city": "lived_in", "town": "lived_in", "project": "project_nickname",
                         "rig": "project_nickname"}
# "lived in Kyoto and (then) in Osaka": a second value of the same cue, not a new verb ("and returned to").
_CONTINUATION = re.compile(r"\s*,?\s*(?:and|or)\s*,?\s+(?:(?:then|later|also|briefly|afterwards|eventually|finally|"
                           r"after that|for (?:a|one|two|three|a few|several) (?:while|bit|spell|year|years|month|"
                           r"months|summer|winter|term|semester))\s*,?\s+)?(?:in|to|at)(?=\s)", _I)
_NOT_VALUES = {"i", "the", "a", "an", "my", "our", "it", "this", "that", "there", "then", "and", "but", "so",
               "we", "he", "she", "they", "you", "january", "february", "march", "april", "may", "june", "july",
               "august", "september", "october", "november", "december", "monday", "tuesday", "wednesday",
               "thursday", "friday", "saturday", "sunday", "yes", "no", "for", "in", "at", "on"}
_QUOTE = re.compile(r"[\"“”](?:[^\"“”]{0,400})[\"“”]")
# A sentence that can assert where the identity lived or grew up speaks of living, moving, being or time there.
_PLACE_PREDICATE_WORDS = _words(r"liv(?:e|ed|es|ing)", r"home", r"homes", r"based", r"mov(?:e|ed|es|ing)",
                                r"stay(?:ed|ing)?", r"spent", r"spend", r"years?", r"months?", r"time", r"abroad",
                                r"grew", r"grow(?:n|ing)?", r"raised", r"born", r"from", r"kid", r"childhood",
                                r"hometown", r"been", r"was", r"were", r"days", r"resident", r"settled", r"relocated")
_WORK_WORDS = _words(r"work(?:ed|ing)?", r"job", r"employed", r"on (?:the )?staff", r"staff")
_VISIT_WORDS = _words(r"visit(?:ed|ing|s)?", r"trip", r"holiday", r"vacation", r"tourist", r"conference", r"once",
                      r"a week", r"weekend", r"passing through", r"stopover", r"layover", r"been to")
_LIVING_WORDS = _words(r"liv(?:e|ed|es|ing)", r"grew", r"raised", r"born", r"home", r"moved", r"based", r"childhood")
_RETURN_BEFORE = re.compile(r"(?:\b(?:back|home)\s+(?:to|in)|\breturn(?:ed|ing|s)?\s+to)\s+$", _I)
_MODIFIED_NOUN = re.compile(r"[\s-]*(course|courses|class|classes|module|modules|lecture|lectures|seminar|"
                            r"textbook|book|books|exam|exams|stories|story|tales|anecdotes|photos|pictures|jokes|"
                            r"videos|podcast|podcasts|documentary|documentaries)\b", _I)
_COURSE_NOUNS = {"course", "courses", "class", "classes", "module", "modules", "lecture", "lectures", "seminar",
                 "textbook", "book", "books", "exam", "exams"}
_ABOUT_OTHER = re.compile(r"(?:\s+[\w']+){0,3}?\s+about\s+(?:[\w-]+\s+){0,3}?(?:other|different)\b", _I)
# What may precede the value of a verbless answer: discourse markers, hedging adverbs, "it was", "not".
_FRAGMENT_LEAD = re.compile(r"^\W*(?:(?:mostly|mainly|definitely|probably|maybe|perhaps|possibly|just|only|strictly|"
                            r"basically|largely|primarily|certainly|surely|oh|ah|well|hmm+|um+|honestly|so|not|"
                            r"it's|it is|it was|that's|that was|that is|the)\W+){0,3}$", _I)
_FRAGMENT_TAIL = re.compile(r"[\s-]*(?:[\w'’]+[\s-]+){0,3}?[\w'’]*\s*(?:[,.!?;:]|$)")
_NAME_BEFORE = re.compile(r"(?<![\w'’])(?!I )[A-Z][\w'’-]* $")
_COMPOUND_GAP = re.compile(r"^[\s-]*(?:based[\s-]+)?$", _I)


@dataclass(frozen=True)
class _Form:
    prop: Proposition
    parts: tuple[int, ...]
    """Indices into the vocabulary's compound parts."""
    topic: tuple[bool, ...]
    """Which parts name the shared topic (a part used by several propositions' forms); only these may be
    left to the context."""


_CONSONANT_Y = re.compile(r"(?<=[^aeiouAEIOU\W])y$")


def _phrase_regex(phrase: str) -> str:
    """A form's words, any spacing or hyphen between them; a final consonant + "y" also as "ies"/"ied"
    ("galaxy" → "galaxies", "study" → "studied")."""
    words = [re.escape(w) for w in phrase.split()]
    if words:
        words[-1] = _CONSONANT_Y.sub("(?:y|ies|ied)", words[-1])
    return r"[\s-]+".join(words)


def _form_pattern(phrase: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w])" + _phrase_regex(phrase) + r"(?:s|es|ed|ing|ers?)?(?![\w])", _I)


_Trie = dict[str, "_Trie"]
"""A prefix trie of tokens; the key ``""`` marks where a form ends."""


def _trie_pattern(forms: Sequence[str]) -> str:
    """A regex that matches where any of ``forms`` starts (a prefix trie, so one pass tries them all)."""
    trie: _Trie = {}
    for form in forms:
        node = trie
        # A prefilter may match more: a final "y" is left off so that "galaxies" passes for "galaxy".
        for token in re.findall(r"\S| ", _CONSONANT_Y.sub("", " ".join(form.lower().split()))):
            node = node.setdefault(token, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        if "" in node:
            return ""  # some form is complete here: enough for a prefilter
        branches = [(r"[\s-]+" if token == " " else re.escape(token)) + emit(child)
                    for token, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"

    return emit(trie)


def _short_names(universe: Sequence[Proposition], forms: set[str]) -> list[tuple[str, Proposition]]:
    """An organisation is often named by the first word of its name alone ("Emberton" for "Emberton
    Engineering"): that word becomes a form when no other value in the universe starts with or contains it."""
    first: dict[str, list[Proposition]] = {}
    for prop in universe:
        words = prop.value.split()
        if prop.predicate.kind is PredicateKind.ORGANIZATION and len(words) >= 2 and words[0][:1].isupper():
            first.setdefault(words[0].lower(), []).append(prop)
    out = []
    for word, props in first.items():
        others = [p for p in universe if p not in props and word in p.value.lower().split()]
        if len(props) == 1 and not others and word not in forms and len(word) >= 4 and word not in _STOPWORDS:
            out.append((word, props[0]))
    return out


def _value_words(text: str) -> frozenset[str]:
    return frozenset(w for w in _NON_WORD_RUN.split(text.lower()) if w)


@dataclass
class _EnvelopeFacts:
    presupposed: list[Proposition]
    asked: list[Proposition]
    answer_domains: frozenset[str]
    addressed: bool
    year: int | None
    context: str
    question_props: frozenset[str] = frozenset()
    """What the question sentence asks about: props it names, their slot-mates (a place or a name can be
    answered by another value) and, for knowledge, the members of their equivalence class."""
    question_domains: frozenset[str] = frozenset()
    """Domains the question sentence itself asks about (not those only named in a preamble)."""
    polar: bool = False
    """The question is a yes/no question ("Are you still set on the narrowboat?")."""
    asked_changes: tuple[Proposition, ...] = ()
    """Changes of mind a yes/no question asks about ("Has your thinking on zoos changed?")."""
    asked_classes: frozenset[str] = frozenset()
    """Equivalence classes of the knowledge the question asks about."""
    short_names: tuple[tuple[Proposition, re.Pattern[str]], ...] = ()
    """Organisations the question names, each with the first word of its name ("Emberton")."""
    open_question: bool = False
    """The question asks for a description or a view ("What was it like…?", "Tell me about…", "Where do you
    stand on…?"): its answer may say in its own words what no surface form names (a confidence signal only)."""


_TYPO_TOKEN = re.compile(r"(?<![\w'’-])[A-Za-z]{5,}(?![\w'’-])")


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DATE = re.compile(r"(?<![\w'])(?:(?P<month>" + "|".join(_MONTHS) + r")\s+(?:of\s+)?)?(?P<year>1[89]\d\d|20\d\d)"
                   r"(?![\w'])", _I)


def _stated_date(clause: str) -> str | None:
    """The one calendar date a clause gives (``YYYY`` or ``YYYY-MM``), or None when it gives none or several."""
    found = list(_DATE.finditer(clause))
    if len(found) != 1 or _RANGE_BEFORE.search(clause[:found[0].start()]):
        return None
    month = found[0].group("month")
    year = found[0].group("year")
    return f"{year}-{_MONTHS.index(month.lower()) + 1:02d}" if month else year


def _cued_elsewhere(text: str, prop: Proposition, vocabulary: Vocabulary) -> bool:
    """Whether a cue of the premise's own closed-world slot introduces a value other than the premise's."""
    if vocabulary._cw_cue is None:
        return False
    for m in vocabulary._cw_cue.finditer(text):
        decl = vocabulary._cw_decls[int(m.lastgroup[1:])][0]  # type: ignore[index]
        value = _CAPITALIZED_VALUE.match(text, m.end()) if decl.slot == prop.slot else None
        named = (value.group(1) or value.group(2) or "").strip() if value else ""
        if named and named.lower() not in _NOT_VALUES and not any(
                f.split("+")[0].strip() in named.lower() for f in [prop.value.lower(), *prop.surface_forms]):
            return True
    return False


def _cue_regex(cue: str) -> str:
    """A closed-world cue as a pattern: a particle may follow its verb ("moved back to" for "moved to")."""
    head, sep, rest = cue.partition(" ")
    if not sep:
        return re.escape(cue)
    return re.escape(head) + r"(?:\s+(?:back|over|out|away|across|down|home))?\s+" + re.escape(rest)


def _typo_index(universe: Sequence[Proposition]) -> dict[str, str]:
    """Misspellings of the registry's words that keep their length, mapped to the word.

    Two adjacent letters swapped ("cryptogrpahy", "Periwinkel"), in a word of seven letters or more
    or a proper name of five or more: shorter common words do collide ("trail"/"trial",
    "casual"/"causal"). One wrong letter is not corrected: real names one letter away from a
    registry value are common ("Austen"/"Austin", "Sidney"/"Sydney").
    """
    words: set[str] = set()
    swappable: set[str] = set()
    for prop in universe:
        for phrase in (prop.value, *prop.surface_forms):
            for word in re.findall(r"[A-Za-z]+", phrase):
                low = word.lower()
                words.add(low)
                if len(word) >= 7 or (word[0].isupper() and low not in _STOPWORDS and len(word) >= 5):
                    swappable.add(low)
    index: dict[str, str] = {}
    ambiguous: set[str] = set()
    for word in sorted(swappable):
        for i in range(len(word) - 1):
            if word[i] != word[i + 1]:
                key = word[:i] + word[i + 1] + word[i] + word[i + 2:]
                if key in words or index.get(key, word) != word:
                    ambiguous.add(key)
                index.setdefault(key, word)
    return {k: v for k, v in index.items() if k not in ambiguous}


def _correct_typos(text: str, typos: dict[str, str]) -> tuple[str, bool]:
    """``text`` with the registry words it misspells (see :func:`_typo_index`) spelled right; same length."""
    if not typos:
        return text, False
    out: list[str] = []
    pos = 0
    for m in _TYPO_TOKEN.finditer(text):
        token = m.group(0)
        low = token.lower()
        word = typos.get(low)
        if word is None or word == low or len(word) != len(token):
            continue
        fixed = word.upper() if token.isupper() else word.capitalize() if token[0].isupper() else word
        out.append(text[pos:m.start()])
        out.append(fixed)
        pos = m.end()
    if not out:
        return text, False
    out.append(text[pos:])
    return "".join(out), True


class Vocabulary:
    """The extractor's compiled inputs: the universe X_q and the closed-world vocabulary D_CW."""

    def __init__(self, universe: Sequence[Proposition], closed_world: Sequence[ClosedWorldDeclaration]):
        self.universe = tuple(universe)
        self.closed_world = tuple(closed_world)
        self.by_id = {p.prop_id: p for p in self.universe}
        self._order = {p.prop_id: i for i, p in enumerate(self.universe)}
        self._index_forms()
        self._value_words = {p.prop_id: _value_words(p.value) for p in self.universe}
        self._typos = _typo_index(self.universe)
        self._envelope_cache: dict[tuple[str, str], _EnvelopeFacts] = {}
        self._index_slots()
        self._index_closed_world()
        self._stances = _stance_index(self.universe)
        self._gloss_stems = {p.prop_id: frozenset(_stem(w) for w in _content_words(p.gloss))
                             for p in self.universe if p.world_fact}
        self._index_disciplines()

    def _index_forms(self) -> None:
        """The surface forms: compound forms (``part + part``) by their parts, simple forms as one alternation,
        and the simple forms by the character they start with."""
        self._forms: list[_Form] = []
        simple: list[tuple[str, Proposition]] = []
        users: dict[str, set[str]] = {}
        for prop in self.universe:
            for form in prop.surface_forms:
                for part in form.split("+") if "+" in form else ():
                    users.setdefault(part.strip().lower(), set()).add(prop.prop_id)
        part_names = sorted(users, key=lambda n: (-len(n), n))
        part_index = {name: i for i, name in enumerate(part_names)}
        self._part_patterns = [_form_pattern(name) for name in part_names]
        self._parts = re.compile(r"(?<![\w])(?:" + "|".join(_phrase_regex(n) for n in part_names)
                                 + r")(?:s|es|ed|ing|ers?)?(?![\w])", _I) if part_names else None
        self._parts_of: dict[str, tuple[int, ...]] = {}
        for prop in self.universe:
            for form in prop.surface_forms:
                if "+" in form:
                    names = [part.strip().lower() for part in form.split("+") if part.strip()]
                    self._forms.append(_Form(prop, tuple(part_index[n] for n in names),
                                             tuple(len(users[n]) > 1 for n in names)))
                else:
                    simple.append((form, prop))
        simple.extend(_short_names(self.universe, {f for f, _ in simple}))
        # One alternation for every simple form: a single scan per clause instead of one per form.
        self._simple_props = [prop for _, prop in simple]
        self._simple_regexes = [_phrase_regex(form) for form, _ in simple]
        self._simple = self._alternation(range(len(simple))) if simple else None
        # The alternation tried where a form may start holds only the forms that can begin with the
        # character there (an ASCII character matches, case aside, only forms that begin with it; a form
        # that begins otherwise is kept in every one), in the same order: the same form wins.
        self._initials: dict[str, list[int]] = {}
        anywhere: list[int] = []
        for i, (form, _) in enumerate(simple):
            initial = form.split()[0][0] if form.split() else ""
            if initial.isascii() and initial:
                self._initials.setdefault(initial.lower(), []).append(i)
            else:
                anywhere.append(i)
        self._anywhere = anywhere
        self._simple_by_initial: dict[str, re.Pattern[str] | None] = {}
        # Where a simple form may start; the exact alternation then runs only at those positions.
        self._starts = re.compile(r"(?<![\w])(?=" + _trie_pattern([f for f, _ in simple]) + ")", _I) \
            if simple else None

    def _index_slots(self) -> None:
        """Indexes of the universe by equivalence class and slot: what a question asks is found by lookup rather
        than a pass over every proposition per envelope."""
        self._domains_of_slot: dict[str, set[str]] = {}
        self._ids_of_class: dict[str, set[str]] = {}
        self._ids_of_slot: dict[str, set[str]] = {}
        self._non_epistemic_ids_of_slot: dict[str, set[str]] = {}
        for prop in self.universe:
            self._domains_of_slot.setdefault(prop.slot, set()).add(prop.domain)
            if prop.equivalence_class:
                self._ids_of_class.setdefault(prop.equivalence_class, set()).add(prop.prop_id)
            self._ids_of_slot.setdefault(prop.slot, set()).add(prop.prop_id)
            if not prop.predicate.is_epistemic:
                self._non_epistemic_ids_of_slot.setdefault(prop.slot, set()).add(prop.prop_id)

    def _index_closed_world(self) -> None:
        """One combined cue regex over every closed-world declaration; the group name says which."""
        self_slots = {p.slot for p in self.universe if p.entity == "self"}
        self._cw_decls: list[tuple[ClosedWorldDeclaration, bool, bool]] = []
        cue_alternatives = []
        for decl in self.closed_world:
            for cue in decl.cues:
                index = len(self._cw_decls)
                pronoun = bool(_FIRST_PERSON.search(cue))
                self._cw_decls.append((decl, decl.slot in self_slots, pronoun))
                cue_alternatives.append(f"(?P<c{index}>" + _cue_regex(cue) + ")")
        self._cw_cue = re.compile(r"(?<![\w])(?:" + "|".join(cue_alternatives) + r")(?![\w])", _I) \
            if cue_alternatives else None
        self._decl_by_predicate = {decl.predicate: decl for decl in self.closed_world}

    def _index_disciplines(self) -> None:
        """The discipline a world fact belongs to (its registry domain) names the knowledge of that fact."""
        self._discipline_props: dict[str, list[Proposition]] = {}
        for fact in self.universe:
            if fact.world_fact and fact.equivalence_class:
                mates = [p for p in self.universe if p.equivalence_class == fact.equivalence_class
                         and p.predicate.is_acquired]
                self._discipline_props.setdefault(fact.domain.lower(), []).extend(mates)
        self._discipline = re.compile(r"(?<![\w])(?:" + "|".join(
            re.escape(d) for d in sorted(self._discipline_props, key=len, reverse=True)) + r")(?![\w])", _I) \
            if self._discipline_props else None

    def _alternation(self, indices: Iterable[int]) -> re.Pattern[str]:
        """The simple forms ``indices`` (in order) as one regex; group ``f<i>`` is form ``i``."""
        alternatives = "|".join(f"(?P<f{i}>" + self._simple_regexes[i] + ")" for i in indices)
        return re.compile(r"(?<![\w])(?:" + alternatives + r")(?:s|es|ed|ing|ers?)?(?![\w])", _I)

    def _simple_at(self, text: str, start: int) -> re.Pattern[str] | None:
        """The alternation of the simple forms that can match at ``start`` (None: none can)."""
        char = text[start]
        if not char.isascii():
            return self._simple  # case folding beyond ASCII ("ſ" is "s"): every form
        key = char.lower()
        if key not in self._simple_by_initial:
            indices = sorted([*self._initials.get(key, ()), *self._anywhere])
            self._simple_by_initial[key] = self._alternation(indices) if indices else None
        return self._simple_by_initial[key]

    def _scan(self, text: str, context: str = "", topic_context: str = "") -> list[tuple[Proposition, int, int]]:
        """Every occurrence of every form; a compound form may take missing parts from ``context``."""
        found: list[tuple[Proposition, int, int]] = []
        if self._simple is not None and self._starts is not None:
            reached = 0
            for candidate in self._starts.finditer(text):
                if candidate.start() < reached:
                    continue
                simple = self._simple_at(text, candidate.start())
                m = simple.match(text, candidate.start()) if simple is not None else None
                if m is not None:
                    found.append((self._simple_props[int(m.lastgroup[1:])], m.start(), m.end()))  # type: ignore[index]
                    reached = m.end()
        if self._forms:
            here = self._part_positions(text)
            if here:
                there = self._part_positions(context) if context else {}
                for form in self._forms:
                    hits = [here.get(i) for i in form.parts]
                    if all(hits) or (there and any(hits) and all(
                            h or (topic and i in there) for h, i, topic in zip(hits, form.parts, form.topic, strict=True))):
                        start, end = next(h for h in reversed(hits) if h is not None)
                        found.append((form.prop, start, end))
        if self._stances:
            found.extend(_stance_mentions(self._stances, text, context + " " + topic_context))
        found.sort(key=lambda f: f[1])
        return found

    def _part_positions(self, text: str) -> dict[int, tuple[int, int]]:
        """First position of every compound-form part in ``text`` (one scan)."""
        out: dict[int, tuple[int, int]] = {}
        if self._parts is None:
            return out
        for m in self._parts.finditer(text):
            key = m.group(0).lower()
            indices = self._parts_of.get(key)
            if indices is None:
                indices = tuple(i for i, pattern in enumerate(self._part_patterns) if pattern.fullmatch(m.group(0)))
                if len(self._parts_of) < 4096:
                    self._parts_of[key] = indices
            for i in indices:
                out.setdefault(i, (m.start(), m.end()))
        return out

    def _filtered(self, text: str, context: str = "", topic_context: str = "") -> list[tuple[Proposition, int, int]]:
        """Occurrences that are mentions (see the module docstring for what is not); a belief's topic may
        also come from ``topic_context`` (the question)."""
        found = self._scan(text, context, topic_context)
        if not found:
            return found
        dropped: set[int] = set()
        for i, (prop, start, end) in enumerate(found):
            surface = text[start:end]
            if (surface[:1].isupper() and not prop.value[:1].isupper() and start > 0
                    and _NAME_BEFORE.search(text, max(0, start - 40), start)):
                dropped.add(i)  # part of a proper name ("Cascadia Robotics")
                continue
            after = _MODIFIED_NOUN.match(text, end)
            if after and not (prop.predicate.is_acquired and after.group(1).lower() in _COURSE_NOUNS):
                dropped.add(i)  # modifier of a course or a story ("a crypto course", "sailing stories")
                continue
            if prop.predicate.is_place and _RETURN_BEFORE.search(text, max(0, start - 20), start):
                dropped.add(i)  # the goal of a return ("moved back to Cork")
                continue
            if prop.predicate is Predicate.STANCE_CHANGE and _ABOUT_OTHER.match(text, end):
                dropped.add(i)  # a change of mind about other things
        for i in range(len(found) - 1):
            (a, sa, ea), (b, sb, eb) = found[i], found[i + 1]
            if a.prop_id == b.prop_id or sb < ea or not _COMPOUND_GAP.match(text[ea:sb]):
                continue
            words = _value_words(text[sa:eb]) - {"based"}
            if words <= self._value_words[a.prop_id]:
                dropped.add(i + 1)  # "lattice cryptography" is the lattice topic, not the field
            elif words <= self._value_words[b.prop_id]:
                dropped.add(i)
        return [f for i, f in enumerate(found) if i not in dropped]

    def _facts_of_classes(self, classes: frozenset[str]) -> list[Proposition]:
        return [p for p in self.universe if p.world_fact and p.equivalence_class in classes]

    def _explains(self, fact: Proposition, said: frozenset[str], asked: frozenset[str]) -> bool:
        """Two or more words of the fact's gloss (``said``: the clause's stems) that the question
        (``asked``: its stems) did not already use."""
        return len((said & self._gloss_stems.get(fact.prop_id, frozenset())) - asked) >= 2

    def mentions(self, text: str) -> list[tuple[Proposition, int, int]]:
        """Propositions whose surface forms occur in ``text`` as mentions, each once (first occurrence),
        in universe order."""
        found: dict[str, tuple[Proposition, int, int]] = {}
        for prop, start, end in self._filtered(text):
            found.setdefault(prop.prop_id, (prop, start, end))
        return sorted(found.values(), key=lambda f: self._order[f[0].prop_id])


def _count_negators(text: str) -> int:
    if not _NEGATOR.search(text) and not _ABANDON.search(text):
        return 0
    # A "no" set off by commas ("I didn't live there, no.") agrees with the clause; it is no second negator.
    stripped = _NEG_PARTICLE.sub(" ", _NEG_QUANTIFIER_RELATIVE.sub(" ", _FALSE_NEGATORS.sub(" ", text)))
    return len(_NEGATOR.findall(stripped)) + len(_ABANDON.findall(stripped))


_NEG_PARTICLE = re.compile(r"(?:^|,)\s*(?:no|nope|nah)\s*(?=[,.!?;—–-]|$)", _I)
_PREDICATE_END = re.compile(r"[,;:]|\s(?:which|that|who|and|you|because|since|so)\s", _I)


_NEGATIVE_INVERSION = re.compile(r"^\W*(?:not once|never once|not one|not a single|never)\b[^,;]*?\b(?:did|do|have|had|could|would)\s+(?:i|we)\b", _I)


# A mention inside the object of a negated verb, after a negative-polarity pronoun ("I haven't told anyone at
# Northgate", "nobody at Marlowe knows"): the negation is about the people, not the place or employer.
_NPI_OBJECT = re.compile(r"(?<![\w'])(?:anyone|anybody|a soul|no ?one|nobody|any of (?:my|the|our) [\w-]+)\s+"
                         r"(?:else\s+)?(?:at|in|from)\s+(?:the\s+)?$", _I)


def _negated_at(text: str, start: int, end: int) -> bool:
    """Polarity of a mention: negators before it; a clause-initial subject also takes its predicate's."""
    if _NPI_OBJECT.search(text, max(0, start - 40), start):
        return False
    inverted = _NEGATIVE_INVERSION.match(text)
    if inverted and start < inverted.end():
        return False  # "Not once in Vienna did I have a bad slice": Vienna frames the negated predicate
    before = _count_negators(text[:start])
    if before == 0 and len(text[:start].split()) <= 3:
        stop = _PREDICATE_END.search(text, end)
        return _count_negators(text[end:stop.start() if stop else len(text)]) % 2 == 1
    return before % 2 == 1


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _mask_quotes(text: str) -> str:
    def mask(m: re.Match[str]) -> str:
        inner = m.group(0)
        return " " * len(inner) if len(inner.split()) >= 4 else inner

    return _QUOTE.sub(mask, text)


def _provenance(prop: Proposition, text: str) -> ClaimProvenance:
    """Clause-local provenance: knowledge and skills are acquired, other facts lived, unless told."""
    if _TOLD_CUE.search(text):
        return ClaimProvenance.TOLD_BY
    if prop.predicate.is_acquired:
        return ClaimProvenance.ACQUIRED
    return ClaimProvenance.PERSONAL_EXPERIENCE


def _is_place(prop: Proposition) -> bool:
    return prop.predicate.is_place


# One pattern per domain: a cue of the domain as a whole word (compiled once, not per call).
_DOMAIN_CUE_PATTERNS: dict[str, re.Pattern[str]] = {
    domain: re.compile(r"(?<!\w)(?:" + "|".join(re.escape(c) for c in cues) + r")(?!\w)", _I)
    for domain, cues in DOMAIN_CUES.items()}


def _envelope_facts(envelope: Envelope, vocabulary: Vocabulary) -> _EnvelopeFacts:
    key = (envelope.utterance, str(envelope.date))
    cached = vocabulary._envelope_cache.get(key)
    if cached is None:
        utterance = envelope.utterance
        mentioned = [p for p, _, _ in vocabulary.mentions(utterance) if not p.world_fact]
        domains = {d for d, cue in _DOMAIN_CUE_PATTERNS.items() if cue.search(utterance)}
        domains |= {p.domain for p in mentioned}
        # Every question in the conversation is put to the identity, with or without a "you".
        addressed = bool(_SECOND_PERSON.search(utterance) or _FIRST_PERSON.search(utterance) or "?" in utterance)
        year = envelope.date.year if hasattr(envelope.date, "year") else None
        # What is asked: the questions and requests, not a preamble of hearsay ("Word is you might…").
        questions = " ".join(m.group(0) for m in _SENTENCE.finditer(utterance)
                             if "?" in m.group(0) or _REQUEST.match(m.group(0))) or utterance
        named = [p for p, _, _ in vocabulary.mentions(questions)]
        q_domains = {d for d, cue in _DOMAIN_CUE_PATTERNS.items() if cue.search(questions)}
        q_domains |= {p.domain for p in named}
        classes = {p.equivalence_class for p in named if p.equivalence_class}
        q_props = {p.prop_id for p in named}
        for equivalence_class in classes:
            q_props |= vocabulary._ids_of_class.get(equivalence_class, set())
        for slot in {n.slot for n in named}:
            q_props |= vocabulary._non_epistemic_ids_of_slot.get(slot, set())
        presupposed = _presupposed(envelope, vocabulary)
        for slot in {p.slot for p in presupposed}:
            q_props |= vocabulary._ids_of_slot.get(slot, set())  # answering about the premise's slot answers the question
        question_stems = {_stem(w) for w in re.findall(r"[A-Za-z][\w'-]*", questions)}
        for stance in vocabulary._stances:
            if _on_topic(stance.topic, question_stems):
                q_props.add(stance.prop.prop_id)  # "Where do you stand on zoos?" asks for a zoo stance
        cached = _EnvelopeFacts(presupposed=presupposed, asked=mentioned,
                                answer_domains=frozenset(domains), addressed=addressed, year=year,
                                context=utterance, question_props=frozenset(q_props),
                                question_domains=frozenset(q_domains), asked_classes=frozenset(classes),
                                # "Can you explain…?" is a request for the content, not a yes/no question.
                                polar=any(_AUX_START.match(m.group(0)) and not _POLITE_REQUEST.match(m.group(0))
                                          for m in _SENTENCE.finditer(questions) if "?" in m.group(0)),
                                asked_changes=tuple(p for p in vocabulary.universe if p.prop_id in q_props
                                                    and p.predicate is Predicate.STANCE_CHANGE)
                                if _CHANGE_OF_MIND.search(questions) or re.search(r"\bchang", questions, _I) else (),
                                short_names=_asked_short_names(mentioned),
                                open_question=bool(_OPEN_QUESTION.search(questions)))
        if len(vocabulary._envelope_cache) > 4096:
            vocabulary._envelope_cache.clear()
        vocabulary._envelope_cache[key] = cached
    return cached


def _asked_short_names(asked: Sequence[Proposition]) -> tuple[tuple[Proposition, re.Pattern[str]], ...]:
    out = []
    for prop in asked:
        words = prop.value.split()
        if (prop.predicate.kind is PredicateKind.ORGANIZATION and len(words) >= 2 and words[0][:1].isupper()
                and len(words[0]) >= 4 and words[0].lower() not in _STOPWORDS):
            out.append((prop, re.compile(r"(?<![\w'’-])" + re.escape(words[0]) + r"(?!['’]s\b)(?![\w-])")))
    return tuple(out)


def presupposed(envelope: Envelope, vocabulary: Vocabulary) -> list[Proposition]:
    """Facts about the identity that the utterance takes for granted (wh-questions and statements
    addressed to "you"; not yes/no questions, not hedged rumours)."""
    return list(_envelope_facts(envelope, vocabulary).presupposed)


def _presupposed(envelope: Envelope, vocabulary: Vocabulary) -> list[Proposition]:
    out: dict[str, Proposition] = {}
    for clause in clauses(clean(envelope.utterance)):
        if _PRESUPPOSITION_BLOCK.search(clause.text) or _AUX_START.search(clause.text) \
                or _count_negators(clause.text) % 2:
            continue
        # "When you lived in X…?" presupposes X; so does "How is the council seat going?": a question
        # about how one's own plan is going takes the plan for granted.
        own_plan_question = clause.question and bool(_WH_OR_NEWS.match(clause.text))
        if not _SECOND_PERSON.search(clause.text) and not own_plan_question:
            continue
        for prop, _, _ in vocabulary.mentions(clause.text):
            if prop.world_fact:
                continue
            if prop.predicate.kind in (PredicateKind.STANCE, PredicateKind.STANCE_CHANGE):
                continue  # a view is asked for, never presupposed
            if _SECOND_PERSON.search(clause.text) or not prop.predicate.is_epistemic:
                out.setdefault(prop.prop_id, prop)  # "What was it like working at X?" takes X for granted
    return list(out.values())


def asked_about(envelope: Envelope, vocabulary: Vocabulary) -> list[Proposition]:
    """Facts about the identity the utterance mentions (what a bare yes/no answers)."""
    return list(_envelope_facts(envelope, vocabulary).asked)


@dataclass
class _ClauseFacts:
    clause: Clause
    mentioned: list[Proposition]
    first_person: bool
    own_first_person: bool
    asserting: bool = False
    answer_like: bool = False
    irrealis: bool = False
    claims: list[ExtractedClaim] = field(default_factory=list)


def _fragment_start(body: str) -> int | None:
    """Where the answer value starts when the clause is a verbless answer ("Mostly cryptography, I think",
    "It was cryptography"), else None."""
    copular = _COPULAR_ANSWER.match(body)
    if copular:
        rest = body[copular.end():]
        return copular.end() if not _FINITE.search(rest) else None
    lead = _LEAD_ADVERB.match(body)
    start = lead.end() if lead else 0
    rest = body[start:]
    if _IMPERATIVE_OR_DETERMINER.match(rest) or _FINITE.search(rest):
        return None
    return start


@dataclass(slots=True)
class _Reading:
    """What the stages of :func:`extract` pass along: the masked text, what the clause walk carries from one
    clause to the next, the clauses read so far, the claims and acts, and the signals."""

    envelope: Envelope
    vocabulary: Vocabulary
    env: _EnvelopeFacts
    text: str
    signals: set[str]
    engaged: bool
    assistant_voice: bool
    hedged: bool
    env_stems: frozenset[str]
    envelope_places: list[Proposition]
    place_words: SliceSearch
    visit_words: SliceSearch
    living_words: SliceSearch
    trace: list[tuple[str, str]] | None = None
    acts: set[Act] = field(default_factory=set)
    claims: dict[tuple[str, bool], ExtractedClaim] = field(default_factory=dict)
    unmapped: list[UnmappedAssertion] = field(default_factory=list)
    unmapped_spans: set[tuple[int, int]] = field(default_factory=set)  # the spans of ``unmapped``: one lookup a clause
    facts: list[_ClauseFacts] = field(default_factory=list)
    explicit: set[str] = field(default_factory=set)
    not_knowing: bool = False
    withheld: bool = False
    general_answer: bool = False
    hearsay: bool = False
    acquisition_statement: bool = False
    # The clause walk: the sentence and paragraph the current clause is in, and what earlier clauses set.
    general_paragraph: bool = False
    previous_sentence: int = -1
    sentence_places: bool = False
    line_end: int = -1  # the end of the line the current sentence starts on
    label_historical: bool = False
    cannot_supply: bool = False
    """A clause says the asked content cannot be given ("I can't point you to one")."""
    last_place: Proposition | None = None
    # What the latest clause that named something other than a fact or a place named first (kept as the
    # clauses go, not searched for again in every clause), and its value before the current clause.
    last_named: Proposition | None = None
    decided: Proposition | None = None
    narrated_sentence: int = -1
    narrated_names: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Frame:
    """One clause as the clause stages read it: its words without conditional hedges, who speaks, what it names."""

    clause: Clause
    body: str
    span: tuple[int, int]
    core: str
    own_first_person: bool
    first_person: bool
    sentence_start: bool
    fragment_at: int | None
    elaboration: bool
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    mentioned: list[Proposition] = field(default_factory=list)
    record: _ClauseFacts | None = None
    stripped: str = ""
    rejecting: bool = False
    historical: bool = False


def _add(r: _Reading, prop: Proposition, polarity: bool, provenance: ClaimProvenance,
         span: tuple[int, int]) -> ExtractedClaim:
    """The claim ``prop``/``polarity`` (the first one made of it is kept)."""
    key = (prop.prop_id, polarity)
    claim = ExtractedClaim(prop_id=prop.prop_id, polarity=polarity, provenance=provenance, span=span)
    r.claims.setdefault(key, claim)
    return r.claims[key]


def _negate(r: _Reading, targets: list[Proposition], record: _ClauseFacts, span: tuple[int, int]) -> None:
    r.acts.add(Act.REJECT)
    for prop in targets:
        provenance = ClaimProvenance.ACQUIRED if prop.predicate.is_acquired \
            else ClaimProvenance.PERSONAL_EXPERIENCE
        record.claims.append(_add(r, prop, False, provenance, span))
        if prop.predicate.is_acquired:
            r.acts.add(Act.ABSTAIN)
            r.not_knowing = True


def _antecedents(r: _Reading) -> list[Proposition]:
    """What a clause that names nothing answers about: the previous clause's values, else the question's."""
    env, facts = r.env, r.facts
    # A bare "Not any more" answers about a stance, not about having changed one's mind.
    # "Now phones are allowed. So no, I haven't always felt that way.": a "no" after the identity's own statement
    # answers the question, never that statement.
    before = facts[-2] if len(facts) > 1 else None
    stated = {c.prop_id for c in before.claims if c.polarity} if before is not None and before.own_first_person else set()
    previous = [p for p in (before.mentioned if before is not None else [])
                if not p.world_fact and p.predicate is not Predicate.STANCE_CHANGE and p.prop_id not in stated]
    if not previous and env.polar and env.asked_changes:
        return list(env.asked_changes)  # "Has your view changed?" — "No, it hasn't."
    return previous or env.presupposed or env.asked


def _mask(response: str, envelope: Envelope, vocabulary: Vocabulary,
          trace: list[tuple[str, str]] | None) -> _Reading:
    """Stage 1, masking: typos, quotations, tag questions, echoes of the question, an assistant's voice, record
    dumps and repetition; the state every later stage reads."""
    env = _envelope_facts(envelope, vocabulary)
    signals: set[str] = set()
    text, corrected = _correct_typos(clean(str(response)), vocabulary._typos)
    if corrected:
        signals.add("typo_corrected")
    quoted = _mask_quotes(text)
    if quoted != text:
        signals.add("reported_speech")  # a quotation is someone's words, masked: what it said is not read
    text, tagged = _untag_questions(quoted)
    if tagged:
        signals.add("tag_question")
    text, echoed = _mask_echo(text, envelope)
    if echoed:
        signals.add("echo_masked")
    text, assistant_voice = _mask_assistant_voice(text)
    if assistant_voice:
        signals.add("assistant_voice")
    text, records = _mask_records(text)
    if records:
        signals.add("record_dump")
    degenerate = _repetitive(text)
    if degenerate:
        signals.add("repetition")
    # A reply left empty once echoes and assistant-voice sentences are removed does not speak to the question; one
    # that still denies, declines or answers in its other sentences does ("I never lived in Kyoto. I'm an AI, so no
    # matcha memories of my own"): engagement is then decided on what is left, like any reply's.
    engaged = bool(text.strip()) and not degenerate
    r = _Reading(envelope=envelope, vocabulary=vocabulary, env=env, text=text, signals=signals, engaged=engaged,
                 assistant_voice=assistant_voice, hedged=tagged,
                 env_stems=frozenset(_stem(w) for w in _content_words(envelope.utterance)),
                 envelope_places=[p for p in env.asked if _is_place(p)],
                 place_words=SliceSearch(_PLACE_PREDICATE_WORDS, text), visit_words=SliceSearch(_VISIT_WORDS, text),
                 living_words=SliceSearch(_LIVING_WORDS, text), trace=trace)
    if trace is not None:
        trace.append(("mask", f"{text!r} signals={sorted(signals)}"))
    return r


def _enter_sentence(r: _Reading, clause: Clause) -> None:
    """Stage 2, at the first clause of a sentence: the paragraph and line it stands in."""
    text = r.text
    # A blank line ends the reach of a "speaking generally" label, unless the label introduced what follows
    # ("Here's the general picture:").
    if "\n\n" in text[max(0, clause.start - 3):clause.start] and not text[:clause.start].rstrip().endswith(":"):
        r.general_paragraph = False
    r.previous_sentence = clause.sentence
    if r.line_end < clause.start:
        line_end = text.find("\n", clause.start)
        r.line_end = line_end if line_end >= 0 else len(text)
    # Read from the sentence to the end of its line. A visit ("I've only been to Paris once, for a
    # conference") is not where one lived or grew up.
    r.sentence_places = r.place_words.found(clause.start, r.line_end) and not (
        r.visit_words.found(clause.start, r.line_end) and not r.living_words.found(clause.start, r.line_end))
    if not (r.facts and r.facts[-1].clause.label):
        r.label_historical = False


def _frame(r: _Reading, clause: Clause) -> _Frame:
    """Stage 2, the clause frame: hedges, who speaks (the identity, an implicit subject, a sentence's subject
    carried on), and whether the clause is a verbless answer fragment or an elaboration after a label."""
    body, env, facts = clause.text, r.env, r.facts
    if _GENERAL_LABEL.search(body):
        r.general_paragraph = True
    core = _HEDGE_CONDITIONAL.sub(_blank, body) if "if" in body.lower() else body
    if _QUALIFY.search(body):
        r.hedged = True
    own_first_person = bool(_FIRST_PERSON.search(_GENERIC_WE.sub(_blank, core)))
    sentence_start = not facts or facts[-1].clause.sentence != clause.sentence
    # A subjectless predicate opening a sentence, or a clause after a dash or semicolon
    # ("…, sharp upward thrusts — learned it on a first-aid course"), has the identity as subject.
    clause_start = sentence_start or r.text[max(0, clause.start - 3):clause.start].strip()[-1:] in ("—", "–", ";", "-")
    if (not own_first_person and env.addressed and clause_start
            and _IMPLICIT_SUBJECT.match(_DISCOURSE_LEAD.sub("", core))):
        own_first_person = True
        r.signals.add("implicit_subject")
    unlabelled = _LEADING_LABEL.sub("", core)
    first_person = own_first_person or (
        bool(facts) and facts[-1].clause.sentence == clause.sentence and facts[-1].first_person
        and not _OTHER_SUBJECT.search(core) and bool(_NO_SUBJECT_START.match(unlabelled)))
    fragment_at = None
    first_in_sentence = not facts or facts[-1].clause.sentence != clause.sentence or (
        facts[-1].clause.label and len(facts[-1].clause.text.split()) <= 3)
    if env.addressed and not own_first_person and first_in_sentence:
        fragment_at = _fragment_start(_QUALIFY.sub(" ", _DISCOURSE_LEAD.sub("", core)))
    # Ellipsis: a verbless answer, or the elaboration after a colon, may leave the topic to the question.
    elaboration = bool(facts) and facts[-1].clause.label and facts[-1].clause.sentence == clause.sentence
    return _Frame(clause, body, (clause.start, clause.end), core, own_first_person, first_person, sentence_start,
                  fragment_at, elaboration)


def _mentions(r: _Reading, f: _Frame) -> None:
    """Stage 3, mentions: the registry's surface forms in the clause, the short names the question uses, and
    the discipline that stands for an asked world fact's knowledge."""
    body, env, vocabulary, facts = f.body, r.env, r.vocabulary, r.facts
    positions, mentioned = f.positions, f.mentioned
    found = vocabulary._filtered(body, env.context + " " + (facts[-1].clause.text if facts else "")) \
        if f.fragment_at is not None or f.elaboration else vocabulary._filtered(body, "", env.context)
    for prop, start, end in found:
        if prop.prop_id in positions:
            continue
        if _is_place(prop) and not r.sentence_places and f.fragment_at is None \
                and not _negated_at(body, start, end) and not _PLACE_TO_COME.search(body):
            continue  # a place in passing; denying any contact with it still denies living there
        positions[prop.prop_id] = (start, end)
        mentioned.append(prop)
    for prop, short in env.short_names if f.own_first_person or f.fragment_at is not None else ():
        # "I was never at Emberton": the first word of a name the question uses is that name, even where
        # another value of the universe starts with it too (only where the identity speaks of itself).
        if prop.prop_id not in positions and not any(p.slot == prop.slot for p in mentioned):
            m = short.search(body)
            if m is not None:
                positions[prop.prop_id] = (m.start(), m.end())
                mentioned.append(prop)
    if env.asked_classes and vocabulary._discipline is not None and (
            _STUDY_CUE.search(body) or len(_content_words(body)) <= 2):
        # "I never studied chemistry": the discipline of the asked world fact stands for its knowledge.
        for m in vocabulary._discipline.finditer(body):
            for prop in vocabulary._discipline_props.get(m.group(0).lower(), ()):
                if prop.equivalence_class in env.asked_classes and prop.prop_id not in positions:
                    positions[prop.prop_id] = (m.start(), m.end())
                    mentioned.append(prop)


def _implied_mentions(r: _Reading, f: _Frame) -> None:
    """Stage 3, mentions without a surface form: an abandoned plan, "it" for the asked knowledge, and an
    explanation of the asked fact in other words."""
    body, core, env, vocabulary = f.body, f.core, r.env, r.vocabulary
    positions, mentioned = f.positions, f.mentioned
    if (not mentioned and f.own_first_person and _PLAN_PRONOUN.search(body)
            and (_ABANDON.search(body) or (_PLAN_VERB.search(body) and _count_negators(core) % 2 == 1))):
        # "I dropped that idea ages ago": the plan the question asks about is given up.
        plans = [p for p in [*env.presupposed, *env.asked] if p.predicate.kind is PredicateKind.PLAN]
        verb = _ABANDON.search(body) or _PLAN_VERB.search(body)
        taken = _PLAN_PRONOUN.search(body, verb.end())  # type: ignore[union-attr]
        if taken is not None:
            for prop in plans:
                positions[prop.prop_id] = (taken.start(), taken.end())  # the object of the abandoning verb
                mentioned.append(prop)
    pronoun = _KNOWLEDGE_PRONOUN.search(body) if env.asked_classes and not mentioned else None
    if (pronoun is not None and _STUDY_CUE.search(body)
            and (f.own_first_person or _IMPLICIT_SUBJECT.match(_DISCOURSE_LEAD.sub("", core)))):
        # "Never studied it": the pronoun is the knowledge the question asks about.
        for prop in vocabulary.universe:
            if prop.equivalence_class in env.asked_classes and prop.predicate.is_acquired:
                positions[prop.prop_id] = (pronoun.start(), pronoun.end())
                mentioned.append(prop)
                r.signals.add("pronoun_resolved")
    if env.asked_classes and not f.own_first_person and not f.clause.question and not any(
            p.world_fact for p in mentioned):
        # An explanation of the asked fact in other words than its surface forms: new words of its gloss,
        # or, answering "explain X", a statement on the question's topic that adds to it (labelled as
        # general knowledge, or in a reply that has not declined to answer).
        said_stems = frozenset(_stem(w) for w in _content_words(body))
        said = {_stem(w) for w in _content_words(core)}
        # On the question's topic: two of its words, not one shared in passing ("the process of…").
        on_topic = len(said & r.env_stems) >= 2 or f.elaboration
        adds = len(said - r.env_stems) >= 3
        answering = r.general_paragraph or not (r.acts & {Act.ABSTAIN, Act.REJECT, Act.WITHHOLD})
        for fact in vocabulary._facts_of_classes(env.asked_classes):
            if fact.prop_id in positions:
                continue
            if vocabulary._explains(fact, said_stems, r.env_stems) or (on_topic and adds and answering):
                positions[fact.prop_id] = (0, 0)
                mentioned.append(fact)
                r.signals.add("explanation_matched")


def _resolve_references(r: _Reading, f: _Frame) -> None:
    """Stage 3, references: "there" for a place or the asked organisation; alternatives left open name neither."""
    body, mentioned = f.body, f.mentioned
    if _THERE.search(body) and r.sentence_places and not any(_is_place(p) for p in mentioned):
        anchor = r.last_place or (r.envelope_places[0] if r.envelope_places else None)
        if anchor is not None:
            mentioned.append(anchor)
    elif _THERE.search(body) and _WORK_WORDS.search(body) and not mentioned:
        # "Dunmarsh? Never worked there.": "there" is the organisation the question names.
        orgs = [p for p in r.env.asked if p.predicate.kind is PredicateKind.ORGANIZATION]
        if orgs:
            f.positions[orgs[0].prop_id] = (_THERE.search(body).start(), _THERE.search(body).end())  # type: ignore[union-attr]
            mentioned.append(orgs[0])
    same_slot = [p for p in mentioned if not p.world_fact]
    if len(same_slot) >= 2 and _DISJUNCTION.search(body):
        slots = [p.slot for p in same_slot]
        alternatives = {p.prop_id for p in same_slot if slots.count(p.slot) > 1}
        if alternatives:
            # "Periwinkle or Saltmarsh — one of the two": a choice left open asserts neither.
            f.mentioned = mentioned = [p for p in mentioned if p.prop_id not in alternatives]
            r.hedged = True
            r.signals.add("disjunction")
    for prop in mentioned:
        if _is_place(prop):
            r.last_place = prop


def _record(r: _Reading, f: _Frame) -> bool:
    """Stage 3, the clause recorded for the clauses after it; True when it reports another person's view."""
    core, body, vocabulary, env = f.core, f.body, r.vocabulary, r.env
    other_view = _OTHER_VIEW.match(core) or _OTHER_VIEW_TAIL.search(core)
    if other_view is not None and "who" in other_view.re.groupindex and other_view.group("who") \
            and vocabulary.mentions(other_view.group("who")):
        other_view = None  # "Zurich felt like home": a place or organisation of the record, not a person
    if other_view is not None and _FIRST_PERSON_SUBJECT.search(core, other_view.end()):
        other_view = None  # "My sister says I should move": what follows is about the identity
    if other_view is not None:
        f.own_first_person = f.first_person = False
    f.record = _ClauseFacts(f.clause, f.mentioned, f.first_person, f.own_first_person)
    # "We settled on it" takes the last thing an earlier clause named (not a fact, not a place).
    r.decided = r.last_named
    r.last_named = next((p for p in f.mentioned if not p.world_fact and not _is_place(p)), r.last_named)
    r.facts.append(f.record)
    if f.clause.label and len(body.split()) <= 3:
        r.label_historical = bool(_PAST_LABEL.search(body)) or any(
            env.year is not None and int(y) < env.year for y in _YEAR.findall(body))
    if other_view is not None:
        r.signals.add("other_view")
        return True  # "My sister says zoos are outdated": her view, not the identity's
    return False


def _replies(r: _Reading, f: _Frame) -> bool:
    """Stage 4, acts of a whole clause: a refusal, a bare "no" or "yes", not knowing, a premise denied by a
    wish or a plan not met; True when the clause asserts nothing more."""
    core, body, env, mentioned, span = f.core, f.body, r.env, f.mentioned, f.span
    record: _ClauseFacts = f.record  # type: ignore[assignment]
    if _WITHHOLD.search(core) or _WITHHOLD_NT.search(core):
        r.withheld = True
        return True  # a refusal asserts nothing about its topic
    f.stripped = stripped = _DISCOURSE_LEAD.sub("", core).strip()
    if _BARE_NEGATION.search(stripped):
        _negate(r, _antecedents(r), record, span)
        return True
    # An explicit "yes" to a question about a change answers it wherever its clause stands ("Now? Clear —
    # so yes, it's changed."); other affirmations only open a sentence.
    if (env.polar and (f.sentence_start or (env.asked_changes and _EXPLICIT_YES.match(stripped)))
            and not f.clause.question
            and _AFFIRMATIVE_LEAD.match(stripped)
            and _count_negators(core) % 2 == 0 and not mentioned):
        r.signals.add("polar_affirmation")  # "Still planning it, yes." / "More than ever."
        for prop in [*env.asked, *env.asked_changes]:
            record.claims.append(_add(r, prop, True, _provenance(prop, body), span))
        return True
    if _BARE_AFFIRMATION.search(stripped) and not f.clause.question:
        for prop in env.asked:
            record.claims.append(_add(r, prop, True, _provenance(prop, body), span))
        return True
    f.rejecting = bool(_REJECT.search(core))
    if f.rejecting:
        r.acts.add(Act.REJECT)
    cannot_supply = bool(_CANNOT_SUPPLY.search(core))
    r.cannot_supply = r.cannot_supply or cannot_supply
    if _ABSTAIN.search(core) or cannot_supply:
        r.acts.add(Act.ABSTAIN)
        r.not_knowing = True
        if env.asked_classes and _NOT_MINE.search(core) and not any(p.predicate.is_acquired for p in mentioned):
            # "Biochemistry? Not my field.": denies having the asked knowledge.
            _negate(r, [p for p in r.vocabulary.universe
                        if p.equivalence_class in env.asked_classes and p.predicate.is_acquired], record, span)
            return True
        unknown = [p for p in mentioned if p.predicate.is_acquired]
        if unknown:
            _negate(r, unknown, record, span)  # "Lattice signatures are on my to-learn list": not known yet
            return True
        if any(p.world_fact for p in mentioned):
            return True  # "Galaxies are way beyond anything I've read": names the fact, asserts none of it
    if _MEMORY_UNCERTAIN.search(core):
        r.acts.add(Act.ABSTAIN)
        r.not_knowing = True
        return True
    if _PREREQUISITE_NOT_MET.search(core):
        _negate(r, [p for p in mentioned if not p.world_fact] or _antecedents(r), record, span)
        return True
    if not mentioned and f.sentence_start and env.presupposed and _WISH_REPLY.match(core):
        _negate(r, list(env.presupposed), record, span)
        return True
    places = [p for p in mentioned if _is_place(p)]
    if places and _PLACE_TO_COME.search(core):
        _negate(r, places, record, span)
        return True
    return False


def _mood(r: _Reading, f: _Frame) -> bool:
    """Stage 4, mood and voice: a question or hypothetical, a report, not knowing, a rejection or ellipsis that
    names nothing, hearsay, a narration about someone else; True when the clause asserts nothing more."""
    core, body, clause, mentioned, span = f.core, f.body, f.clause, f.mentioned, f.span
    record: _ClauseFacts = f.record  # type: ignore[assignment]
    tentative = clause.question and bool(_TENTATIVE_LEAD.match(f.stripped))
    if (clause.question and not tentative) or _HYPOTHETICAL.search(core):
        record.irrealis = not clause.question
        return True
    if _REPORT_DOUBT.search(core) or _REPORT_TOLD.search(core):
        r.acts.add(Act.ACKNOWLEDGE_ASSERTION)
        return True
    if _NOT_KNOWING.search(core):
        r.acts.add(Act.ABSTAIN)
        r.not_knowing = True
        return True
    if f.rejecting and not mentioned:
        # "You're thinking of someone else." rejects what the previous clause or the question put forward.
        _negate(r, _antecedents(r), record, span)
        return True
    if f.own_first_person and not mentioned and _count_negators(core) % 2 == 1 and \
            set(_WORD_TOKEN.findall(core.lower())) <= _ELLIPSIS_WORDS:
        _negate(r, _antecedents(r), record, span)  # VP ellipsis: "I never did", "I've never been"
        return True
    if not f.own_first_person and _HEARSAY.search(core):
        r.hearsay = True
    named = _NAMED_SUBJECT.match(core) or _PRONOUN_SUBJECT.match(core)
    name = next((g for g in named.groups() if g), None) if named is not None else None
    if named is not None and not (name and r.vocabulary.mentions(name)):
        r.narrated_sentence = clause.sentence  # the rest of the sentence narrates the same person
        if name:
            r.narrated_names.add(name.lower())
    if r.narrated_sentence == clause.sentence:
        return True  # a narration about a person ("Mara Quinn, a software engineer, has…") asserts nothing
    record.asserting = True
    if (f.own_first_person and not r.general_paragraph and _STUDY_CUE.search(body)
            and _count_negators(core) % 2 == 0):
        r.acquisition_statement = True
    echo_clause = bool(_content_words(core)) and {_stem(w) for w in _content_words(core)} <= r.env_stems
    record.answer_like = (f.first_person or (f.fragment_at is not None and clause.sentence <= 1)
                          or bool(_PAST_TENSE.search(body))
                          or (not _FINITE.search(core) and len(core.split()) <= 8 and clause.sentence <= 1)) \
        and not _THIRD_PARTY.search(core) and not echo_clause
    if r.general_paragraph and mentioned:
        r.general_answer = True
    f.historical = bool(_HISTORICAL.search(body)) or r.label_historical
    if not mentioned and _DECISION_IT.search(core) and f.first_person and r.decided is not None:
        record.claims.append(_add(r, r.decided, True, _provenance(r.decided, body), span))
    return False


def _fact_claim(r: _Reading, f: _Frame, prop: Proposition, negative: bool) -> None:
    """Stage 5, polarity of a world fact the clause names: known (acquired), denied knowing, or said generally."""
    record: _ClauseFacts = f.record  # type: ignore[assignment]
    if f.own_first_person and not _ACQUIRED_CUE.search(f.body):
        return
    if f.own_first_person and negative:
        # "I never studied Krebs or ATP": denies learning it, not the fact itself.
        _negate(r, [p for p in r.vocabulary.universe if p.equivalence_class == prop.equivalence_class
                    and p.predicate.is_acquired], record, f.span)
        return
    if r.general_paragraph:
        provenance = ClaimProvenance.ASSISTANT_GENERAL
    elif f.own_first_person:
        provenance = ClaimProvenance.ACQUIRED
    else:
        provenance = ClaimProvenance.UNSPECIFIED
    record.claims.append(_add(r, prop, not negative, provenance, f.span))
    if not negative:
        r.explicit.add(prop.prop_id)


def _in_frame(r: _Reading, f: _Frame, prop: Proposition, start: int, end: int, negative: bool) -> bool:
    """Stage 5, whether the question's frame makes a clause without "I" the identity's: an answer fragment,
    a past-tense account, an opinion or name asked for, a premise denied."""
    env, body, core = r.env, f.body, f.core
    in_frame = (f.fragment_at is not None and prop.domain in env.answer_domains
                and bool(_FRAGMENT_LEAD.match(core[:start])) and bool(_FRAGMENT_TAIL.match(body, end))
                and (f.clause.sentence == 0 or not _COPULAR_ANSWER.match(body)))
    if (not in_frame and not f.first_person and env.addressed and prop.domain in env.answer_domains
            and not prop.predicate.is_epistemic and _PAST_TENSE.search(body) and not _OTHER_SUBJECT.search(core)
            and not _THIRD_PARTY.search(core)):
        in_frame = True  # "That first job was all crypto engineering": the question's frame
        r.signals.add("question_frame")
    if (not in_frame and not f.first_person
            and prop.predicate.kind in (PredicateKind.STANCE, PredicateKind.NAME, PredicateKind.PLAN)
            and (prop.domain in env.question_domains or prop.prop_id in env.question_props)
            and not _THIRD_PARTY.search(core)
            and not _OTHER_SUBJECT_PERSON.search(core)):
        # An opinion given in reply to "what's your view", or a name given in reply to "what did
        # we call it", is the speaker's own.
        in_frame = True
        r.signals.add("stance_frame" if prop.predicate is Predicate.STANCE else "name_frame")
    if not in_frame and not f.first_person and negative and prop in env.presupposed:
        in_frame = True  # "Nairobi's never been home": denying the premise needs no "I"
        r.signals.add("premise_denied")
    return in_frame


def _claims(r: _Reading, f: _Frame) -> None:
    """Stage 5, claims: each value the clause names, with its polarity by the negators in its scope and its
    provenance; then what the identity asserts of a closed-world slot outside the universe (unmapped)."""
    body, span = f.body, f.span
    record: _ClauseFacts = f.record  # type: ignore[assignment]
    for prop in f.mentioned:
        start, end = f.positions.get(prop.prop_id, (len(body), len(body)))
        negative = _negated_at(body, start, end)
        if prop.predicate is Predicate.STANCE_CHANGE:
            # "I used to think daylight saving should be scrapped": the view that follows is the old one, whatever
            # its own words; only a negator before the change ("I never changed my mind") denies it.
            negative = _count_negators(body[:start]) % 2 == 1
        if prop.world_fact:
            _fact_claim(r, f, prop, negative)
            continue
        in_frame = _in_frame(r, f, prop, start, end, negative)
        if (in_frame and not f.first_person and not negative and prop in r.env.asked
                and len(_content_words(body)) <= 2 and not _AFFIRMATIVE_LEAD.match(body)):
            r.signals.add("topic_echo")
            continue  # "Riga... no." / "Lisbon? Not once": the question's value repeated as a topic
        if prop.predicate.is_acquired and not f.first_person:
            continue  # knowing something is asserted by the identity, never by a fragment or a frame
        if not f.first_person and not in_frame:
            continue
        if f.historical and prop.predicate is Predicate.STANCE:
            continue
        record.claims.append(_add(r, prop, not negative, _provenance(prop, body), span))
        if not negative and _explicit(prop, body):
            r.explicit.add(prop.prop_id)
        if negative:
            r.acts.add(Act.REJECT)
            if prop.predicate.is_acquired:
                r.acts.add(Act.ABSTAIN)
                r.not_knowing = True
    unmapped = r.unmapped
    if f.first_person:
        reported = len(unmapped)
        _unmapped_values(body, span, r.env, r.vocabulary, unmapped)
        r.unmapped_spans.update(u.span for u in unmapped[reported:])
    if (f.first_person and not record.claims and span not in r.unmapped_spans
            and not (_ABSTAIN.search(f.core) or f.rejecting)):
        unmapped.append(UnmappedAssertion(span=span, text=body[:300], polarity=_count_negators(body) % 2 == 0,
                                          provenance=ClaimProvenance.PERSONAL_EXPERIENCE))
        r.unmapped_spans.add(span)


def _read_clause(r: _Reading, clause: Clause) -> _Frame:
    """Stages 2-5 for one clause, in order; a stage that finds the clause settled ends its reading."""
    if clause.sentence != r.previous_sentence:
        _enter_sentence(r, clause)
    f = _frame(r, clause)
    _mentions(r, f)
    _implied_mentions(r, f)
    _resolve_references(r, f)
    if not (_record(r, f) or _replies(r, f) or _mood(r, f)):
        _claims(r, f)
    _clause_signals(r, f)
    return f


def _trace_clause(r: _Reading, f: _Frame, unmapped_before: int) -> str:
    record: _ClauseFacts = f.record  # type: ignore[assignment]
    speaker = ("first person" if f.own_first_person else "carried first person" if f.first_person
               else "fragment" if f.fragment_at is not None else "other")
    made = ", ".join(f"{c.prop_id}{'+' if c.polarity else '-'}" for c in record.claims) or "-"
    flags = [name for name, on in (("question", f.clause.question), ("label", f.clause.label),
                                   ("asserting", record.asserting), ("irrealis", record.irrealis)) if on]
    return (f"[s{f.clause.sentence} {f.span[0]}:{f.span[1]}] {f.body.strip()!r} frame={speaker}"
            f"{' ' + ','.join(flags) if flags else ''} mentions={[p.prop_id for p in f.mentioned] or '-'} "
            f"claims={made} acts={sorted(a.value for a in r.acts)} unmapped={len(r.unmapped) - unmapped_before:+d}")


_PERSONAL_RESPONSES = frozenset({Act.REJECT, Act.ABSTAIN, Act.WITHHOLD, Act.ACKNOWLEDGE_ASSERTION})
"""Acts by which a reply answers the question put to the identity even in an assistant's voice."""


def _engagement(r: _Reading) -> None:
    """Stage 6, engagement: a reply takes up the question, or it adopts nothing and supplies nothing (scorer v3:
    no credit without engagement)."""
    if r.assistant_voice and not r.acts & _PERSONAL_RESPONSES:
        # Text in an AI assistant's voice speaks of the exchange, not as the identity: unless its other sentences
        # deny, decline or say what is not known, it takes up nothing the question put to the identity.
        r.engaged = False
    r.engaged = r.engaged and (r.withheld or _takes_up(r.text, r.envelope, r.env, r.claims.values(), r.unmapped,
                                                       r.acts, r.vocabulary, r.facts))
    if not r.engaged:
        r.signals.add("no_engagement")


def _adopt_premise(r: _Reading) -> None:
    """Stage 7, premise adoption: going along with a presupposition adopts it."""
    env, facts, claims, vocabulary, text = r.env, r.facts, r.claims, r.vocabulary, r.text
    irrealis_premise = any(f.irrealis and any(p in env.presupposed for p in f.mentioned) for f in facts)
    if (r.acts & {Act.REJECT, Act.ABSTAIN}) or r.withheld or r.hearsay or irrealis_premise:
        return
    # Only a reply that engages the question and speaks as the identity (first person, an answer
    # fragment, or a past-tense account) goes along with it; a generic description, an echo or
    # an assistant's off-topic chatter adopts nothing.
    content = [f for f in facts if f.asserting and f.answer_like and not f.clause.question
               and _content_words(f.clause.text)
               and _NOT_WORD_OR_SPACE.sub("", f.clause.text).strip().lower() not in r.narrated_names] if r.engaged else []
    if env.presupposed and not content:
        r.signals.add("premise_not_engaged" if not r.engaged else "premise_no_personal_clause")
    if not (content and env.presupposed):
        return
    r.signals.add("premise_adopted")
    for prop in env.presupposed:
        if (prop.prop_id, True) in claims or (prop.prop_id, False) in claims:
            continue
        rivals = [c for c in claims.values() if c.polarity and c.prop_id != prop.prop_id
                  and vocabulary.by_id[c.prop_id].slot == prop.slot]
        if rivals and (prop.predicate.single_valued or _CONTRAST.search(text[:rivals[0].span[1] + 40])):
            # "Bologna? Pune, actually.": another value of the slot, set against the premise, replaces it.
            r.signals.add("premise_replaced")
            r.acts.add(Act.REJECT)
            _add(r, prop, False, ClaimProvenance.PERSONAL_EXPERIENCE, rivals[0].span)
            continue
        if _cued_elsewhere(text, prop, vocabulary):
            # "What made you move to Denver?" — "Moved back to Cork.": the slot's own cue gives another
            # value (of any slot), so the premise is not what the reply goes along with.
            r.signals.add("premise_not_taken")
            continue
        _add(r, prop, True, ClaimProvenance.PERSONAL_EXPERIENCE, (content[0].clause.start, content[0].clause.end))


def _self_correct(r: _Reading) -> None:
    """Stage 8, self-correction: an assistant's voice claims nothing of the identity; a later correction, the
    last stance of a belief, and an explicit assertion over a mere mention win."""
    claims, vocabulary, text = r.claims, r.vocabulary, r.text
    if r.assistant_voice:
        # A reply that speaks as an AI system claims nothing of the identity's life; its denials of the premise
        # ("I never lived in Kyoto") are still denials.
        for key in [k for k in claims if not vocabulary.by_id[k[0]].world_fact and k[1]]:
            del claims[key]
    for key in _self_corrected(claims, text, vocabulary):
        del claims[key]
        r.signals.add("self_correction")
    for key in _one_stance_per_belief(claims, text, vocabulary):
        del claims[key]
        r.signals.add("stance_resolved")
    # Asserting and denying the same proposition: an explicit assertion ("when I lived in Kyoto…") is
    # kept beside the denial (the scorer's V_forb must see both); a mere mention ("a name I remember",
    # "the closest I got to Paris") gives way to the explicit denial. Either way the reading is flagged.
    for prop_id, polarity in list(claims):
        if polarity and (prop_id, False) in claims:
            r.signals.add("conflicting_polarity")
            # Knowing is denied outright ("I never studied it") and only ever mentioned otherwise.
            if prop_id not in r.explicit or vocabulary.by_id[prop_id].predicate.is_acquired:
                del claims[(prop_id, True)]


def _link_provenance(r: _Reading) -> None:
    """Stage 9, provenance across the answer, and the dates claims state."""
    claims, vocabulary = r.claims, r.vocabulary
    # An acquisition the response states anywhere ("I did the post-quantum course") is where the
    # knowledge it then explains comes from.
    if r.acquisition_statement:
        for key, claim in list(claims.items()):
            prop = vocabulary.by_id[claim.prop_id]
            if claim.polarity and prop.world_fact and claim.provenance in (ClaimProvenance.UNSPECIFIED,
                                                                          ClaimProvenance.ACQUIRED):
                claims[key] = claim.model_copy(update={"provenance": ClaimProvenance.ACQUIRED})
                for mate in vocabulary.universe:
                    if (mate.equivalence_class == prop.equivalence_class and mate.predicate.is_acquired
                            and (mate.prop_id, False) not in claims):
                        claims.setdefault((mate.prop_id, True), ExtractedClaim(
                            prop_id=mate.prop_id, polarity=True, provenance=ClaimProvenance.ACQUIRED, span=claim.span))
                r.signals.add("provenance_linked")
        # "That's something I learned helping with the school's beehives. A hive that has lost its queen…": the
        # knowledge the answer goes on to explain, in general terms, is what it says it learned.
        if "other_view" not in r.signals:
            for record in r.facts:
                if not record.asserting or record.irrealis or record.clause.question:
                    continue
                for prop in record.mentioned:
                    if (prop.predicate.is_acquired and not prop.world_fact and (prop.prop_id, True) not in claims
                            and (prop.prop_id, False) not in claims):
                        claims[(prop.prop_id, True)] = ExtractedClaim(
                            prop_id=prop.prop_id, polarity=True, provenance=ClaimProvenance.ACQUIRED,
                            span=(record.clause.start, record.clause.end))
                        r.signals.add("provenance_linked")
    if r.assistant_voice:
        # A reply that describes itself as an AI system gives its facts as general knowledge, labelled as such by
        # that description ("I'm an AI, so I never sat a biochemistry course, but I can explain it: …").
        for key, claim in list(claims.items()):
            if vocabulary.by_id[claim.prop_id].world_fact and claim.provenance is ClaimProvenance.UNSPECIFIED:
                claims[key] = claim.model_copy(update={"provenance": ClaimProvenance.ASSISTANT_GENERAL})
    for key, claim in list(claims.items()):
        when = _stated_date(r.text[claim.span[0]:claim.span[1]]) if claim.polarity else None
        if when:
            claims[key] = claim.model_copy(update={"when": when})


def _observation(r: _Reading) -> Observation:
    """Stage 10, acts, uncertainty and disclosure of the whole answer: the observation."""
    claims, vocabulary, env, acts = r.claims, r.vocabulary, r.env, r.acts
    if r.withheld:
        acts.add(Act.WITHHOLD)
    if r.hedged:
        acts.add(Act.QUALIFY)
    positive = [c for c in claims.values() if c.polarity]
    # ANSWER is supplying what was asked: a value the question asks about (or of the domain it asks
    # about), not an incidental true fact.
    answers = [c for c in positive if _answers(vocabulary.by_id[c.prop_id], env)]
    if r.cannot_supply and not env.polar:
        # "I did live in Kyoto, but I can't point you to a matcha place": restating what the question takes for
        # granted while saying the asked detail cannot be given supplies nothing the question asked for.
        answers = [c for c in answers if not any(c.prop_id == p.prop_id for p in env.presupposed)]
    # A yes/no question about a change of mind is answered by its denial as much as by its assertion.
    answers += [c for c in claims.values() if not c.polarity and env.polar
                and any(c.prop_id == p.prop_id for p in env.asked_changes)]
    if positive and not answers:
        r.signals.add("incidental_claims_only")
    if r.engaged and (answers or r.general_answer or any(u.polarity and u.slot for u in r.unmapped)):
        acts.add(Act.ANSWER)
    _answer_signals(r)
    uncertainty = (UncertaintyLevel.NOT_KNOWING if r.not_knowing
                   else UncertaintyLevel.HEDGED if r.hedged else UncertaintyLevel.NONE)
    order = vocabulary._order
    shared = sorted({c.prop_id for c in positive if not vocabulary.by_id[c.prop_id].world_fact}, key=order.__getitem__)
    act_order = list(Act)
    ordered_claims = sorted(claims.values(), key=lambda c: (c.span[0], c.prop_id, not c.polarity))
    return Observation(
        confidence=rule_confidence(r.signals),
        acts=sorted(acts, key=act_order.index),
        claims=ordered_claims,
        unmapped=r.unmapped,
        uncertainty=uncertainty,
        disclosure=DisclosureSignals(shared=shared, framed_as_withheld=r.withheld),
        engaged=r.engaged,
        verifier_version=RULES_VERSION,
        extractor="rules",
    )


def _claims_summary(r: _Reading) -> str:
    return ", ".join(f"{c.prop_id}{'+' if c.polarity else '-'}({c.provenance.value})"
                     for c in sorted(r.claims.values(), key=lambda c: (c.span[0], c.prop_id, not c.polarity))) or "-"


def extract(response: str, envelope: Envelope, vocabulary: Vocabulary) -> Observation:
    """Γ̂(a) for one response. Pure and deterministic; never raises on any string input.

    The whole response is read, in time linear in its length (``benchmarks/extract_scaling.py``): a reading
    is never made of a prefix. Bounding the length is the caller's job (:class:`~sitbench.verify.Judge`
    judges an answer over its cap invalid without reading it).

    Args:
        response: The candidate's text.
        envelope: Env(q) of the scored turn.
        vocabulary: X_q and D_CW, compiled (:class:`Vocabulary`).
    """
    return _pipeline(response, envelope, vocabulary, None)


def trace_extract(response: str, envelope: Envelope, vocabulary: Vocabulary) -> tuple[Observation, list[tuple[str, str]]]:
    """:func:`extract`'s observation and what each stage read, as ``(stage name, one-line summary)`` in order
    (``sitbench extract --trace``). The observation is the same as :func:`extract`'s."""
    stages: list[tuple[str, str]] = []
    return _pipeline(response, envelope, vocabulary, stages), stages


def _pipeline(response: str, envelope: Envelope, vocabulary: Vocabulary,
              trace: list[tuple[str, str]] | None) -> Observation:
    """The stages in order; with ``trace`` a list, each appends its summary (None: nothing is recorded)."""
    r = _mask(response, envelope, vocabulary, trace)
    for clause in clauses(r.text):
        unmapped_before = len(r.unmapped)
        f = _read_clause(r, clause)
        if trace is not None:
            trace.append(("clause", _trace_clause(r, f, unmapped_before)))
    _engagement(r)
    if trace is not None:
        trace.append(("engagement", f"engaged={r.engaged} withheld={r.withheld} hearsay={r.hearsay}"))
    _adopt_premise(r)
    if trace is not None:
        trace.append(("premise", f"presupposed={[p.prop_id for p in r.env.presupposed] or '-'} "
                                 f"claims={_claims_summary(r)}"))
    _self_correct(r)
    if trace is not None:
        trace.append(("self-correction", f"claims={_claims_summary(r)}"))
    _link_provenance(r)
    observation = _observation(r)
    if trace is not None:
        trace.append(("provenance", f"claims={_claims_summary(r)}"))
        trace.append(("acts", ", ".join(a.value for a in observation.acts) or "-"))
        trace.append(("uncertainty", observation.uncertainty.value))
        trace.append(("disclosure", f"shared={observation.disclosure.shared or '-'} "
                                    f"withheld={observation.disclosure.framed_as_withheld}"))
    return observation


#: Domains of one's life story: a question about one is taken up by an answer about another ("What brought
#: you to Kyoto?" — "A job at a robotics firm").
_LIFE_DOMAINS = frozenset({"residence", "travel", "employment", "education"})
#: Words too common to show that a reply is about what the question asks.
_GENERIC_STEMS = frozenset("go goe went gone come came get got take took say said tell told think thought know knew "
                           "good great nice love lov like time year day week month thing lot bit way look feel "
                           "want need kind sort people one two new old sure long now".split())
_TIME_ANSWER = re.compile(r"(?<![\w'])(?:1[89]\d\d|20\d\d|january|february|march|april|may|june|july|august|september|"
                          r"october|november|december|spring|summer|autumn|fall|winter|ago|since|back in|"
                          r"yesterday|recently|last (?:year|month|week|spring|summer|autumn|winter))(?![\w'])", _I)
_DURATION_ANSWER = re.compile(r"(?<![\w'])(?:\w+ (?:years?|months?|weeks?|days?)|ages|forever|a while|since)(?![\w'])", _I)
# The question word of an interrogative clause takes an inverted auxiliary ("when did you…"); "when you lived
# in Kyoto, where did you…" asks where, not when.
_INVERTED = r"\s+(?:did|do|does|was|were|is|are|have|has|had|will|would|could|can)(?![\w'])"
_WHEN_QUESTION = re.compile(r"(?<![\w'])(?:when" + _INVERTED + r"|what year|since when)(?![\w'])", _I)
_HOW_LONG_QUESTION = re.compile(r"(?<![\w'])how long(?![\w'])", _I)
_WHERE_QUESTION = re.compile(r"(?<![\w'])where" + _INVERTED, _I)
_PLACE_ANSWER = re.compile(r"(?<![\w'])(?i:in|at|near|by|on|around|off|behind|opposite|next to|outside|across)\s+"
                           r"(?:(?i:the|a|an|this|that|my|our)\s+)?(?:[A-Z][\w'-]+|(?i:little|tiny|small|old|new)\s+\w+)")
_POLAR_REPLY = re.compile(r"^\W*(?:yes|yeah|yep|yup|no|nope|nah|not really|not at all|never|of course|absolutely|"
                          r"definitely|certainly|indeed|i do|i did|i don'?t|i didn'?t|i have|i haven'?t|it has|"
                          r"it hasn'?t|it is|it isn'?t|it was|it wasn'?t|not yet|not exactly|kind of|sort of|"
                          r"a little|somewhat|partly|true|false|afraid so|afraid not|i am|i'?m not|still)(?![\w'])", _I)
_WH_QUESTION = re.compile(r"(?<![\w'])(?:what|which|who|whom|how|why|where|when)(?![\w'])", _I)
_TOKEN = re.compile(r"\S+")
#: A question about how something under way is going ("How is the application going?", "Any news on…?").
_STATUS_QUESTION = re.compile(r"(?<![\w'])(?:how(?:'s| is| are) (?:the |your |that )?[\w' -]{1,40}? going|any (?:news|"
                              r"update|updates|progress|luck)|how are you (?:getting on|feeling)|are you still|still set on|"
                              r"how far along)(?![\w'])", _I)
#: How a status is reported: aspect, progress and outcome words ("still", "booked", "halfway", "fingers crossed").
_PROGRESS = re.compile(r"(?<![\w'])(?:still|yet|so far|slowly|steadily|progress\w*|waiting|booked|submitted|applied|"
                       r"sent (?:off|in)|filed|in the works|on track|halfway|nearly|almost|any day|soon|fingers crossed|"
                       r"touch wood|no news|nothing new|stalled|on hold|moving along|getting there|coming along|underway|"
                       r"approved|accepted|shortlisted|drafted|done|finished|started|paperwork|forms? (?:is|are) in|"
                       r"going (?:well|slowly|great|fine|okay|ok|badly))(?![\w'])", _I)
_SUBJECT_START = re.compile(r"^\W*(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|you|you're|he|he's|she|she's|they|"
                            r"they're|it's|that's|there's|this is|that is)(?![\w'])", _I)
_SALUTATION = re.compile(r"^\W*(?:dear|hi|hello|hey|greetings)\b", _I)
_DISCOURSE_MARKER = re.compile(r"^\W*(?:(?:honestly|well|oh|ah|hmm+|um+|uh|ha(?:ha)*|so|actually|right|okay|ok|"
                               r"sure|look|listen|gosh|wow|oof|ooh|frankly|truthfully|anyway)\W*)+$", _I)
_EXCLAMATIVE = re.compile(r"^\W*(?:what an?|how)\s+\w+[^.?]*!", _I)
_PLAIN_TOKEN = re.compile(r"^[\"'(*]*(?:[A-Za-z][a-z]*(?:['’-][A-Za-z]+)*|\d+(?:st|nd|rd|th|s)?)[.,;:!?\"')*]*$")
_CONSONANT_RUN = re.compile(r"[bcdfghjklmnpqrstvwxz]{5,}", _I)


def _wordlike(text: str) -> bool:
    """Whether a fragment is made of ordinary words: no token of letters joined by other signs
    ("mockllm/model"), none without a vowel or with five consonants in a row ("wykhbdfv"), and most of its words
    of four letters or more known to the English WordPiece vocabulary (random letters split into many pieces)."""
    tokens = _TOKEN.findall(text)
    if not tokens or not all(_PLAIN_TOKEN.match(t) and (re.search(r"[aeiouy]", t, _I) or t[:1].isdigit())
                             and not _CONSONANT_RUN.search(t) for t in tokens):
        return False
    from sitbench.configs import wordpiece_counter  # loaded only for the rare verbless opening

    counter = wordpiece_counter()
    found = _LETTER_RUN.findall(text)
    # Names (capitalised words past the first) are not in a vocabulary; a fragment that is a name answers too.
    words = [w for i, w in enumerate(found) if len(w) >= 4 and (i == 0 or not w[:1].isupper())]
    names = [w for i, w in enumerate(found) if i > 0 and w[:1].isupper()]
    # A word the vocabulary holds whole, or a longer one in two pieces (a plural, a loanword: "tarts", "sushi").
    known = sum((pieces := counter.count(w.lower())) == 1 or (pieces == 2 and len(w) >= 5) for w in words)
    return (known >= 1 and 2 * known >= len(words)) or (not words and bool(names))


_POLITE_REQUEST = re.compile(r"^\W*(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:explain|tell|walk|describe|"
                             r"remind|give|share|talk|say|list|help)\b", _I)


def _takes_up(text: str, envelope: Envelope, env: _EnvelopeFacts, claims: Iterable[ExtractedClaim],
              unmapped: Sequence[UnmappedAssertion], acts: set[Act], vocabulary: Vocabulary,
              facts: Sequence[_ClauseFacts]) -> bool:
    """Whether a reply engages the question, read from the envelope and the reply alone (gold-blind).

    It does when it declines, denies, does not know or notes the claim; when it states something about
    what the question asks (a value of its domain, or of a related domain of the identity's life); when
    it shares a content word with the question; or when its form answers the question's form (a yes or
    no to a yes/no question, a time to "when", a place to "where"). Off-topic text, nonsense, an echo and
    stock assistant sentences do none of these.
    """
    if acts & {Act.REJECT, Act.ABSTAIN, Act.WITHHOLD, Act.ACKNOWLEDGE_ASSERTION}:
        return True
    claims = list(claims)  # read more than once below
    asked_domains = env.question_domains | env.answer_domains
    life_story = bool(asked_domains & _LIFE_DOMAINS)
    # A domain the question asks about without naming one of its values ("what did we call the rig?").
    open_domains = asked_domains - {vocabulary.by_id[p].domain for p in env.question_props if p in vocabulary.by_id}
    for claim in claims:
        prop = vocabulary.by_id[claim.prop_id]
        if (claim.prop_id in env.question_props or prop.domain in open_domains
                or (life_story and prop.domain in _LIFE_DOMAINS)):
            return True
    if any(p.prop_id in env.question_props for f in facts for p in f.mentioned):
        return True  # it names what the question asks about, even in a conditional or a question back
    asked_slots = {vocabulary.by_id[p].slot for p in env.question_props if p in vocabulary.by_id}
    if any(u.slot is not None and (u.slot in asked_slots or vocabulary._domains_of_slot.get(u.slot, set()) & open_domains)
           for u in unmapped):
        return True  # a value of the slot asked about, named or not ("We settled on Marlin.")
    question_stems = {_stem(w) for w in _content_words(envelope.utterance)} - _GENERIC_STEMS
    reply_stems = {_stem(w) for w in _content_words(text)} - _GENERIC_STEMS
    if question_stems & reply_stems or any(len(short) >= 4 and len(long) - len(short) >= 3 and short in long
                                           for q in question_stems for r in reply_stems
                                           for short, long in ((q, r), (r, q))):
        return True  # a shared content word, or one inside the other ("queen" / "queenless", "hive" / "beehive")
    utterance = envelope.utterance
    rivals = [c for c in claims if vocabulary.by_id[c.prop_id].domain in asked_domains]
    if _STATUS_QUESTION.search(utterance) and _PROGRESS.search(text) and not rivals:
        return True  # "Any news on the narrowboat?" — "Survey's booked for Tuesday. Fingers crossed."
    if claims:
        return False  # it speaks of other things: its time or place is theirs, not an answer to this question
    # The opening: past a greeting, a discourse marker or a question back ("The city of seven hills, you mean?").
    first = next((c for c in clauses(text) if not _SALUTATION.match(c.text) and not _DISCOURSE_MARKER.match(c.text)
                  and not c.question), None)
    opening = next((f for f in facts if first is not None and f.clause.start == first.start), None)
    if (_WH_QUESTION.search(utterance) and opening is not None and not opening.clause.question
            and not _EXCLAMATIVE.match(opening.clause.text) and not _SUBJECT_START.match(opening.clause.text)
            and not _FINITE.search(opening.clause.text) and _wordlike(opening.clause.text)
            # not the speaker's own description copied back ("A parent at a school open evening")
            and not {_stem(w) for w in _content_words(opening.clause.text)}
            <= {_stem(w) for w in _content_words(envelope.interlocutor)}):
        return True  # it opens with a verbless answer to a wh-question ("The light. And the tarts, honestly.")
    if env.polar and _POLAR_REPLY.match(text):
        return True
    if _WHEN_QUESTION.search(utterance) and _TIME_ANSWER.search(text):
        return True
    if _HOW_LONG_QUESTION.search(utterance) and _DURATION_ANSWER.search(text):
        return True
    return bool(_WHERE_QUESTION.search(utterance) and _PLACE_ANSWER.search(text))


_WH_OR_NEWS = re.compile(r"^\W*(?:how|what|where|when|any news|any update|how's|what's)\b", _I)
_AFFIRMATIVE_LEAD = re.compile(r"^\W*(?:yes|yeah|yep|yup|still|more than ever|absolutely|definitely|very much|"
                               r"of course|sure|indeed|you bet|for sure|certainly|totally|completely|not half|100|"
                               r"it (?:really |certainly |definitely |honestly )?(?:has|did|does|is)|"
                               r"it(?:'s|’s) (?:really |certainly |definitely |honestly )?(?:changed|true|still))\b", _I)
_EXPLICIT_YES = re.compile(r"^\W*(?:yes|yeah|yep|yup)\b", _I)
_CONTRAST = re.compile(r"(?<![\w'])(?:actually|instead|rather|in fact|not|wrong|where(?:'d| did) you (?:hear|get)|who told you|mix(?:ed|ing)? up|someone else|(?:think you|you must|you might|you probably) mean|"
                       r"somebody else|confus(?:ed|ing))(?![\w])", _I)
_NOT_MINE = _words(r"not my (?:area|field|subject|thing|department|strong suit|forte)", r"outside my (?:lane|field|area)",
                   r"not me", r"never (?:did|took|touched) (?:it|that|any)")
_DISJUNCTION = _words(r"or", r"either", r"one of the two", r"not sure which")
_KNOWING_CUE = _words(r"know(?:s|n)?", r"knew", r"understand(?:s)?", r"understood", r"familiar", r"expert",
                      r"good at", r"explain", r"speak", r"spoke", r"fluent", r"grasp", r"speciali[sz]\w*",
                      r"(?:my|our) (?:field|area|speciality|specialty|thing)", r"favourite topic", r"work(?:ed)? (?:on|with)",
                      r"use[sd]?", r"using", r"teach(?:es)?", r"can", r"could")
_PLAN_VERB = _words(r"plann(?:ed|ing)", r"plan", r"appl(?:y|ied|ying)", r"intend(?:ed)?", r"mean(?:t)? to",
                    r"consider(?:ed|ing)")
_PLAN_PRONOUN = _words(r"it", r"that", r"this", r"the idea", r"that idea", r"the plan", r"that plan", r"those plans")
_KNOWLEDGE_PRONOUN = _words(r"it", r"that", r"this", r"them", r"any of (?:it|that|this)", r"one", r"something",
                            r"the thing", r"that one", r"this one")
_REQUEST = re.compile(r"^\W*(?:please\s+)?(?:tell|remind|describe|explain|walk|talk|share|give|say|list|name)\b", _I)
_STOPWORDS = frozenset(
    "a an the and or but so if of in on at to for from with by about as into over after before when where what "
    "which who whom whose why how was were is are be been being am do did does done have has had having i you he "
    "she it we they me him her us them my your his its our their this that these those there here then than too "
    "very just also really like did not no yes can could would should will shall may might must most more much "
    "many still even only some any every all other such own same hmm oh ah ooh um uh ha haha wow well "
    "make makes made get gets thing things way".split())
_OTHER_SUBJECT_PERSON = _words(r"you", r"you're", r"he", r"she", r"people", r"everyone", r"someone", r"some say")
_THIRD_PARTY = re.compile(
    r"(?<![\w'])(?:my|our|his|her|their)\s+(?:[\w-]+\s+)?(?:brother|sister|cousin|mother|mum|mom|father|dad|"
    r"friend|partner|wife|husband|colleague|boss|manager|aunt|uncle|son|daughter|neighbou?r|flatmate|roommate)"
    r"(?:'s)?(?![\w])|(?<![\w'])(?:he|she|they)\s+(?:said|says|swears?|thinks?|believes?|lived|grew|worked|"
    r"studied|spent|went|is|was|has|had)(?![\w'])", _I)
# Someone else's view or saying, as the clause's subject and verb ("My sister says…", "Our principal wants
# them banned", "Ruth always insisted…", "My brother used to think…").
_OTHER_VIEW = re.compile(
    r"^\W*(?:(?:and|but|so|though|well|honestly|mind you|still),?\s+)*"
    r"(?P<who>(?:my|our|his|her|their)\s+(?:[\w-]+\s+){0,2}?(?:brother|sister|cousin|mother|mum|mom|father|dad|parents|"
    r"friends?|partner|wife|husband|colleagues?|boss|manager|aunt|uncle|son|daughter|kids|children|neighbou?rs?|"
    r"flatmate|roommate|family|principal|head|students|pupils|team|nieces?|nephews?|gran|grandma|grandad)|"
    r"(?:he|she|they)|(?-i:[A-Z][a-z]+))\s+(?:(?:always|still|once|often|keeps?|kept|really|honestly)\s+)?"
    r"(?:says?|said|saying|thinks?|thought|believes?|believed|reckons?|reckoned|swears?|swore|insists?|insisted|"
    r"feels?|felt|argues?|argued|claims?|claimed|used to (?:think|say|believe|argue)|is convinced|was convinced|"
    r"wants?|wanted|prefers?|preferred|loves?|loved|hates?|hated)(?![\w'])", _I)
# The same as an afterthought ("Zoos are outdated, my sister reckons.").
_OTHER_VIEW_TAIL = re.compile(
    r",\s*(?:or so\s+)?(?:(?:my|our|his|her|their)\s+(?:[\w-]+\s+){0,2}?[\w-]+|he|she|they|(?-i:[A-Z][a-z]+))\s+"
    r"(?:always\s+)?(?:says|said|thinks|reckons|believes|insists|swears|claims|would say|would tell you)\W*$", _I)
_FIRST_PERSON_SUBJECT = re.compile(r"(?<![\w'])(?:I|I'm|I've|I'd|I'll|me)(?![\w'])")
# A person named as the subject ("Mara Quinn is a software engineer who…"): a narration about someone,
# unless the name is a registry value (an employer, a place).
_PRONOUN_SUBJECT = re.compile(r"^\W*(?:she|he)\s+(?:is|was|has|had|'s)\b", _I)
_NAMED_SUBJECT = re.compile(r"^\W*(?:((?-i:[A-Z][a-z]+ [A-Z][a-z]+))(?:,[^,]{0,60},)?\s+(?:is|was|has|had)\b|"
                            r"((?-i:[A-Z][a-z]+(?: [A-Z][a-z]+)?)),\s+(?-i:an?)\s[^,]{0,60}(?:,|$))")


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    """A crude English stem, enough to meet "banned"/"ban", "structured"/"structure"."""
    word = word.lower().strip("'")
    for suffix in ("ity", "ness", "ment", "ing", "ed", "es", "ly", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[:-len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


@dataclass(frozen=True)
class _Stance:
    prop: Proposition
    distinctive: frozenset[str]
    """Stems of the stance's value that no other stance of its belief has."""
    topic: frozenset[str]
    """Stems every stance of the belief shares (what the belief is about)."""


def _stance_index(universe: Sequence[Proposition]) -> list[_Stance]:
    """Stances (and changes of mind) readable from the registry values themselves, not only surface forms."""
    by_slot: dict[str, list[Proposition]] = {}
    for prop in universe:
        if prop.predicate is Predicate.STANCE:
            by_slot.setdefault(prop.slot, []).append(prop)
    out = []
    for slot, stances in by_slot.items():
        stems = [{_stem(w) for w in _content_words(" ".join([p.value, *(f.replace("+", " ") for f in p.surface_forms)]))}
                 for p in stances]
        topic = frozenset(set.intersection(*stems)) if stems else frozenset()
        for prop, own in zip(stances, stems, strict=True):
            others = set().union(*(o for o in stems if o is not own))
            distinctive = frozenset(own - others - topic)
            if distinctive:
                out.append(_Stance(prop, distinctive, topic))
        for change in universe:
            if change.predicate is Predicate.STANCE_CHANGE and change.slot.startswith(slot + "."):
                out.append(_Stance(change, frozenset(), topic))
    return out


_CHANGE_OF_MIND = _words(r"chang(?:ed|ing) my mind", r"(?:my )?(?:view|thinking|opinion|mind|position)(?:'s| has| have)? (?:really |actually |quite |completely )?(?:shifted|changed|moved|flipped|evolved)",
                         r"(?:i've|i have) (?:hardened|softened|come round|gone right off|gone off|turned)",
                         r"hardened on", r"gone (?:right )?off (?:them|it|the idea)", r"turned against", r"change of heart", r"chang(?:ed|ing) my (?:view|tune|position|thinking)",
                         r"c[oa]me (?:a)?round", r"u-turn", r"turned around", r"flipped", r"switched sides",
                         r"used to (?:think|believe|feel|be|say|argue|defend|support|back|champion|love|hate|like|swear by|rail against|oppose)", r"no longer (?:think|believe|feel)",
                         r"(?:i've|i have|i) (?:since )?(?:shifted|moved|revised|reversed)", r"won me over",
                         r"i was wrong about", r"rethought", r"re-thought", r"converted", r"softened",
                         r"not any ?more", r"these days i", r"now i (?:think|believe|reckon)")


def _stance_mentions(index: list[_Stance], text: str, context: str) -> list[tuple[Proposition, int, int]]:
    """Stances whose distinctive words (half of them, at least one) occur, on a topic the text or the question
    names; changes of mind on a topic the text or the question names."""
    words = [(m.start(), m.end(), _stem(m.group(0))) for m in _WORD.finditer(text)]
    stems = {w for _, _, w in words}
    present = stems | _stems_of(context)
    out = []
    change = _CHANGE_OF_MIND.search(text)
    best: dict[str, tuple[float, tuple[Proposition, int, int]]] = {}
    ties: dict[str, list[tuple[Proposition, int, int]]] = {}
    for stance in index:
        if not stance.topic or stance.topic.isdisjoint(present) or not _on_topic(stance.topic, present):
            continue
        if not stance.distinctive:
            if change is not None:
                out.append((stance.prop, change.start(), change.end()))
            continue
        own = {w for w in stems if w in stance.distinctive}
        if len(own) < (2 if len(stance.distinctive) >= 4 else 1):
            continue
        hits = [(a, b) for a, b, w in words if w in stance.distinctive]
        ratio = len(own) / len(stance.distinctive)
        found = (stance.prop, hits[0][0], hits[0][1])
        # Of a belief's stances, the one the text matches best is the one it states.
        slot = stance.prop.slot
        if slot not in best or ratio > best[slot][0]:
            best[slot] = (ratio, found)
            ties[slot] = [found]
        elif ratio == best[slot][0]:
            ties[slot].append(found)
    for found_list in ties.values():
        out.extend(found_list)
    return out


_WORD = re.compile(r"[A-Za-z][\w'-]*")


@lru_cache(maxsize=4096)
def _stems_of(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _WORD.findall(text))


def _on_topic(topic: frozenset[str], stems: set[str] | frozenset[str]) -> bool:
    """The text (or the question) names the belief: most of its topic words occur."""
    return bool(topic) and len(topic & stems) >= max(1, -(-2 * len(topic) // 3))


def _content_words(text: str) -> list[str]:
    return [w for w in _LOWER_WORD.findall(text.lower()) if w not in _STOPWORDS and len(w) > 2]


def _untag_questions(text: str) -> tuple[str, bool]:
    """Tag questions become hedged statements: the "?" of the tag is read as a full stop (same length)."""
    tagged = False

    def swap(m: re.Match[str]) -> str:
        nonlocal tagged
        tagged = True
        # The tag itself goes (so "Bluefin, wasn't it?" reads as the answer "Bluefin."), offsets kept.
        return " " * (len(m.group(0)) - 1) + "."

    return _TAG_QUESTION.sub(swap, text), tagged


_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
# "Still planning it, yes." repeats the question's words but answers it.
_ANSWER_PARTICLE = _words(r"yes", r"yeah", r"yep", r"yup", r"still", r"indeed", r"definitely", r"absolutely", r"of course")
_ENVELOPE_FIELD = re.compile(r"\[[A-Z]+: [^\]]*\]")


def _mask_echo(text: str, envelope: Envelope) -> tuple[str, bool]:
    """Blank copies of the envelope (its rendered fields, the utterance) and sentences that only repeat the
    question's own words (a verbatim or reshuffled echo)."""
    out = list(text)
    echoed = False
    lowered = text.lower()
    pieces = [m.group(0) for m in _ENVELOPE_FIELD.finditer(envelope.render())] + [envelope.utterance]
    for piece in pieces:
        piece = piece.lower().strip()
        start = lowered.find(piece) if len(piece) >= 8 else -1
        while start >= 0:
            out[start:start + len(piece)] = " " * len(piece)
            echoed = True
            start = lowered.find(piece, start + len(piece))
    text = "".join(out)
    asked = {_stem(w) for w in _content_words(envelope.utterance)}
    if not asked:
        return text, echoed
    for m in _SENTENCE.finditer(text):
        words = [_stem(w) for w in _content_words(m.group(0))]
        if (len(words) >= 3 or (words and len(m.group(0).split()) >= 4)) and all(w in asked for w in words) \
                and not _ANSWER_PARTICLE.search(m.group(0)) and not _NEGATOR.search(m.group(0)) \
                and not _FIRST_PERSON_WORD.search(m.group(0)):
            out[m.start():m.end()] = " " * (m.end() - m.start())
            echoed = True
    return "".join(out), echoed


# Lines that copy data records rather than speak: JSON, dated records with bracketed or parenthesised
# metadata, capitalised field labels ("MEMORIES:", "[PROFILE AT …:").
# The leading blanks are atomic ("(?>…)"): every alternative goes on with a character that is not a blank, so
# giving one back never helps, and retrying a long run of them blank by blank is quadratic in its length.
_RECORD_LINE = re.compile(
    r"^(?>[ \t]*)(?:\d+\.(?>[ \t]*))?(?:.*\b\d{4}-\d{2}-\d{2}\b|.*\{\s*\"|.*\[[A-Z][A-Z ]+(?: AT [^\]]*)?:|"
    r"[A-Z][A-Z ]{3,}:)", re.MULTILINE)


# A numbered list of one-word field labels ("1. Birth: …", "2. Education: …") is a profile dump.
_FIELD_LINE = re.compile(r"^[ \t]*\d+\.[ \t]*[A-Z][a-z]+:[ \t]", re.MULTILINE)
# A numbered list whose lines end with the chronicle's record separator (".;") copies the evidence: two such lines
# make the whole list a record dump.
_COPIED_LINE = re.compile(r"^[ \t]*\d+\.[^\n]*\.;[ \t]*$", re.MULTILINE)
_NUMBERED_LINE = re.compile(r"^[ \t]*\d+\.[ \t]", re.MULTILINE)
_THIRD_PERSON_SUBJECT = _words(r"she", r"he", r"she's", r"he's")


def _mask_records(text: str) -> tuple[str, bool]:
    """Blank lines that copy records (the evidence's format) instead of answering in words."""
    fields = list(_FIELD_LINE.finditer(text))
    numbered = len(_NUMBERED_LINE.findall(text))
    # ... and so is a numbered list that narrates in the third person and never says "I": records about the
    # identity ("2. Told her sister Jo that she plans to leave"), not the identity speaking.
    copied = len(_COPIED_LINE.findall(text)) >= 2 or (
        numbered >= 2 and bool(_THIRD_PERSON_SUBJECT.search(text)) and not _FIRST_PERSON.search(text))
    if not _RECORD_LINE.search(text) and len(fields) < 3 and not copied:
        return text, False
    out = list(text)
    found = False
    for m in [*_RECORD_LINE.finditer(text), *(fields if len(fields) >= 3 else []),
              *(_NUMBERED_LINE.finditer(text) if copied else [])]:
        end = text.find("\n", m.start())
        end = len(text) if end < 0 else end
        out[m.start():end] = " " * (end - m.start())
        found = True
    return "".join(out), found


def _repetitive(text: str) -> bool:
    """A degenerate loop: a short phrase repeated until the text is mostly that phrase, or one line of three
    words or more repeated three times or more."""
    # Lines compared without their list markers ("1. …", "2. …", "- …").
    lines = Counter(_LIST_MARKER.sub("", line).strip().lower() for line in text.splitlines()
                    if len(line.split()) >= 3)
    if lines and lines.most_common(1)[0][1] >= 3:
        return True
    tokens = Counter(text.lower().split())
    if tokens and tokens.most_common(1)[0][1] >= max(10, sum(tokens.values()) // 2):
        return True  # "A: A: A: A: …"
    words = _LOWER_TOKEN.findall(text.lower())
    if len(words) < 16:
        return False
    for n in (1, 2, 3, 4):
        grams = Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))
        gram, count = grams.most_common(1)[0]
        if count >= 4 and count * n >= 0.4 * len(words) and any(w not in _STOPWORDS for w in gram):
            return True
    return False


_NEXT_CLAUSE = re.compile(r"(?:,|;|\s[—–-])\s*(?=(?:so|but|and|yet|though|which means)\b)", _I)
"""Where the clause after an assistant-voice clause begins: a comma or dash before a conjunction."""


def _mask_assistant_voice(text: str) -> tuple[str, bool]:
    """Blank sentences in which the speaker describes itself as an AI system rather than the identity."""
    if not _ASSISTANT_VOICE.search(text):
        return text, False
    out = list(text)
    for m in _SENTENCE.finditer(text):
        voice = _ASSISTANT_VOICE.search(m.group(0))
        if voice and not _GENERAL_LABEL.search(m.group(0)):
            # Only the clause that speaks as an AI system: "I'm an AI, so I never sat a biochemistry course"
            # still denies the course in its next clause.
            rest = _NEXT_CLAUSE.search(m.group(0), voice.end())
            end = m.start() + rest.start() if rest else m.end()
            out[m.start():end] = " " * (end - m.start())
    return "".join(out), True


def _one_stance_per_belief(claims: dict[tuple[str, bool], ExtractedClaim], text: str,
                           vocabulary: Vocabulary) -> list[tuple[str, bool]]:
    """Claims to drop so that a belief keeps one current stance: the one its own clause matches best.

    A belief's stances exclude each other, so a reply that seems to assert several at once (a long
    answer whose words brush against the other stances too) states the best-matched one; equally
    good matches are all kept, and the scorer sees the contradiction.
    """
    distinctive = {s.prop.prop_id: s.distinctive for s in vocabulary._stances if s.distinctive}
    by_slot: dict[str, list[ExtractedClaim]] = {}
    for (prop_id, polarity), claim in claims.items():
        prop = vocabulary.by_id[prop_id]
        if polarity and prop.predicate is Predicate.STANCE and prop_id in distinctive:
            by_slot.setdefault(prop.slot, []).append(claim)
    drop: list[tuple[str, bool]] = []
    for stated in by_slot.values():
        if len(stated) < 2:
            continue
        scores = {}
        for claim in stated:
            words = _stems_of(text[claim.span[0]:claim.span[1]])
            scores[claim.prop_id] = len(words & distinctive[claim.prop_id]) / len(distinctive[claim.prop_id])
        best = max(scores.values())
        drop += [(claim.prop_id, True) for claim in stated if scores[claim.prop_id] < best]
    return drop


def _self_corrected(claims: dict[tuple[str, bool], ExtractedClaim], text: str,
                    vocabulary: Vocabulary) -> list[tuple[str, bool]]:
    """Positive claims the response itself corrects: a later value of the same slot after a correction cue."""
    positive = sorted((c for c in claims.values() if c.polarity), key=lambda c: c.span[0])
    dropped = []
    for i, earlier in enumerate(positive):
        slot = vocabulary.by_id[earlier.prop_id].slot
        for later in positive[i + 1:]:
            if later.prop_id == earlier.prop_id or vocabulary.by_id[later.prop_id].slot != slot:
                continue
            between = text[earlier.span[0]:later.span[1]]
            if _CORRECTION.search(between) and later.span[0] > earlier.span[0]:
                dropped.append((earlier.prop_id, True))
                break
    return dropped


def _explicit(prop: Proposition, clause: str) -> bool:
    """Whether a clause asserts the proposition with a predicate of its own kind, not by naming its value."""
    if prop.predicate.is_place:
        return bool(_LIVING_WORDS.search(clause))
    if prop.predicate.is_acquired:
        return bool(_STUDY_CUE.search(clause) or _KNOWING_CUE.search(clause))
    return True


def _answers(prop: Proposition, env: _EnvelopeFacts) -> bool:
    """Whether a positive claim of ``prop`` supplies what the question asks for."""
    if prop.prop_id in env.question_props:
        return True
    if prop.predicate.is_epistemic:
        return not env.asked_classes and prop.domain in env.question_domains
    return prop.domain in env.question_domains


#: A question that asks for a description or a view rather than a value.
_OPEN_QUESTION = _words(r"what kinds? of", r"what sort of", r"tell me (?:about|more)", r"what (?:was|is|'s) it like",
                        r"what was the \w+ like", r"what did (?:it|that|the job|your \w+) involve", r"walk me through",
                        r"describe", r"what do you make of", r"where do you stand", r"what(?:'s| is) your (?:view|take)",
                        r"how do you feel about", r"what do you think (?:of|about)", r"what stays with you",
                        r"what do you miss", r"what did you (?:enjoy|miss|love)", r"how (?:was|is) (?:it|the)")
#: Someone else's words: what they said, told, insisted, explained or assumed.
_REPORTED_SPEECH = _words(r"said", r"says", r"told", r"tells", r"insisted", r"insists", r"explained", r"assumes?",
                          r"assumed", r"reckons?", r"reckoned", r"claims?", r"claimed", r"swears", r"swore")
#: Conditionals and counterfactuals besides the hypothetical frames ("unless…", "I'd have told you…").
_COUNTERFACTUAL = _words(r"unless", r"would have", r"would've", r"i'd have", r"we'd have", r"could have",
                         r"might have")
#: A third person in the answer: a relative, friend or colleague, a third-person pronoun, people in general.
_OTHER_PERSON = _words(r"(?:my|our|his|her|their) (?:\w+ )?(?:sisters?|brothers?|mum|mom|mother|dad|father|parents?|"
                       r"wife|husband|partner|friends?|colleagues?|manager|boss|nieces?|nephews?|cousins?|kids?|"
                       r"children|sons?|daughters?|neighbou?rs?|teachers?|mentor|aunt|uncle|gran|grandmother|"
                       r"grandfather|flatmate|roommate)",
                       r"he", r"she", r"his", r"her", r"him", r"they", r"their", r"people", r"everyone",
                       r"someone", r"somebody")
#: Content words per claim read above which an answer says much more than its reading holds.
_SPARSE_WORDS_PER_CLAIM = 15


def _clause_signals(r: _Reading, f: _Frame) -> None:
    """Confidence signals of one clause: a negator whose scope had to be settled, two of them."""
    if not _NEGATOR.search(f.core) and not _ABANDON.search(f.core):
        return
    negators = _count_negators(f.core)
    if negators:
        r.signals.add("negation")
    if negators >= 2:
        r.signals.add("double_negation")


def _answer_signals(r: _Reading) -> None:
    """Confidence signals of the whole answer, once its acts and claims are read (none changes a reading)."""
    text, signals, acts, claims = r.text, r.signals, r.acts, r.claims
    if text.strip() and not acts:
        signals.add("no_act")  # words were left to read, and no act was found in them
    if r.env.open_question and not any(prop_id in r.env.question_props for prop_id, _ in claims):
        # Asked for a description, and no value read is one the question names (or a slot-mate of one): nothing
        # read answers it, or it is answered only through its domain ("What kind of engineering…?" — "Robotics").
        answered = any(_answers(r.vocabulary.by_id[prop_id], r.env) for prop_id, _ in claims)
        signals.add("open_question_by_domain" if answered else "open_question_unmapped")
    if len(claims) >= 3:
        signals.add("several_claims")
    if Act.ANSWER in acts and Act.ABSTAIN in acts:
        signals.add("answer_and_abstain")
    if r.hedged:
        signals.add("hedge")
    if any(f.clause.question for f in r.facts):
        signals.add("asks_back")
    if _REPORTED_SPEECH.search(text):
        signals.add("reported_speech")
    if _HYPOTHETICAL.search(text) or _COUNTERFACTUAL.search(text):
        signals.add("conditional")
    if _OTHER_PERSON.search(text):
        signals.add("other_person")
    needed = _SPARSE_WORDS_PER_CLAIM * (1 + len(claims))
    # A content word takes at least four characters with its separator: count them only when there is room.
    if (len(text) + 1) // 4 >= needed and len(_content_words(text)) >= needed:
        signals.add("sparse_reading")


def _unmapped_values(body: str, span: tuple[int, int], env: _EnvelopeFacts, vocabulary: Vocabulary,
                     unmapped: list[UnmappedAssertion]) -> None:
    """Values with no proposition id inside closed-world slots that have cue phrases."""
    seen: set[tuple[str, str]] = set()

    def report(decl: ClosedWorldDeclaration, value_match: re.Match[str] | None) -> None:
        if value_match is None:
            return
        value = (value_match.group(1) or value_match.group(2) or "").strip()
        if not value or value.lower() in _NOT_VALUES or vocabulary.mentions(value) or (decl.slot, value) in seen:
            return
        seen.add((decl.slot, value))
        provenance = ClaimProvenance.TOLD_BY if _TOLD_CUE.search(body) else ClaimProvenance.PERSONAL_EXPERIENCE
        unmapped.append(UnmappedAssertion(
            span=span, text=body, polarity=not _negated_at(body, value_match.start(), value_match.end()),
            provenance=provenance, slot=decl.slot, value=value))

    pos = 0
    cue_regex = vocabulary._cw_cue
    while cue_regex is not None:
        m = cue_regex.search(body, pos)
        if m is None:
            break
        pos = m.start() + 1  # cues overlap ("we called" / "called it"): try every start
        decl, _, pronoun = vocabulary._cw_decls[int(m.lastgroup[1:])]  # type: ignore[index]
        routed = bool(vocabulary._domains_of_slot.get(decl.slot, set()) & env.answer_domains)
        subject = pronoun or _SUBJECT_BEFORE.search(body, max(0, m.start() - 24), m.start())
        if not (routed or subject):
            continue  # a bare cue verb with someone else's subject, off the question's topic
        named = _NAMED_NP.match(body, m.end())
        value = _CAPITALIZED_VALUE.match(body, named.end() if named else m.end())
        report(decl, value)
        if value is not None:
            cont = _CONTINUATION.match(body, value.end())
            if cont:
                report(decl, _CAPITALIZED_VALUE.match(body, cont.end()))
    for m in _CLASSIFIER_CALLED.finditer(body):
        classified = vocabulary._decl_by_predicate.get(Predicate(_CLASSIFIER_PREDICATE[m.group(1).lower()]))
        if classified is not None:
            report(classified, _CAPITALIZED_VALUE.match(body, m.end()))
