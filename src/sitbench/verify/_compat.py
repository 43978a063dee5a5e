"""Value compatibility for grounding (scorer v3): when a closed-world value agrees with what the record supports.

The vocabulary is data (:class:`sitbench.schema.CompatibilityVocabulary`): the package ships one for its
built-in domains (``compatibility.json`` beside this module), and a dataset's registry may add nodes or
replace them. A value *names* a node when one of the node's forms occurs in it as whole words; the longest
forms win where two overlap ("New South Wales" names the state, not a place called "Wales").

Grounding (SPEC §2.6, ``V_ground``) asks, for a positive personal value inside a closed-world slot:

- **supported** when every node it names is a supported value, an equivalent of one, or an ancestor of one
  (the region of a supported city, the discipline of an acquired topic, the field of the identity's work) —
  or, in an inclusive namespace (places), a part of one (a neighbourhood a dataset declares under its city);
- **neutral** when it names no node and is no name at all ("a small town up north");
- **incompatible** otherwise: a named value missing from the data is a distinct value at its level, so a
  sibling city of a supported city, or an invented one, still fails.

Support flows across slots by the vocabulary's implications (a hometown is a place lived in; an employer's
name or the profile's occupation carries its field; the profile's education its discipline). Requirements
are different: a required claim is satisfied by an *equivalent* value (the same node), never by an ancestor.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from importlib import resources

from sitbench.schema import CompatibilityVocabulary, Profile, Proposition, Registry, ValueNode

PACKAGED_VOCABULARY = "compatibility.json"
"""File name of the packaged vocabulary inside ``sitbench.verify``."""

_MAX_FORM_WORDS = 6
_ARTICLES = ("the ", "a ", "an ")
#: Words that fill a slot without naming a value ("somewhere", "my job"): a value made only of them is vague.
_VAGUE = frozenset("""a an the my our your his her their this that these those it its there here somewhere
    place places city town village area region country abroad home work job jobs stuff things thing field fields
    topic topics subject subjects company firm employer something anything everything kind sort bit lot of in at on
    for with from to and or up down near by around small big little local same other new old first last north south
    east west northern southern eastern western coast coastal seaside countryside inland rural suburbs outskirts
    capital centre center downtown quiet busy nearby far away""".split())
#: Namespaces whose values are proper names: only a capitalised word names one.
_PROPER_NAMESPACES = frozenset({"place", "organization", "name"})

NodeKey = tuple[str, str]
"""(namespace, normalised value)."""


class Grounding(str, Enum):
    """How one closed-world value stands against what the record supports."""

    SUPPORTED = "supported"
    NEUTRAL = "neutral"
    INCOMPATIBLE = "incompatible"


def normalise(text: str) -> str:
    """Lower case, diacritics folded, punctuation as spaces, one space between words, no leading article."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch)).lower().replace("'", "")
    words = re.sub(r"[^0-9a-z]+", " ", folded).strip()
    for article in _ARTICLES:
        if words.startswith(article):
            words = words[len(article):]
    return words


@dataclass(frozen=True)
class _Index:
    forms: dict[str, frozenset[NodeKey]]
    ancestors: dict[NodeKey, frozenset[NodeKey]]


