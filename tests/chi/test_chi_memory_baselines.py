"""The memory baselines as agents, the literal mock reader, and the §3/§5 protocol of the harness."""

from __future__ import annotations

import asyncio
import random
import textwrap
from pathlib import Path

import pytest

from sitbench.candidates import CandidateRequest, Message, get_candidate
from sitbench.chi import (
    MemoryHarness,
    RunSpec,
    generate_memory_panel,
    make_baseline_factory,
    parse_reply,
    run_memory,
)
from sitbench.chi._memory_run import _turn, preamble_subject

REC = ("RECORD r000007 | event 2014-03-05 | source S-4f2a (registry, authority 3) | version 1 | valid "
       "2014-03-05..open | observed | The locker code of Vemorak Tuls is QX-48211.")


def ask(lines: list[str], question: str, fields: str = "abstain, answer", **kw: object) -> tuple[str | None, str]:
    reader = get_candidate("mock/memory-reader", **kw)  # type: ignore[arg-type]
    memory = "\n".join(lines) or "(none)"
    req = CandidateRequest(trial_id="t", messages=[
        Message(role="system", content="policy"),
        Message(role="user", content=f"MEMORY:\n{memory}\n\nQUESTION: {question}\nFIELDS: {fields}")],
        view={"answer": "ZZ-99999"})  # a misleading view: the reader must not read it
    resp = asyncio.run(reader.complete(req))
    return resp.text, resp.drop_reason or ""


def test_reader_answers_from_what_the_prompt_holds_not_from_a_key() -> None:
    text, _ = ask([REC], "What is the locker code of Vemorak Tuls?")
    assert parse_reply(text).answer == "QX-48211"
    text, _ = ask([REC.replace("QX-48211", "AB-00001")], "What is the locker code of Vemorak Tuls?")
    assert parse_reply(text).answer == "AB-00001"
    text, _ = ask([], "What is the locker code of Vemorak Tuls?")
    assert parse_reply(text).abstain
    text, _ = ask([REC], "What is the locker code of Vemorak Tuls, and which source reported it?",
                  "abstain, answer, source")
    assert parse_reply(text).source == "S-4f2a"


def test_reader_takes_the_first_line_and_never_adjudicates() -> None:
    v2 = REC.replace("r000007", "r000009").replace("version 1", "version 2").replace("QX-48211", "QX-11111")
    assert parse_reply(ask([REC, v2], "What is the locker code of Vemorak Tuls?")[0]).answer == "QX-48211"
    assert parse_reply(ask([v2, REC], "What is the locker code of Vemorak Tuls?")[0]).answer == "QX-11111"


def test_reader_near_name_confabulation_revocation_and_notes() -> None:
    # no line names "Vemorak Tulz": the record of a name one letter away is read as it (an unsupported affirmative)
    assert parse_reply(ask([REC], "What is the locker code of Vemorak Tulz?")[0]).answer == "QX-48211"
    assert parse_reply(ask([REC], "What is the gate pin of Vemorak Tuls?")[0]).abstain
    revoke = "RECORD r000010 | event 2015-01-01 | source S-4f2a (registry, authority 3) | REVOKE r000007: erase."
    assert parse_reply(ask([REC, revoke], "What is the locker code of Vemorak Tuls?")[0]).abstain
    note = "UNRESOLVED | The locker code of Vemorak Tuls: records r1 and r2 conflict at equal authority."
    got = parse_reply(ask([note, REC], "What is the locker code of Vemorak Tuls?", "abstain, unresolved, answer")[0])
    assert got.unresolved and not got.abstain
    none = "NO RECORD | The locker code of Vemorak Tuls: nothing is stored for this key."
    assert parse_reply(ask([none, REC], "What is the locker code of Vemorak Tuls?")[0]).abstain


def test_reader_refuses_a_prompt_past_its_context_window() -> None:
    text, reason = ask([REC] * 10, "What is the locker code of Vemorak Tuls?", context_window=300)
    assert text is None and reason.startswith("context_overflow")


def m8_run(agent: str, condition: str = "equal-budget", **kw: object) -> dict:
    spec = RunSpec(panels=["m8"], agent=agent, model="mock/memory-reader", condition=condition, seed=3,
                   trajectories=2, grid=[100, 300], pre_exposure=2, **kw)  # type: ignore[arg-type]
    return run_memory(spec)["memory"]["m8"]


