"""Propositions and acts in words: the check reasons and claims of the drill-down, spelled out.

A verdict's reasons name propositions by id and polarity (``['P-01-']``); the dataset's registry holds one
gloss per proposition ("The identity has lived in Kyoto."), so the page can say "denies: lived in Kyoto".
The registry is read from the dataset the run manifest names, and only when that dataset is still the run's
(its manifest's SHA-256 is the one the run recorded); otherwise the ids are shown as they are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sitbench.errors import InputError
from sitbench.glossary import act_words
from sitbench.render import esc
from sitbench.report._data import LoadedRun
from sitbench.schema import Act, Registry
from sitbench.stores import MANIFEST, REGISTRY, load_model, sha256_file

_TOKEN = re.compile(r"[A-Za-z0-9][\w.-]*\+?")
"""A word that may be a proposition id, signed (``P-01-``, ``P-11+``) or not; ``.``, ``-`` and ``+`` are kept
inside so ids of any registry match whole."""

_LIST = re.compile(r":?\s*\[((?:'[^'\[\]]*'(?:, )?)*)\]")
"""A Python list of quoted strings, as a reason prints one (``['P-01-', 'P-11+']``, ``['REJECT']``), with the
colon and space before it."""

_ACTS = frozenset(a.value for a in Act)
_PREFIXES = ("The identity has ", "The identity ")


def gloss_phrase(gloss: str) -> str:
    """A gloss as a short phrase: ``The identity has lived in Kyoto.`` → ``lived in Kyoto``."""
    text = gloss.strip().rstrip(".")
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix):]
    # A sentence about something else ("The new test rig is nicknamed Bluefin") reads on after a colon.
    return text[:1].lower() + text[1:] if text[1:2].islower() else text


@dataclass(frozen=True)
class PropWords:
    """Proposition id → short phrase, from one dataset's registry; empty when the registry is not reachable."""

    phrases: Mapping[str, str] = field(default_factory=dict)
    """Each proposition's gloss as a phrase (see :func:`gloss_phrase`)."""
    note: str = ""
    """Where the phrases come from, or why there are none, in one sentence."""

    def signed(self, prop_id: str, polarity: bool) -> str:
        """``denies: lived in Kyoto`` / ``affirms: lived in Kyoto``; the raw signed id when the id is unknown."""
        phrase = self.phrases.get(prop_id)
        if phrase is None:
            return f"{prop_id}{'+' if polarity else '−'}"
        return f"{'affirms' if polarity else 'denies'}: {phrase}"

    def claim_html(self, prop_id: str, polarity: bool) -> str:
        """A signed claim in words with its id beside it (muted), escaped."""
        sign = "+" if polarity else "−"
        if prop_id not in self.phrases:
            return f"{esc(prop_id)}{sign}"
        return (f"<span class='prop'>“{esc(self.signed(prop_id, polarity))}”</span> "
                f"<span class='muted pid'>({esc(prop_id)}{sign})</span>")

    def _token_html(self, token: str) -> str:
        word, tail = (token[:-1], ".") if token.endswith(".") else (token, "")
        if word in self.phrases:
            return (f"<span class='prop'>“{esc(self.phrases[word])}”</span> "
                    f"<span class='muted pid'>({esc(word)})</span>{tail}")
        if word[-1:] in "+-" and word[:-1] in self.phrases:
            return self.claim_html(word[:-1], word.endswith("+")) + tail
        if word in _ACTS:
            return esc(act_words(word)) + tail
        return esc(token)

    def reason_html(self, reason: str) -> str:
        """A check's reason with every proposition id spelled out by its gloss and every act by its meaning,
        Python list brackets and quotes dropped; the rest of the text escaped as it is."""
        text = _LIST.sub(lambda m: (": " if m.start() else "") + m.group(1).replace("'", ""), reason)
        out: list[str] = []
        end = 0
        for match in _TOKEN.finditer(text):
            out.append(esc(text[end:match.start()]))
            out.append(self._token_html(match.group(0)))
            end = match.end()
        out.append(esc(text[end:]))
        return "".join(out)


def _dataset_dir(run: LoadedRun) -> Path | None:
    recorded = run.manifest.dataset.get("path")
    if not recorded:
        return None
    path = Path(str(recorded))
    # A relative path was recorded from where the run was started; the run directory's parent is the best guess.
    for candidate in (path, run.path.parent / path) if not path.is_absolute() else (path,):
        if (candidate / REGISTRY).is_file():
            return candidate
    return None


def _is_runs_dataset(root: Path, expected: object) -> bool:
    """Whether the dataset at ``root`` is the one the run recorded (its manifest's SHA-256; any, when none was)."""
    if not expected:
        return True
    try:
        return sha256_file(root / MANIFEST) == expected
    except OSError:
        return False


def load_prop_words(run: LoadedRun) -> PropWords:
    """The phrases of the registry of the dataset ``run`` was made with, or none, with a note saying which."""
    root = _dataset_dir(run)
    where = run.manifest.dataset.get("path") or "(no dataset path in the run manifest)"
    if root is None:
        return PropWords(note=f"the dataset {where} is not reachable from here, so propositions are shown by id")
    if not _is_runs_dataset(root, run.manifest.dataset.get("manifest_sha256")):
        return PropWords(note=f"the dataset at {root} is no longer the one {run.name} was made with (its manifest "
                              "differs), so propositions are shown by id")
    try:
        registry = load_model(root / REGISTRY, Registry, REGISTRY)
    except InputError as exc:
        return PropWords(note=f"the registry of {root} could not be read ({exc}), so propositions are shown by id")
    phrases = {p.prop_id: gloss_phrase(p.gloss) for p in registry.propositions}
    return PropWords(phrases=phrases, note=f"propositions are spelled out with the glosses of the registry of {root}")


def prop_words(runs: Sequence[LoadedRun]) -> dict[str, PropWords]:
    """Run name → its proposition words; runs of one dataset share one read of its registry."""
    by_dataset: dict[tuple[str, str], PropWords] = {}
    out: dict[str, PropWords] = {}
    for run in runs:
        key = (str(run.manifest.dataset.get("path")), str(run.manifest.dataset.get("manifest_sha256")))
        if key not in by_dataset:
            by_dataset[key] = load_prop_words(run)
        out[run.name] = by_dataset[key]
    return out