class Compatibility:
    """One vocabulary, indexed: which nodes a value names, and which nodes are broader than which."""

    def __init__(self, vocabulary: CompatibilityVocabulary) -> None:
        self.vocabulary = vocabulary
        self.slots = dict(vocabulary.slots)
        self.implies = {source: tuple(targets) for source, targets in vocabulary.implies.items()}
        self.open = frozenset(vocabulary.open)
        self.partial = frozenset(vocabulary.partial)
        nodes: dict[NodeKey, ValueNode] = {}
        for node in vocabulary.nodes:
            nodes[(node.namespace, normalise(node.value))] = node
        self._nodes = nodes
        self._index = self._build(nodes)

    @staticmethod
    def _build(nodes: dict[NodeKey, ValueNode]) -> _Index:
        forms: dict[str, set[NodeKey]] = {}
        for key, node in nodes.items():
            for form in {key[1], *(normalise(f) for f in node.forms)}:
                if form:
                    forms.setdefault(f"{key[0]}\x00{form}", set()).add(key)
        parents = {key: {(key[0], normalise(p)) for p in node.parents} for key, node in nodes.items()}
        ancestors: dict[NodeKey, frozenset[NodeKey]] = {}

        def climb(key: NodeKey, seen: frozenset[NodeKey]) -> frozenset[NodeKey]:
            if key in ancestors:
                return ancestors[key]
            out: set[NodeKey] = set()
            for parent in parents.get(key, ()):
                if parent not in seen:
                    out.add(parent)
                    out |= climb(parent, seen | {parent})
            ancestors[key] = frozenset(out)
            return ancestors[key]

        for key in nodes:
            climb(key, frozenset({key}))
        return _Index({k: frozenset(v) for k, v in forms.items()}, ancestors)

    def with_registry(self, registry: Registry) -> Compatibility:
        """This vocabulary with the registry's additions (a node of the same namespace and value replaces
        the packaged one), and a node of its own for every registry value of a closed-world slot, whose
        forms are the proposition's surface forms."""
        extra = registry.compatibility
        slots = {**self.slots, **(extra.slots if extra else {})}
        implies = {**self.vocabulary.implies, **(extra.implies if extra else {})}
        inclusive = sorted({*self.vocabulary.inclusive, *(extra.inclusive if extra else ())})
        open_ = sorted({*self.vocabulary.open, *(extra.open if extra else ())})
        partial = sorted({*self.vocabulary.partial, *(extra.partial if extra else ())})
        merged: dict[NodeKey, ValueNode] = dict(self._nodes)
        probe = Compatibility(CompatibilityVocabulary(slots=slots))
        for prop in registry.propositions:
            namespace = probe.namespace(prop.slot)
            if namespace is None or prop.world_fact:
                continue
            key = (namespace, normalise(prop.value))
            known = merged.get(key)
            forms = sorted({*(known.forms if known else ()), *(_plain(f) for f in prop.surface_forms)} - {""})
            merged[key] = ValueNode(namespace=namespace, value=known.value if known else prop.value, forms=forms,
                                    parents=list(known.parents) if known else [])
        for node in extra.nodes if extra else ():
            merged[(node.namespace, normalise(node.value))] = node
        return Compatibility(CompatibilityVocabulary(slots=slots, implies=implies, nodes=list(merged.values()),
                                                     inclusive=inclusive, open=open_, partial=partial))

    # ------------------------------------------------------------------ lookups

    def namespace(self, slot: str) -> str | None:
        """The namespace a slot's values belong to, or None (the slot has no compatibility data)."""
        if slot in self.slots:
            return self.slots[slot]
        family = slot.split(".", 1)[0] + ".*"
        return self.slots.get(family)

    def names(self, namespace: str, text: str) -> list[frozenset[NodeKey]]:
        """What a value names: one set per phrase it contains (the longest forms that occur in it as whole
        words), each set the nodes that phrase can name ("engineer" names every engineering node)."""
        words = normalise(text).split()
        found: list[tuple[int, int, frozenset[NodeKey]]] = []
        for start in range(len(words)):
            for end in range(min(len(words), start + _MAX_FORM_WORDS), start, -1):
                hit = self._index.forms.get(f"{namespace}\x00{' '.join(words[start:end])}")
                if hit:
                    found.append((start, end, hit))
                    break
        return [hit for start, end, hit in found
                if not any(s <= start and end <= e and (s, e) != (start, end) for s, e, _ in found)]

    def is_name(self, text: str, namespace: str | None = None) -> bool:
        """Whether a value names something at all, rather than only filling the slot ("a small town up north").

        Places, organisations and names are named by a proper noun (a capitalised word that is not a slot word);
        a field, topic or skill by any word that is not a slot word."""
        if namespace in _PROPER_NAMESPACES:
            return any(w[:1].isupper() and normalise(w) not in _VAGUE and normalise(w)
                       for w in re.findall(r"[^\W\d_][\w'’-]*", text))
        return any(w not in _VAGUE for w in normalise(text).split())

    def _part_of(self, namespace: str, text: str, supported: frozenset[NodeKey]) -> bool:
        # A short name: every word of the value that is not a slot word is a word of one supported node's name.
        words = {w for w in normalise(text).split() if w not in _VAGUE}
        if not words:
            return False
        for key in supported:
            node = self._nodes.get(key)
            forms = [key[1], *(normalise(f) for f in node.forms)] if node is not None else [key[1]]
            if key[0] == namespace and any(words <= set(form.split()) for form in forms):
                return True
        return False

    def broader(self, key: NodeKey) -> frozenset[NodeKey]:
        """Every ancestor of a node."""
        return self._index.ancestors.get(key, frozenset())

    # ------------------------------------------------------------------ judgements

    def supported_nodes(self, slot: str, values: Iterable[tuple[str, str]]) -> frozenset[NodeKey]:
        """Nodes supported for ``slot``: ``values`` are (source, text) pairs of what the record supports, a
        source being a slot or ``profile.occupation`` / ``profile.education``; a source counts for ``slot``
        when it is the slot itself or implies it."""
        namespace = self.namespace(slot)
        if namespace is None:
            return frozenset()
        keys: set[NodeKey] = set()
        for source, text in values:
            if source == slot or slot in self.implies.get(source, ()) or _family(slot) in self.implies.get(source, ()):
                for alternatives in self.names(namespace, text):
                    keys |= alternatives
        return frozenset(keys)

    def ground(self, slot: str, text: str, supported: frozenset[NodeKey],
               scope: frozenset[NodeKey] | None = None, record: Sequence[str] = ()) -> Grounding:
        """How a positive value of ``slot`` stands against the supported nodes (see the module docstring).

        Args:
            slot: The closed-world slot the value fills.
            text: The value in the reply's words.
            supported: :meth:`supported_nodes` of the slot at τ.
            scope: The nodes the closed world covers, when it covers only some of the namespace (acquired
                knowledge and skills: the registry's topics). A phrase that names none of them is outside the
                closed world: unrecorded, never false. None: the whole namespace.
            record: The admissible record's texts at τ, normalised (:func:`normalise`): a proper name that
                names no node of the data but occurs in them ("St. Finbarr's" for a school the record names
                only in words) is not absent from the admissible evidence, so it is supported.
        """
        namespace = self.namespace(slot)
        if namespace is None:
            return Grounding.INCOMPATIBLE if self.is_name(text) else Grounding.NEUTRAL
        named = self.names(namespace, text)
        if scope is not None:
            named = [alternatives for alternatives in named if alternatives & scope]
            if not named:
                return Grounding.NEUTRAL
        if not named:
            if namespace in self.partial and self._part_of(namespace, text, supported):
                return Grounding.SUPPORTED
            if namespace in _PROPER_NAMESPACES and _in_record(text, record):
                return Grounding.SUPPORTED
            unrecorded = namespace in self.open or not self.is_name(text, namespace)
            return Grounding.NEUTRAL if unrecorded else Grounding.INCOMPATIBLE
        compatible = supported | {a for key in supported for a in self.broader(key)}
        if namespace in self.vocabulary.inclusive:
            # A part of a supported place is supported: it lies inside it.
            compatible |= {key for alternatives in named for key in alternatives if self.broader(key) & supported}
        # Every phrase of the value must name something compatible (one of its readings suffices).
        return Grounding.SUPPORTED if all(alt & compatible for alt in named) else Grounding.INCOMPATIBLE

    def equivalent(self, slot: str, text: str, prop: Proposition) -> bool:
        """Whether a value names exactly the proposition's value (an equivalent, never a broader value)."""
        namespace = self.namespace(slot)
        if namespace is None or slot != prop.slot:
            return False
        named = self.names(namespace, text)
        own = {key for alternatives in self.names(namespace, prop.value) for key in alternatives}
        return bool(named) and bool(own) and all(alt & own for alt in named)