def test_version_aware_retrieval_beats_append_only_rag_on_u_and_s() -> None:
    rag, ver = m8_run("rag"), m8_run("versioned")
    for n in ("100", "300"):
        for s in ("u", "s"):
            assert ver["factors"][n][s]["estimate"] > rag["factors"][n][s]["estimate"] + 0.3
        # the stated reason: RAG ranks a key's versions by lexical similarity (a tie), so the stale
        # version appended first is read first; versioned resolves versions and authority first
        why = rag["factors"][n]["why_u_and_s_failed"]
        assert why["u"]["stale version"] >= 30 and why["s"]["stale version"] >= 30
        assert ver["factors"][n]["why_u_and_s_failed"]["u"] == {"correct": 80}
    assert ver["status"] == "lower_bound/right_censored" and rag["status"] == "no_passing_tested_load"


def test_stateless_control_abstains_everywhere() -> None:
    m = m8_run("stateless")
    for n in ("100", "300"):
        f = m["factors"][n]
        assert all(f[s]["estimate"] == 0.0 for s in ("r", "t", "s", "u", "i"))
        assert f["f"]["estimate"] == 0.0  # valid explicit abstention passes every lure
    assert m["eimc"] is None and m["status"] == "no_passing_tested_load"


def test_best_effort_replay_overflows_and_invalid_counts_in_f() -> None:
    m = m8_run("replay", "best-effort")
    f = m["factors"]["100"]
    assert f["r"]["estimate"] == 0.0
    assert f["invalid_lure_rate"]["estimate"] == 1.0 and f["f_raw"]["estimate"] == 0.0 and f["f"]["estimate"] == 1.0


def test_scripted_mimic_makes_no_model_call_and_confabulates() -> None:
    m = m8_run("mimic")
    f = m["factors"]["100"]
    assert f["r"]["estimate"] == 0.0 and f["f_raw"]["estimate"] > 0.2
    assert m["factors"]["100"]["costs_mean_per_trajectory"].get("probe.model_calls", 0) == 0


def test_fork_is_copy_on_write() -> None:
    factory, _, _ = make_baseline_factory("rag", "mock/memory-reader", "equal-budget")
    agent = factory()

    async def go() -> tuple[int, int]:
        await agent.ingest(preamble_subject())
        await agent.respond(_turn(0, 1, __import__("datetime").date(2024, 1, 1), REC))
        clone = await agent.fork()
        await clone.respond(_turn(1, 1, __import__("datetime").date(2024, 1, 1), REC.replace("r000007", "r000008")))
        return len(agent.lines), len(clone.lines)

    assert asyncio.run(go()) == (1, 2)


def test_scheduled_agent_spends_no_more_than_its_background_budget() -> None:
    env = generate_memory_panel("m5", 2)
    factory, budget, _ = make_baseline_factory("scheduled", "mock/memory-reader", "best-effort")
    res = asyncio.run(MemoryHarness(factory, budget, pre_exposure=0).run_arm(env.arms[0], 0, random.Random(0)))
    assert res.costs_ingest.get("background_ops", 0) + res.costs_probe.get("background_ops", 0) <= 20
    assert res.ticks == 1


def test_every_probe_runs_on_its_own_clone_and_costs_are_counted() -> None:
    env = generate_memory_panel("m1", 4)
    factory, budget, _ = make_baseline_factory("rag", "mock/memory-reader", "equal-budget")
    res = asyncio.run(MemoryHarness(factory, budget, pre_exposure=3).run_arm(env.arms[0], 0, random.Random(0)))
    assert res.cloned and len(res.results) == 40 and len(res.pre_exposure) == 3
    assert res.costs_probe["model_calls"] == 40 and res.costs_probe["retrieval_calls"] == 40
    assert res.costs_ingest["record_turns"] == 1040 and res.costs_ingest.get("model_calls", 0) == 0
    assert res.events == 1040 and res.ticks == 4  # event time and tick time, apart from wall time
    assert res.wall["total_s"] > 0
    # the pre-exposure check on the fresh clone knows nothing
    assert all(not r.outcome.success for r in res.pre_exposure)


AGENT_FILE = '''
import asyncio, json


class NoForkAgent:
    """Remembers record lines; answers from the last line naming the key; no fork()."""

    def __init__(self, slow=False):
        self.lines, self.slow = [], slow

    async def ingest(self, subject):
        return None

    async def respond(self, turn):
        if turn.utterance.startswith("RECORD "):
            self.lines.append(turn.utterance)
            return "OK"
        if self.slow:
            await asyncio.sleep(5)
        q = turn.utterance.splitlines()[0]
        key = q[len("What is the "):-1] if q.startswith("What is the ") else ""
        for line in reversed(self.lines):
            if key and ("The " + key + " is ") in line:
                return json.dumps({"abstain": False, "answer": line.rsplit(" is ", 1)[1].rstrip(".")})
        return json.dumps({"abstain": True, "answer": None})

    async def end_session(self):
        return None


def make(slow="no"):
    return NoForkAgent(slow == "yes")
'''


