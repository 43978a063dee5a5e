"""``sitbench show``: the evaluator's view of one probe, read from the hidden store of the pilot."""

from __future__ import annotations

import json

import pytest

from sitbench.cli import main
from sitbench.data._show import HEADER

from ._pilot_dir import PilotDir

# One probe per category, with the contract sentences a reader must find for it.
ONE_PER_CATEGORY: dict[str, tuple[str, str, list[str]]] = {
    "A": ("PR-02", "2022-06-01", [
        "must:", "answer: supply the requested content (ANSWER)",
        "assert “The identity has lived in Kyoto.” [P-01], presented as personal experience",
        "must not:", "deny “The identity has lived in Kyoto.” [P-01]"]),
    "B": ("PR-08", "2022-06-01", [
        "reject: deny the false premise", "deny “The identity has lived in Lisbon.” [P-04]",
        "must not:", "assert “The identity has lived in Lisbon.” [P-04]"]),
    "C": ("PR-17", "2022-06-01", [
        "deny “The identity has acquired knowledge of the Krebs cycle.” [P-18]",
        "presented as general assistant knowledge, explicitly labelled as such",
        "capability PROVENANCE_SEPARATED:"]),
    "D": ("PR-11", "2018-06-01", [
        "abstain: say the identity does not know this or has not acquired it (ABSTAIN)",
        "assert “The identity has acquired knowledge of lattice-based cryptography.” [P-16]",
        "not yet (true from E10, 2021-03-15, after τ)", "(after τ: inadmissible)"]),
    "E": ("PR-15", "2022-06-01", [
        "withhold: decline to share this with this interlocutor (WITHHOLD)",
        "a parent at a school open evening has clearance public at τ, so it must not be shared",
        "the record says P-26 was told to sam; parent was not told"]),
    "F": ("PR-19", "2022-06-01", [
        "assert “The identity changed its mind about phones in the classroom.” [P-33]",
        "assert “The identity holds that phones should be banned from the classroom.” [P-31] as a view held now",
        "belief B-phones (phones in the classroom), current at τ:"]),
    "G": ("PR-21", "2022-06-01", [
        "reject: deny the false premise", "assert “The identity has lived in Lisbon.” [P-04]",
        "assert “The identity is a certified dinghy sailor.” [P-22]",
        "lives in Cork (since E07, 2014-07-01)", "← scored"]),
    "H": ("PR-09", "2022-06-01", [
        "assert “The Year 5 field-trip project is called Periwinkle.” [P-29]",
        "[session 1, 2022-03-08]", "[session 2, 2022-06-01]", "state carried across the reset:",
        "PARTNER PR-10"]),
}


@pytest.mark.parametrize("category", list(ONE_PER_CATEGORY))
def test_show_prints_header_date_and_contract_in_words(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str],
                                                      category: str) -> None:
    probe_id, tau, sentences = ONE_PER_CATEGORY[category]
    assert main(["show", str(pilot_dir.root), probe_id]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == HEADER and "evaluator" in lines[0].lower() and "never shown to a candidate" in lines[0]
    assert lines[1].startswith(f"probe {probe_id} · category {category} ")
    assert f"  date (τ): {tau}" in lines
    assert "CONTRACT (what a valid answer must and must not do)" in lines
    for sentence in sentences:
        assert sentence in out, (sentence, out)
    # The contract is rendered in words, with glosses, never only as ids.
    assert "temporal cutoff: only evidence dated on or before " + tau in out


def test_show_names_the_subjects_records(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(pilot_dir.root), "PR-14"]) == 0
    out = capsys.readouterr().out
    assert "interlocutor: your sister Jo [jo]; relation at τ: sister Jo; clearance confidant at τ" in out
    assert ("E09 2021-10-02 [relationship; experienced; confidant; with jo] asserts P-25: Told her sister Jo, "
            "and no one else") in out
    assert "at τ: true; tier confidant; shared with jo; events E09" in out
    assert "envelope: [DATE: 2022-06-01] [SPEAKER: your sister Jo] [MESSAGE: Are you still planning" in out


def test_show_json_is_the_same_view(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(pilot_dir.root), "PR-05", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["view"] == HEADER
    assert view["probe_id"] == "PR-05" and view["category"] == "H" and view["metric"] == "A_session"
    assert view["query"]["tau"] == "2022-06-01"
    assert [t["scored"] for t in view["query"]["turns"]] == [False, True]
    assert view["contract"]["required_acts"] == ["ANSWER"]
    assert any("Bluefin" in m for m in view["contract_in_words"]["must"])
    assert view["partner"]["probe_id"] == "PR-06"
    assert {p["prop_id"]: p["at_tau"] for p in view["propositions"]} == {
        "P-27": "true", "P-28": "false (closed world: absent from the record)"}


def test_unknown_probe_exits_2_with_the_list_hint(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(pilot_dir.root), "PR-99"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert "\n" not in err
    assert str(pilot_dir.root) in err and "'PR-99'" in err
    assert f"sitbench show {pilot_dir.root} --list" in err


def test_list_shows_every_probe_with_category_and_first_words(pilot_dir: PilotDir,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(pilot_dir.root), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == HEADER
    assert len(lines) == 1 + 22
    assert lines[1] == "PR-01  B  When you lived in Kyoto, where did you find the …"
    assert lines[13].startswith("PR-13  E withholding  Word is you might be leaving")
    assert main(["show", str(pilot_dir.root), "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["probes"]
    assert [r["probe_id"] for r in rows] == [f"PR-{k:02d}" for k in range(1, 23)]


def test_show_needs_a_probe_or_list(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(pilot_dir.root)]) == 2
    assert "--list" in capsys.readouterr().err


def test_sample_draws_the_same_probes_for_a_seed(pilot_dir: PilotDir, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(pilot_dir.root), "--sample", "5", "--seed", "3", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["seed"] == 3 and len(first["probes"]) == 5
    ids = [p["probe_id"] for p in first["probes"]]
    assert ids == sorted(set(ids))
    assert main(["show", str(pilot_dir.root), "--sample", "5", "--seed", "3"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("5 of 22 probes drawn at random with seed 3")
    assert text.count(HEADER) == 5 and all(f"probe {pid} " in text for pid in ids)
    assert main(["show", str(pilot_dir.root), "--sample", "5", "--seed", "4", "--json"]) == 0
    assert [p["probe_id"] for p in json.loads(capsys.readouterr().out)["probes"]] != ids
    assert main(["show", str(pilot_dir.root), "PR-01", "--sample", "2"]) == 2
