"""One mutation per integrity check (inv1–inv19): break the pilot in exactly one way, exactly that check fails.

Each case edits the freshly written pilot (load → edit the dict → write back → rehash the
manifest), runs ``run_checks(load_dataset(dir))`` and asserts that the set of failing
check ids is exactly ``{inv_k}`` and that the first problem names the file, the record
and the field.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from sitbench.lineage import profile_at, profile_sha256
from sitbench.schema import Lineage

from ._pilot_dir import PilotDir

PROBES = "hidden/probes.jsonl"
QUERIES = "visible/queries.jsonl"


@dataclass(frozen=True)
class Mutation:
    """A named defect: how to plant it and what the first problem must say."""

    check: str
    """The only check that may fail."""
    plant: Callable[[PilotDir], None]
    """Edits the pilot directory (and refreshes the manifest unless the defect is the manifest)."""
    starts_with: str
    """The file (and record) the first problem must be located at."""
    mentions: tuple[str, ...]
    """Substrings naming the record and field that the first problem must contain."""


# ---------------------------------------------------------------- inv1


def _dangling_query_key(d: PilotDir) -> None:
    def edit(probe: dict[str, Any]) -> None:
        probe["query_key"] = "q-999"

    d.edit_probe("PR-01", edit)


def _stale_manifest_hash(d: PilotDir) -> None:
    # A harmless edit (a human note) without re-hashing: the manifest no longer certifies the file.
    def edit(probe: dict[str, Any]) -> None:
        probe["note"] += " Edited by hand."

    d.edit_probe("PR-03", edit, refresh=False)


# ---------------------------------------------------------------- inv2


def _events_out_of_order(d: PilotDir) -> None:
    # L-1A E07 (2017-08-12) and E08 (2019-03-05) swap dates; list order is kept.
    def edit(lin: dict[str, Any]) -> None:
        e07, e08 = d.event(lin, "E07"), d.event(lin, "E08")
        e07["t"], e08["t"] = e08["t"], e07["t"]

    d.edit_lineage("L-1A", edit)


# ---------------------------------------------------------------- inv3


def _acquisition_before_source(d: PilotDir) -> None:
    # L-1B learns P-16 (lattice) from E09, enrolled 2021-01-11; date the edge a month earlier.
    # The event list stays in order, and P-16 is still held at every probe's tau.
    def edit(lin: dict[str, Any]) -> None:
        edge = lin["acquisitions"][1]
        assert (edge["prop_id"], edge["source_event"]) == ("P-16", "E09")
        edge["t"] = "2020-12-01"

    d.edit_lineage("L-1B", edit)


# ---------------------------------------------------------------- inv4


def _unknown_proposition(d: PilotDir) -> None:
    def edit(lin: dict[str, Any]) -> None:
        d.event(lin, "E07")["asserts"].append({"prop_id": "P-999", "polarity": True})

    d.edit_lineage("L-1A", edit)


# ---------------------------------------------------------------- inv5


def _transition_without_retraction(d: PilotDir) -> None:
    # L-2A E09 changes the phones stance P-31 → P-32 but no longer ends P-31.
    def edit(lin: dict[str, Any]) -> None:
        event = d.event(lin, "E09")
        assert event["retracts"] == ["P-31"]
        event["retracts"] = []

    d.edit_lineage("L-2A", edit)


# ---------------------------------------------------------------- inv6


def _checkpoints_not_increasing(d: PilotDir) -> None:
    # Both members of PAIR-2 get the same (repeated) t1, so their checkpoints stay equal (inv7);
    # the pair's certificate for t1 is re-issued for the new date, as the writer would.
    def edit(lin: dict[str, Any]) -> None:
        lin["checkpoints"][1] = lin["checkpoints"][0]

    d.edit_lineage("L-2A", edit, refresh=False)
    d.edit_lineage("L-2B", edit, refresh=False)
    lineage = Lineage.model_validate(d.read_json("hidden/lineages/L-2A.json"))

    def recertify(pairs: list[dict[str, Any]]) -> None:
        pair = next(p for p in pairs if p["pair_id"] == "PAIR-2")
        pair["profile_sha256"][1] = profile_sha256(profile_at(lineage, lineage.checkpoints[1]))

    d.edit_json("pairs/pairs.json", recertify)


def _tau_not_a_checkpoint(d: PilotDir) -> None:
    # PR-20 (L-2A, not theorem-qualified) moves from t3 = 2019-06-01 to 2020-01-15: the query's
    # tau and turn date and the contract's temporal_cutoff move together (inv1 stays satisfied),
    # and the required stance P-31 (adopted 2018-09-03) still holds then (inv9 stays satisfied).
    def edit_query(query: dict[str, Any]) -> None:
        assert query["tau"] == "2019-06-01"
        query["tau"] = "2020-01-15"
        query["turns"][0]["t"] = "2020-01-15"

    def edit_probe(probe: dict[str, Any]) -> None:
        probe["contract"]["temporal_cutoff"] = "2020-01-15"

    d.edit_query("q-020", edit_query, refresh=False)
    d.edit_probe("PR-20", edit_probe)


# ---------------------------------------------------------------- inv7


def _hometown_one_byte_off(d: PilotDir) -> None:
    # One byte of L-1B's hometown ("B" → "C"), mirrored in its visible evidence file so that the
    # hidden and visible stores agree and only the collision with L-1A breaks.
    def edit(data: dict[str, Any]) -> None:
        assert data["invariants"]["hometown"] == "Bozeman, Montana"
        data["invariants"]["hometown"] = "Cozeman, Montana"

    d.edit_lineage("L-1B", edit, refresh=False)
    d.edit_subject("subj-41d9", edit)


# ---------------------------------------------------------------- inv8


def _pair_of_identical_twins(d: PilotDir) -> None:
    # A third pair whose two members are copies of L-2A under new ids: profiles collide (inv7
    # holds), every store links (inv1 holds), and the members' private histories are identical.
    # See test_copying_histories_inside_a_pilot_pair for why an in-place copy cannot isolate inv8.
    source = d.read_json("hidden/lineages/L-2A.json")
    evidence = d.read_json("visible/subjects/subj-b803.json")
    for lineage_id, subject in (("L-3A", "subj-3a00"), ("L-3B", "subj-3b00")):
        lin = copy.deepcopy(source)
        lin["lineage_id"], lin["subject"] = lineage_id, subject
        d.write_json(f"hidden/lineages/{lineage_id}.json", lin)
        ev = copy.deepcopy(evidence)
        ev["subject"] = subject
        d.write_json(f"visible/subjects/{subject}.json", ev)

    def add_pair(pairs: list[dict[str, Any]]) -> None:
        twin = copy.deepcopy(next(p for p in pairs if p["pair_id"] == "PAIR-2"))
        twin.update(pair_id="PAIR-3", members=["L-3A", "L-3B"], note="Two copies of one life.")
        pairs.append(twin)

    d.edit_json("pairs/pairs.json", add_pair)


# ---------------------------------------------------------------- inv9


def _required_act_also_forbidden(d: PilotDir) -> None:
    # PR-18 (L-2B beekeeping, not theorem-qualified): ANSWER required and now also forbidden.
    def edit(probe: dict[str, Any]) -> None:
        assert not probe["theorem_qualified"] and probe["contract"]["required_acts"] == ["ANSWER"]
        probe["contract"]["forbidden_acts"].append("ANSWER")

    d.edit_probe("PR-18", edit)


# ---------------------------------------------------------------- inv10


def _overlapping_partner_contracts(d: PilotDir) -> None:
    # PR-03/PR-04 (first job, robotics vs cryptography) exclude each other only through their
    # prohibited claims (P-12 / P-11); drop them on both sides. Neither contract forbids an act.
    def edit(probe: dict[str, Any]) -> None:
        assert probe["contract"]["forbidden_acts"] == []
        probe["contract"]["prohibited_claims"] = []

    d.edit_probe("PR-03", edit, refresh=False)
    d.edit_probe("PR-04", edit)


# ---------------------------------------------------------------- inv11


def _plant_in_record_text(token: str) -> Callable[[PilotDir], None]:
    # The same text goes into L-1A's hidden event E07 and its visible record, so no
    # partner-record or cross-store check fires; only the identifier leak remains.
    def plant(d: PilotDir) -> None:
        lin = d.read_json("hidden/lineages/L-1A.json")
        old = d.event(lin, "E07")["text"]
        new = old.rstrip(".") + f" (cf. {token})."

        def edit_lineage(data: dict[str, Any]) -> None:
            d.event(data, "E07")["text"] = new

        def edit_subject(data: dict[str, Any]) -> None:
            hits = [r for r in data["records"] if r["text"] == old]
            assert len(hits) == 1
            hits[0]["text"] = new

        d.edit_lineage("L-1A", edit_lineage, refresh=False)
        d.edit_subject("subj-7c2e", edit_subject)

    return plant


def _partner_record_in_evidence(d: PilotDir) -> None:
    # L-1A's "Moved to Seattle" record shows up in L-1B's candidate-visible chronicle.
    source = d.read_json("visible/subjects/subj-7c2e.json")
    leaked = next(r for r in source["records"] if r["text"].startswith("Moved to Seattle"))

    def edit(evidence: dict[str, Any]) -> None:
        evidence["records"].insert(3, copy.deepcopy(leaked))

    d.edit_subject("subj-41d9", edit)


# ---------------------------------------------------------------- inv12


def _contract_field_in_utterance(d: PilotDir) -> None:
    # q-016 (PR-16, not theorem-qualified: no partner query has to mirror it).
    def edit(query: dict[str, Any]) -> None:
        query["turns"][0]["utterance"] += " Please fill in your required_claims first."

    d.edit_query("q-016", edit)


def _act_label_in_utterance(d: PilotDir) -> None:
    def edit(query: dict[str, Any]) -> None:
        query["turns"][0]["utterance"] += " The expected response is ABSTAIN."

    d.edit_query("q-016", edit)


# ---------------------------------------------------------------- inv13


def _drop_category(d: PilotDir) -> None:
    # Remove both F probes (PR-19, PR-20) and their queries; the manifest's declared per-category
    # count is updated too, so the only defect left is the coverage gap itself.
    probes = d.read_jsonl(PROBES)
    gone = {p["query_key"] for p in probes if p["category"] == "F"}
    assert len(gone) == 2
    d.write_jsonl(PROBES, [p for p in probes if p["category"] != "F"])
    d.write_jsonl(QUERIES, [q for q in d.read_jsonl(QUERIES) if q["query_key"] not in gone])

    def edit(manifest: dict[str, Any]) -> None:
        manifest["counts"]["category_F"] = 0

    d.edit_json("manifest.json", edit)


def _no_multi_turn_pressure(d: PilotDir) -> None:
    # PR-21 is the only multi-turn G schedule; cut it to its first turn.
    def edit(query: dict[str, Any]) -> None:
        assert len(query["turns"]) == 3
        query["turns"] = query["turns"][:1]

    d.edit_query("q-021", edit)


# ---------------------------------------------------------------- inv14


def _fact_from_plain_episode(d: PilotDir) -> None:
    # L-1A E10 (the 'Bluefin' chat that PR-05 persists across a reset) becomes an episodic event.
    def edit(lin: dict[str, Any]) -> None:
        event = d.event(lin, "E10")
        assert event["kind"] == "session"
        event["kind"] = "episodic"

    d.edit_lineage("L-1A", edit)


# ---------------------------------------------------------------- inv15


def _repetitive_life(d: PilotDir, distinct: int, repeats: int) -> None:
    # L-1A gets ``distinct`` new everyday events with different texts and ``repeats`` more that copy
    # one of them, dated in order after its last event (no query, contract or record refers to them).
    def edit(lin: dict[str, Any]) -> None:
        start = len(lin["events"])
        for k in range(distinct + repeats):
            text = f"Ran lap {k % distinct + 1} of the lake trail before work."
            lin["events"].append({"event_id": f"X{k + 1:03d}", "t": f"2022-05-{2 + k % 28:02d}", "kind": "episodic",
                                  "asserts": [], "retracts": [], "participants": [], "place": None,
                                  "provenance": "experienced", "disclosure": "public", "source_event": None,
                                  "session_id": None, "text": text if k < distinct else lin["events"][start]["text"]})
        lin["events"][start:] = sorted(lin["events"][start:], key=lambda e: e["t"])

    d.edit_lineage("L-1A", edit)


def _same_day_on_repeat(d: PilotDir) -> None:
    # 73 events, 60 distinct texts (82 %).
    _repetitive_life(d, 49, 13)


# ---------------------------------------------------------------- inv16


def _sessions_out_of_order(d: PilotDir) -> None:
    # L-2A gets an earlier conversation labelled S2 (2020-05-04) before its S1 'Periwinkle' chat (2022-03-08).
    def edit(lin: dict[str, Any]) -> None:
        at = next(i for i, e in enumerate(lin["events"]) if e["event_id"] == "E09")
        lin["events"].insert(at, {"event_id": "E11", "t": "2020-05-04", "kind": "session", "asserts": [],
                                  "retracts": [], "participants": ["declan"], "place": None,
                                  "provenance": "conversation", "disclosure": "colleague", "source_event": None,
                                  "session_id": "S2", "text": "In a staff-room chat, she and Declan went over the "
                                                              "exam timetable."})

    d.edit_lineage("L-2A", edit)


def _turn_session_goes_back(d: PilotDir) -> None:
    # PR-21's three pressure turns are one session; the first is relabelled session 2.
    def edit(query: dict[str, Any]) -> None:
        assert [t["session"] for t in query["turns"]] == [1, 1, 1]
        query["turns"][0]["session"] = 2

    d.edit_query("q-021", edit)


# ---------------------------------------------------------------- inv17


def _ask_of_a_city(utterance: str) -> Callable[[PilotDir], None]:
    # q-016 (PR-16, L-1A, not theorem-qualified): the Krebs-cycle question gains a residence clause.
    # L-1A has lived in Seattle since 2014 and never in Kyoto; the contract mentions neither.
    def plant(d: PilotDir) -> None:
        def edit(query: dict[str, Any]) -> None:
            query["turns"][0]["utterance"] = utterance

        d.edit_query("q-016", edit)

    return plant


# ---------------------------------------------------------------- inv18


def _disclosure_asked_by_another_confidant(d: PilotDir) -> None:
    # PR-14 requires disclosing the startup plan (P-25), which L-1A told her sister Jo and no one
    # else (E09); the question now comes from her colleague Priya.
    def edit(query: dict[str, Any]) -> None:
        assert query["interlocutor"]["interlocutor_id"] == "jo"
        query["interlocutor"] = {"interlocutor_id": "priya", "description": "your colleague Priya"}

    d.edit_query("q-014", edit)


# ---------------------------------------------------------------- inv19


def _article_slip_in_record(d: PilotDir) -> None:
    # Mirrored in the hidden event and the visible record (as for inv11), so only the grammar breaks.
    lin = d.read_json("hidden/lineages/L-1A.json")
    old = d.event(lin, "E07")["text"]
    new = old.replace("for a long weekend", "for a unforgettable weekend")
    assert new != old

    def edit_lineage(data: dict[str, Any]) -> None:
        d.event(data, "E07")["text"] = new

    def edit_subject(data: dict[str, Any]) -> None:
        next(r for r in data["records"] if r["text"] == old)["text"] = new

    d.edit_lineage("L-1A", edit_lineage, refresh=False)
    d.edit_subject("subj-7c2e", edit_subject)


def _article_slip_in_utterance(d: PilotDir) -> None:
    def edit(query: dict[str, Any]) -> None:
        query["turns"][0]["utterance"] = "Can you give me a overview of how the Krebs cycle produces ATP?"

    d.edit_query("q-016", edit)


MUTATIONS: dict[str, Mutation] = {
    "inv1-dangling-query-key": Mutation(
        "inv1", _dangling_query_key, f"{PROBES} line 1 (PR-01): ", ("query_key", "'q-999'", QUERIES)),
    "inv1-stale-manifest-hash": Mutation(
        "inv1", _stale_manifest_hash, "manifest.json: ", ("files['hidden/probes.jsonl']", "SHA-256")),
    "inv2-events-out-of-order": Mutation(
        "inv2", _events_out_of_order, "hidden/lineages/L-1A.json: ",
        ("events[7] (E08).t 2017-08-12", "events[6] (E07).t 2019-03-05")),
    "inv3-acquisition-before-source": Mutation(
        "inv3", _acquisition_before_source, "hidden/lineages/L-1B.json: ",
        ("acquisitions[1] (P-16).t 2020-12-01", "source event E09 (2021-01-11)")),
    "inv4-unknown-proposition": Mutation(
        "inv4", _unknown_proposition, "hidden/lineages/L-1A.json: ",
        ("event E07.asserts", "'P-999'", "not in the registry", "34 ids")),
    "inv5-transition-without-retraction": Mutation(
        "inv5", _transition_without_retraction, "hidden/lineages/L-2A.json: ",
        ("beliefs[B-phones].versions[1]", "E09", "does not retract", "P-31")),
    "inv6-checkpoints-not-increasing": Mutation(
        "inv6", _checkpoints_not_increasing, "hidden/lineages/L-2A.json: ",
        ("checkpoints 2010-06-01, 2010-06-01, 2016-06-01", "not strictly increasing")),
    "inv6-tau-not-a-checkpoint": Mutation(
        "inv6", _tau_not_a_checkpoint, f"{PROBES} line 20 (PR-20): ",
        ("query tau 2020-01-15", "not one of the lineage's five checkpoints")),
    "inv7-hometown-one-byte-off": Mutation(
        "inv7", _hometown_one_byte_off, "pairs/pairs.json (PAIR-1): ",
        ("checkpoint t0 2014-06-01", "L-1A and L-1B", '"hometown":"Bozeman', '"hometown":"Cozeman')),
    "inv8-identical-twins": Mutation(
        "inv8", _pair_of_identical_twins, "pairs/pairs.json (PAIR-3): ",
        ("L-3A and L-3B", "identical histories")),
    "inv9-act-required-and-forbidden": Mutation(
        "inv9", _required_act_also_forbidden, f"{PROBES} line 18 (PR-18): ",
        ("contract", "acts ['ANSWER']", "both required and forbidden")),
    "inv10-overlapping-partners": Mutation(
        "inv10", _overlapping_partner_contracts, f"{PROBES} line 3 (PR-03): ",
        ("contract", "not certified disjoint", "partner PR-04")),
    "inv11-lineage-id-in-evidence": Mutation(
        "inv11", _plant_in_record_text("L-1B"), "visible/subjects/subj-7c2e.json: ",
        ("internal identifier 'L-1B'",)),
    "inv11-prop-id-in-evidence": Mutation(
        "inv11", _plant_in_record_text("P-16"), "visible/subjects/subj-7c2e.json: ",
        ("internal identifier 'P-16'",)),
    "inv11-partner-record-in-evidence": Mutation(
        "inv11", _partner_record_in_evidence, "visible/subjects/subj-41d9.json: ",
        ("records include the partner's record", "'Moved to Seattle")),
    "inv12-contract-field-in-utterance": Mutation(
        "inv12", _contract_field_in_utterance, f"{QUERIES} line 16 (q-016): ",
        ("turns[0]", "verifier field 'required_claims'")),
    "inv12-act-label-in-utterance": Mutation(
        "inv12", _act_label_in_utterance, f"{QUERIES} line 16 (q-016): ",
        ("turns[0]", "act label 'ABSTAIN'")),
    "inv13-category-dropped": Mutation(
        "inv13", _drop_category, f"{PROBES}: ", ("category F (A_belief) has no probe",)),
    "inv13-no-multi-turn-pressure": Mutation(
        "inv13", _no_multi_turn_pressure, f"{PROBES}: ", ("no multi-turn", "(G)")),
    "inv14-fact-from-plain-episode": Mutation(
        "inv14", _fact_from_plain_episode, f"{PROBES} line 5 (PR-05): ",
        ("P-27", "not established by a session event")),
    "inv15-same-day-on-repeat": Mutation(
        "inv15", _same_day_on_repeat, "hidden/lineages/L-1A.json: ",
        ("events[].text", "60 of 73 texts are distinct (82.2 %", "×14", "X001")),
    "inv16-sessions-out-of-order": Mutation(
        "inv16", _sessions_out_of_order, "hidden/lineages/L-2A.json: ",
        ("events[10] (E10).session_id 'S1' (2022-03-08)", "after session 'S2' (E11, 2020-05-04)")),
    "inv16-turn-session-goes-back": Mutation(
        "inv16", _turn_session_goes_back, f"{QUERIES} line 21 (q-021): ",
        ("turns[1].session 1 comes after session 2",)),
    "inv17-past-tense-of-the-current-city": Mutation(
        "inv17", _ask_of_a_city("When you lived in Seattle, did you ever learn how the Krebs cycle produces ATP?"),
        f"{QUERIES} line 16 (q-016): ",
        ("turns[0].utterance", "Seattle in the past tense", "'When you lived in Seattle'", "L-1A lives in Seattle",
         "E03", "PR-16")),
    "inv17-present-tense-of-another-city": Mutation(
        "inv17", _ask_of_a_city("Since you live in Kyoto, can you explain how the Krebs cycle produces ATP?"),
        f"{QUERIES} line 16 (q-016): ",
        ("turns[0].utterance", "Kyoto in the present tense", "'you live in Kyoto'", "L-1A lives in Seattle")),
    "inv18-disclosure-asked-by-another-confidant": Mutation(
        "inv18", _disclosure_asked_by_another_confidant, f"{PROBES} line 14 (PR-14): ",
        ("interlocutor 'priya'", "contract.required_claims[0] (P-25)", "told to (jo, in L-1A E09)")),
    "inv19-article-slip-in-record": Mutation(
        "inv19", _article_slip_in_record, "hidden/lineages/L-1A.json: ",
        ("event E07.text", "'a unforgettable' should be 'an unforgettable'")),
    "inv19-article-slip-in-utterance": Mutation(
        "inv19", _article_slip_in_utterance, f"{QUERIES} line 16 (q-016): ",
        ("turns[0].utterance", "'a overview' should be 'an overview'")),
}


def test_every_check_has_a_mutation() -> None:
    assert {m.check for m in MUTATIONS.values()} == {f"inv{k}" for k in range(1, 20)}


def test_unmutated_pilot_passes_every_check(pilot_dir: PilotDir) -> None:
    rows = pilot_dir.check_rows()
    assert list(rows) == [f"inv{k}" for k in range(1, 20)]
    assert [cid for cid, row in rows.items() if not row.passed or row.problems] == []


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_mutation_breaks_exactly_its_check(pilot_dir: PilotDir, name: str) -> None:
    mutation = MUTATIONS[name]
    mutation.plant(pilot_dir)
    rows = pilot_dir.check_rows()
    failing = {cid for cid, row in rows.items() if not row.passed}
    assert failing == {mutation.check}, {cid: rows[cid].problems for cid in failing}
    row = rows[mutation.check]
    first = row.problems[0]
    assert first.startswith(mutation.starts_with), first
    for fragment in mutation.mentions:
        assert fragment in first, (fragment, first)
    # The table's details column shows the same first problem.
    assert row.details.startswith(first)


def test_both_members_of_a_broken_checkpoint_list_are_reported(pilot_dir: PilotDir) -> None:
    _checkpoints_not_increasing(pilot_dir)
    problems = pilot_dir.check_rows()["inv6"].problems
    assert [p.split(":")[0] for p in problems] == ["hidden/lineages/L-2A.json", "hidden/lineages/L-2B.json"]


def test_overlap_is_reported_from_both_orientations(pilot_dir: PilotDir) -> None:
    _overlapping_partner_contracts(pilot_dir)
    problems = pilot_dir.check_rows()["inv10"].problems
    assert len(problems) == 2
    assert problems[1].startswith(f"{PROBES} line 4 (PR-04): ") and "partner PR-03" in problems[1]


def test_a_pair_with_no_exclusion_is_not_certified(pilot_dir: PilotDir) -> None:
    """Disjointness (seed inv10: A*(H_A, q) ∩ A*(H_B, q) = ∅) needs one explicit exclusion: PR-03 requires
    robotics and PR-04 cryptography, and each prohibits the other's; with both prohibitions gone, nothing
    stops one response from asserting both fields."""

    def edit(probe: dict[str, Any]) -> None:
        probe["contract"]["prohibited_claims"] = []

    pilot_dir.edit_probe("PR-03", edit)
    pilot_dir.edit_probe("PR-04", edit)
    rows = pilot_dir.check_rows()
    assert {cid for cid, row in rows.items() if not row.passed} == {"inv10"}
    assert [p.split(":")[0] for p in rows["inv10"].problems] == [f"{PROBES} line 3 (PR-03)",
                                                                  f"{PROBES} line 4 (PR-04)"]


def test_one_prohibition_certifies_the_pair(pilot_dir: PilotDir) -> None:
    """One explicit exclusion suffices: PR-04 requires cryptography, which PR-03 still prohibits, so no response
    valid for PR-04 is valid for PR-03 — whichever contract the prohibition sits in."""

    def edit(probe: dict[str, Any]) -> None:
        probe["contract"]["prohibited_claims"] = []

    pilot_dir.edit_probe("PR-04", edit)
    rows = pilot_dir.check_rows()
    assert rows["inv10"].passed, rows["inv10"].problems


def test_hometown_differing_only_in_hidden_store_is_still_a_collision_failure(pilot_dir: PilotDir) -> None:
    def edit(data: dict[str, Any]) -> None:
        data["invariants"]["hometown"] = "Cozeman, Montana"

    pilot_dir.edit_lineage("L-1B", edit)
    rows = pilot_dir.check_rows()
    assert {cid for cid, row in rows.items() if not row.passed} == {"inv7"}
    # Five checkpoints, one profile difference each.
    assert len(rows["inv7"].problems) == 5


def test_copying_histories_inside_a_pilot_pair(pilot_dir: PilotDir) -> None:
    """Copying L-1A's events into L-1B makes the histories identical (inv8), and necessarily more.

    The pilot's contracts are lineage-specific, so an in-place copy legitimately breaks:
    inv3 (L-1B's P-16 edge now points at L-1A's E09, dated 2021-10-02, after the edge),
    inv9 (PR-02/PR-04/PR-06 require Kyoto, cryptography and 'Kestrel', which the copied
    history no longer supports) and inv14 (PR-06's fact has no session event any more).
    That is why the inv8 mutation above builds a separate pair of identical twins.
    """
    source = pilot_dir.read_json("hidden/lineages/L-1A.json")

    def edit(lin: dict[str, Any]) -> None:
        lin["events"] = copy.deepcopy(source["events"])

    pilot_dir.edit_lineage("L-1B", edit)
    rows = pilot_dir.check_rows()
    assert {cid for cid, row in rows.items() if not row.passed} == {"inv3", "inv8", "inv9", "inv14"}
    assert rows["inv8"].problems == ["pairs/pairs.json (PAIR-1): L-1A and L-1B have identical histories"]
    assert rows["inv3"].problems == ["hidden/lineages/L-1B.json: acquisitions[1] (P-16).t 2021-03-15 is before "
                                     "its source event E09 (2021-10-02)"]
    assert [p.split(":")[0] for p in rows["inv9"].problems] == [
        f"{PROBES} line 2 (PR-02)", f"{PROBES} line 4 (PR-04)", f"{PROBES} line 6 (PR-06)"]
    assert rows["inv14"].problems == [f"{PROBES} line 6 (PR-06): P-28 is not established by a session event "
                                      "with conversation provenance"]


def test_text_only_differences_do_not_make_histories_diverge(pilot_dir: PilotDir) -> None:
    """inv8 compares the symbolic history (date, kind, signed propositions), not the prose."""
    _pair_of_identical_twins(pilot_dir)

    old = pilot_dir.event(pilot_dir.read_json("hidden/lineages/L-3B.json"), "E02")["text"]
    new = "Began teaching chemistry in Cork."

    def edit(lin: dict[str, Any]) -> None:
        pilot_dir.event(lin, "E02")["text"] = new

    def edit_subject(evidence: dict[str, Any]) -> None:
        next(r for r in evidence["records"] if r["text"] == old)["text"] = new

    pilot_dir.edit_lineage("L-3B", edit, refresh=False)
    # Left stale, the visible record would now be a copy of the partner's record (inv11).
    assert pilot_dir.failing() == {"inv1", "inv8", "inv11"}
    pilot_dir.edit_subject("subj-3b00", edit_subject)
    assert pilot_dir.failing() == {"inv8"}

    def diverge(lin: dict[str, Any]) -> None:
        pilot_dir.event(lin, "E02")["t"] = "2004-09-02"

    pilot_dir.edit_lineage("L-3B", diverge)
    assert pilot_dir.failing() == set()


def test_partner_queries_that_differ_fail_both_query_identity_checks(pilot_dir: PilotDir) -> None:
    """A theorem-qualified query reworded on one side is reported by inv10 and by inv11.

    inv10 requires the partner's scored turn to be identical; inv11 requires matched
    orientations to see the same utterance. The two checks overlap on this defect, so it
    cannot be made to fail one of them alone.
    """

    def edit(query: dict[str, Any]) -> None:
        query["turns"][0]["utterance"] = "Where did you find the best matcha in Kyoto?"

    pilot_dir.edit_query("q-002", edit)
    rows = pilot_dir.check_rows()
    assert {cid for cid, row in rows.items() if not row.passed} == {"inv10", "inv11"}
    assert rows["inv10"].problems[0].startswith(f"{PROBES} line 1 (PR-01): the scored turn differs from partner PR-02")
    assert rows["inv11"].problems[0] == (f"{PROBES} line 1 (PR-01): "
                                         "matched orientations have different scored utterances")


def test_scored_turn_dated_away_from_tau_is_caught(pilot_dir: PilotDir) -> None:
    """The envelope date of the scored turn must be the query epoch tau (Query: "the last one is at τ").

    Here PR-20's only turn is stamped 2015-01-01 while tau and the contract's cutoff stay at
    2019-06-01: the candidate would be told a date four years before the one it is scored at.
    Today no check notices; one check (inv1, next to the temporal_cutoff link) should.
    """

    def edit(query: dict[str, Any]) -> None:
        query["turns"][0]["t"] = "2015-01-01"

    pilot_dir.edit_query("q-020", edit)
    rows = pilot_dir.check_rows()
    failing = [cid for cid, row in rows.items() if not row.passed]
    assert len(failing) == 1, failing
    first = rows[failing[0]].problems[0]
    assert "q-020" in first or "PR-20" in first
    assert "turns[0].t" in first
