"""Misspelled registry words are read as the word (stage 1, masking): two letters swapped, nothing else."""

from __future__ import annotations

import pytest

from sitbench.schema import Act
from sitbench.verify import Judge
from sitbench.verify._extract import _correct_typos, _typo_index


@pytest.mark.parametrize(("probe", "response", "prop"), [
    ("PR-04", "Cryptogrpahy, mostly protocol implementation.", "P-12"),
    ("PR-09", "Periwinkel, I think we said?", "P-29"),
])
def test_a_swapped_pair_of_letters_is_read_as_the_word(judge: Judge, probe: str, response: str, prop: str) -> None:
    observation = judge.extract(probe, response)
    assert (prop, True) in {(c.prop_id, c.polarity) for c in observation.claims}
    assert Act.ANSWER in observation.acts
    assert "typo_corrected" in observation.confidence.signals
    # Offsets stay those of the response: the clause span covers the misspelled word.
    claim = next(c for c in observation.claims if c.prop_id == prop)
    assert response[claim.span[0]:claim.span[1]].lower().startswith(response.split(",")[0].lower()[:4])


def test_correction_keeps_length_and_leaves_other_words_alone(judge: Judge) -> None:
    envelope = judge.envelope(judge.probe("PR-04"))
    typos = judge.vocabulary(envelope)._typos
    text = "My first job was in cryptogrpahy; the trial runs were on a Tuesday."
    fixed, changed = _correct_typos(text, typos)
    assert changed and len(fixed) == len(text)
    assert "cryptography" in fixed and "trial runs were on a Tuesday" in fixed
    assert _correct_typos("Nothing here is misspelled.", typos) == ("Nothing here is misspelled.", False)


def test_short_common_words_are_not_swapped_into_registry_words(judge: Judge) -> None:
    universe = list(judge.vocabulary(judge.envelope(judge.probe("PR-04"))).universe)
    trail = universe[0].model_copy(update={"value": "trail running", "surface_forms": ["trail running"]})
    index = _typo_index([trail])
    assert "trial" not in index  # a real word one swap away from a short registry word
    assert _correct_typos("the trial began", index) == ("the trial began", False)


def test_a_real_name_one_letter_from_a_registry_value_is_left_alone(judge: Judge) -> None:
    typos = judge.vocabulary(judge.envelope(judge.probe("PR-01")))._typos
    assert _correct_typos("I read Austen and Seatle-born poets.", typos)[0] == "I read Austen and Seatle-born poets."