def test_a_user_agent_without_fork_gets_counterbalanced_live_probes(tmp_path: Path) -> None:
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(AGENT_FILE), encoding="utf-8")
    spec = RunSpec(panels=["m1"], agent=f"{path}:make", model="", condition="equal-budget", seed=1, trajectories=2)
    summary = run_memory(spec)
    m1 = summary["memory"]["panels"]["m1"]
    assert m1["score"]["estimate"] == 1.0
    assert any("contamination" in e for e in summary["manifest"].exclusions)
    assert summary["manifest"].system["clones"].startswith("no fork")


def test_a_timeout_is_an_invalid_outcome(tmp_path: Path) -> None:
    path = tmp_path / "slow.py"
    path.write_text(textwrap.dedent(AGENT_FILE), encoding="utf-8")
    spec = RunSpec(panels=["m8"], agent=f"{path}:make", model="", condition="equal-budget", seed=1, trajectories=1,
                   grid=[100], clean_pair=False, deadline_s=0.01, pre_exposure=0, agent_options={"slow": "yes"})
    m8 = run_memory(spec)["memory"]["m8"]
    f = m8["factors"]["100"]
    assert f["r"]["estimate"] == 0.0 and f["invalid_lure_rate"]["estimate"] == 1.0 and f["f"]["estimate"] == 1.0


def test_oracle_evidence_is_a_selection_ceiling() -> None:
    m = m8_run("oracle")
    assert all(m["factors"]["100"][s]["estimate"] == 1.0 for s in ("r", "t", "s", "u", "i"))
    assert m["factors"]["100"]["f"]["estimate"] == 0.0


@pytest.mark.parametrize("name", ["sliding", "replay", "scheduled"])
def test_other_baselines_run_and_label_their_mechanism(name: str) -> None:
    factory, budget, entry = make_baseline_factory(name, "mock/memory-reader", "equal-budget")
    assert entry["mechanism"] in ("in-context", "replayed-transcript", "persistent")
    assert "persistent memory" not in entry["label"] or "not persistent memory" in entry["label"]
    env = generate_memory_panel("m2", 1)
    res = asyncio.run(MemoryHarness(factory, budget, pre_exposure=0).run_arm(env.arms[0], 0, random.Random(0)))
    assert len(res.results) == 40


def test_a_fixed_background_budget_caps_the_scheduled_agent() -> None:
    # 2,000 background operations per corpus (equal budget) consolidate all 720 records at N = 300 but
    # only 2,000 of 2,400 at N = 1,000: the unconsolidated updates fall back to raw hits (stale versions).
    spec = RunSpec(panels=["m8"], agent="scheduled", model="mock/memory-reader", condition="equal-budget", seed=2,
                   trajectories=1, grid=[300, 1000], clean_pair=False, pre_exposure=0)
    m8 = run_memory(spec)["memory"]["m8"]
    cost = {n: m8["factors"][n]["costs_mean_per_trajectory"] for n in ("300", "1000")}
    assert cost["300"]["ingest.background_ops"] == 720 and cost["1000"]["ingest.background_ops"] == 2000
    assert m8["factors"]["300"]["u"]["estimate"] == 1.0 > m8["factors"]["1000"]["u"]["estimate"]


def test_bm25_ranks_the_exact_key_first_and_breaks_ties_by_insertion() -> None:
    from sitbench.chi import BM25Index

    idx = BM25Index()
    v1 = idx.add(REC)
    v2 = idx.add(REC.replace("r000007", "r000008").replace("version 1", "version 2").replace("QX-48211", "QX-11111"))
    idx.add(REC.replace("Vemorak Tuls", "Vemorak Tulz"))
    idx.add(REC.replace("locker code", "gate pin").replace("Vemorak Tuls", "Brazaith Paimai"))
    hits = idx.search("What is the locker code of Vemorak Tuls?", 3)
    assert [h for h, _ in hits[:2]] == [v1, v2] and hits[0][1] == hits[1][1]  # a tie: the earlier line first


def test_minilm_retrieval_counts_every_embedding() -> None:
    pytest.importorskip("onnxruntime")
    env = generate_memory_panel("m2", 3)
    factory, budget, entry = make_baseline_factory("rag", "mock/memory-reader", "equal-budget", retriever="minilm")
    assert entry["retriever"]["retriever"] == "minilm" and entry["retriever"]["dim"] == 384
    res = asyncio.run(MemoryHarness(factory, budget, pre_exposure=0).run_arm(env.arms[0], 0, random.Random(0)))
    # every history line embedded once, every question once
    assert res.costs_probe["embedding_calls"] + res.costs_ingest.get("embedding_calls", 0) == 40 + 40
    assert res.costs_probe["retrieval_calls"] == 40