def _in_record(text: str, record: Sequence[str]) -> bool:
    # Every word of the value that is not a slot word occurs, as a whole word, in one text of the record.
    words = {w for w in normalise(text).split() if w not in _VAGUE}
    return bool(words) and any(words <= set(recorded.split()) for recorded in record)


def _family(slot: str) -> str:
    return slot.split(".", 1)[0] + ".*"


def _plain(form: str) -> str:
    # Registry surface forms may join two parts with "+" (a compound form): each part alone is not the value.
    return "" if "+" in form else form


def profile_values(profile: Profile) -> list[tuple[str, str]]:
    """The profile's fields that carry support by implication: (source, text)."""
    return [("profile.occupation", profile.occupation), ("profile.education", profile.education),
            ("hometown", profile.hometown), *(("profile.hobbies", hobby) for hobby in profile.hobbies)]


@cache
def packaged() -> Compatibility:
    """The vocabulary that ships with the package."""
    text = resources.files("sitbench.verify").joinpath(PACKAGED_VOCABULARY).read_text("utf-8")
    return Compatibility(CompatibilityVocabulary.model_validate(json.loads(text)))


_FOR_REGISTRY: dict[int, tuple[Registry, Compatibility]] = {}


def for_registry(registry: Registry) -> Compatibility:
    """The packaged vocabulary with one registry's additions (computed once per registry)."""
    hit = _FOR_REGISTRY.get(id(registry))
    if hit is not None and hit[0] is registry:
        return hit[1]
    if len(_FOR_REGISTRY) >= 64:
        _FOR_REGISTRY.clear()
    compatibility = packaged().with_registry(registry)
    _FOR_REGISTRY[id(registry)] = (registry, compatibility)
    return compatibility
