"""The shared proposition registry under construction (one per generated suite)."""

from __future__ import annotations

from sitbench.data._generator import _forms
from sitbench.data._pilot_registry import closed_world_declarations
from sitbench.schema import ClosedWorldDeclaration, Proposition, Registry


class Rejected(Exception):
    """A pair failed a construction check; it is regenerated from the next attempt seed."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


CLOSED_WORLD: list[ClosedWorldDeclaration] = closed_world_declarations("skill.practical")


class RegistryBuilder:
    """Adds propositions once per (predicate, slot, entity, value); every surface form maps to one id.

    The forms a proposition is added with are extended with the further phrasings of
    :mod:`._forms` (world facts, stances, changes of mind), so every reader of the registry sees them.

    A surface form shared by two propositions would make the extractor report only the first,
    so a second owner of a form is a construction error, not a silent merge.
    """

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.props: list[Proposition] = []
        self._by_key: dict[tuple[str, str, str, str], str] = {}
        self._forms: dict[str, str] = {}

    def mark(self) -> int:
        """A point to roll back to if the pair under construction is rejected."""
        return len(self.props)

    def rollback(self, mark: int) -> None:
        """Forget every proposition added after ``mark``."""
        for prop in self.props[mark:]:
            del self._by_key[(prop.predicate, prop.slot, prop.entity, prop.value)]
            for form in prop.surface_forms:
                if self._forms.get(form) == prop.prop_id:
                    del self._forms[form]
        del self.props[mark:]

    def form_owner(self, form: str) -> str | None:
        """Prop id owning a surface form, if any."""
        return self._forms.get(form.lower())

    def add(self, domain: str, predicate: str, slot: str, entity: str, value: str, gloss: str,
            forms: list[str], *, world: bool = False, eq: str | None = None) -> str:
        """The id of this proposition, creating it on first use."""
        key = (predicate, slot, entity, value)
        if key in self._by_key:
            return self._by_key[key]
        pid = f"{self.prefix}P{len(self.props) + 1:04d}"
        forms = [f.lower() for f in _forms.extend(predicate, value, forms)]
        for form in forms:
            owner = self._forms.get(form)
            if owner is not None:
                raise Rejected("surface_form_clash", f"{form!r} already names {owner}")
        self.props.append(Proposition(prop_id=pid, domain=domain, predicate=predicate, slot=slot, entity=entity,
                                      value=value, gloss=gloss, surface_forms=forms, world_fact=world,
                                      equivalence_class=eq))
        self._by_key[key] = pid
        for form in forms:
            self._forms[form] = pid
        return pid

    def get(self, pid: str) -> Proposition:
        """The proposition with this id."""
        return self.props[int(pid[len(self.prefix) + 1:]) - 1]

    def registry(self) -> Registry:
        """The frozen registry."""
        return Registry(propositions=list(self.props), closed_world=list(CLOSED_WORLD))
