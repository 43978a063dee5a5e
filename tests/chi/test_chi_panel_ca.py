"""C1–C6 and A1–A6 through the one panel runner: hooks, missingness, records, baselines and the reference systems."""

from __future__ import annotations

import copy
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from sitbench.chi import load_manifest, load_observations, validate_records
from sitbench.chi._panel import REGISTERED
from sitbench.chi._panel_c_registry import PanelReference, run_reference
from sitbench.chi._panel_run import PanelSpec, parse_panel, run_panel
from sitbench.chi._panel_run import test_seed as derived_seed
from sitbench.cli import main

CA = [*REGISTERED["C"], *REGISTERED["A"]]


def _scores(summary: dict[str, Any], k: int = 0) -> dict[str, Any]:
    return {t.test_id: t for t in summary["observations"][k].task_results}


def test_c_and_a_are_registered_panel_tests() -> None:
    assert parse_panel("c") == list(REGISTERED["C"]) and parse_panel("a") == list(REGISTERED["A"])
    assert parse_panel("c1,a3") == ["C1", "A3"]
    assert len(parse_panel("all")) == 30


def test_a_run_of_c_and_a_writes_one_record_per_event_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "ca"
    s = run_panel(PanelSpec(tests=CA, agent="reference-good", trajectories=2, seed=5), out=out)
    obs = s["observations"][0]
    assert obs.capacities["C"] == 1.0 and obs.capacities["A"] == 1.0
    validate_records(load_manifest(out / "manifest.json"), load_observations(out / "observations.jsonl"),
                     "observations.jsonl")
    assert main(["chi", "score", str(out / "observations.jsonl"), "--manifest", str(out / "manifest.json")]) == 0
    probes = [json.loads(ln) for ln in (out / "probes.jsonl").read_text().splitlines()]
    assert {p["test"] for p in probes} == set(CA)
    c3 = [p for p in probes if p["test"] == "C3" and p["trajectory"] == 0]
    episodes = {p["episode"] for p in c3}
    assert len(episodes) == 30 and all(p["phase"] == "event" for p in c3)
    assert {p["kind"] for p in c3} == {"turn", "tick"}
    # A3's probes are asked on clones; every record names its episode's item hash
    assert any(p["kind"] == "clone" for p in probes if p["test"] == "A3")
    assert all(len(p["source_refs"]) == 1 and len(p["source_refs"][0]) == 64 for p in probes)
    # the kit's probe vector carries every C and A coordinate
    assert sum(k.startswith(("C", "A")) for k in s["manifest"].feature_schemas["probe"]) == \
        len(obs.features or [])


def test_same_seed_same_item_hashes() -> None:
    a = run_panel(PanelSpec(tests=["C2", "A4"], agent="stateless", trajectories=1, seed=9))
    b = run_panel(PanelSpec(tests=["C2", "A4"], agent="stateless", trajectories=1, seed=9))
    c = run_panel(PanelSpec(tests=["C2", "A4"], agent="stateless", trajectories=1, seed=10))
    assert a["manifest"].dataset_hashes == b["manifest"].dataset_hashes != c["manifest"].dataset_hashes


def test_an_agent_without_tick_has_c6_missing_not_failed_and_the_axis_has_no_capacity() -> None:
    s = run_panel(PanelSpec(tests=list(REGISTERED["C"]), agent="stateless", trajectories=1, seed=2))
    res = _scores(s)
    assert res["C6"].score is None and "tick" in (res["C6"].missing_reason or "")
    assert "missing, not failed" in (res["C6"].missing_reason or "")
    assert all(res[t].score is not None for t in ("C1", "C2", "C3", "C4", "C5"))
    assert s["observations"][0].capacities["C"] is None
    # the scheduled baseline has a tick hook: C6 runs (its ticks do maintenance, not work: no progress)
    sched = _scores(run_panel(PanelSpec(tests=["C6"], agent="scheduled", trajectories=1, seed=2)))
    assert sched["C6"].score == 0.0 and sched["C6"].total == 20


def test_the_baselines_read_c_and_a_events_as_the_stateless_reference() -> None:
    """A memory baseline keeps record lines only, so over mock/panel-solver it plays each C/A event as a fresh
    good policy: exactly the stateless-prompt baseline over the good reference (``StatelessPolicy``)."""
    tests = [t for t in CA if t != "C6"]
    s = run_panel(PanelSpec(tests=tests, agent="stateless", trajectories=1, seed=4))
    res = _scores(s)
    for t in tests:
        _records, expected, _report = run_reference(t, derived_seed(4, 0, t), "stateless")
        assert res[t].score == pytest.approx(expected.capacity), t
    assert res["C2"].score == 1.0 and res["C3"].score == 0.0  # the prompt shows C2's world, not C3's hypothesis


class _Garbles:
    """A user agent that answers C4's task in prose: a malformed reply, a task failure."""

    async def ingest(self, s: Any) -> None: ...

    async def respond(self, t: Any) -> str:
        return "I would call the first tool and then open the box it names."

    async def end_session(self) -> None: ...


def test_the_first_malformed_reply_is_reported_with_its_expected_format(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.chi import _panel_run

    monkeypatch.setattr(_panel_run, "_factory", lambda spec, ep, cand: ((lambda: _Garbles()), {"label": "garbles"}))
    said: list[str] = []
    s = run_panel(PanelSpec(tests=["C4", "C5"], agent="garbles", model="", trajectories=1, seed=1),
                  progress=said.append)
    notices = [m for m in said if m.startswith("first malformed reply")]
    assert len(notices) == 1  # the first one of the run, once
    assert "C4 episode" in notices[0] and "not one JSON object" in notices[0]
    assert 'Expected: one JSON object, either {"call": <tool name>}' in notices[0]
    res = _scores(s)
    assert res["C4"].score == 0.0 and res["C4"].total == 20  # task failures, none dropped
    assert s["panel"]["tests"]["C4"]["features"][0]["invalid_episodes"] == 20  # the capacity arm's episodes


class _Handler(BaseHTTPRequestHandler):
    """An HTTP agent whose states are good C/A reference policies; ``/tick`` answers with the tick's reply."""

    hooks: ClassVar[list[str]] = []
    states: ClassVar[dict[str, PanelReference]] = {}
    ticks: ClassVar[list[dict[str, Any]]] = []
    lock: ClassVar[threading.Lock] = threading.Lock()

    def _send(self, data: Any) -> None:
        raw = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def do_GET(self) -> None:
        self._send({"name": "http-reference", "supports_fork": True, "hooks": self.hooks})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        with self.lock:
            st = self.states.setdefault(body["state"], PanelReference("good"))
            out: dict[str, Any] = {}
            if self.path == "/fork":
                self.states[body["state"]] = copy.deepcopy(self.states[body["source"]])
            elif self.path == "/end_session":
                st.end_session()
            elif self.path == "/respond":
                utterance = body["turn"]["utterance"]
                out = {"text": st.respond(utterance) if utterance[:1].isupper() and "\n{" in utterance else "{}"}
            elif self.path == "/tick":
                self.ticks.append(body)
                out = {"text": st.tick(body.get("observation") or "", body.get("budget_ops") or 0)}
        self._send(out)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_agent() -> Iterator[type[_Handler]]:
    _Handler.states.clear()
    _Handler.ticks.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    try:
        yield _Handler
    finally:
        server.shutdown()
        server.server_close()


def test_http_tick_replies_are_read_and_carry_the_channel(http_agent: type[_Handler]) -> None:
    http_agent.hooks = ["tick"]
    s = run_panel(PanelSpec(tests=["C1", "C3", "C6"], agent=http_agent.url, trajectories=1, seed=3))  # type: ignore[attr-defined]
    res = _scores(s)
    assert res["C1"].score == 1.0 and res["C3"].score == 1.0 and res["C6"].score == 1.0
    channel = [t for t in http_agent.ticks if '"channel":"' in (t.get("observation") or "")]
    assert channel and all(t["observation"].startswith("TICK\n") for t in channel)
    assert s["panel"]["tests"]["C6"]["features"][0]["delivery"]["ticks_by_hook"] == 200


def test_http_without_tick_has_c6_missing_and_c3_ticks_as_turns(http_agent: type[_Handler]) -> None:
    http_agent.hooks = []
    s = run_panel(PanelSpec(tests=["C3", "C6"], agent=http_agent.url, trajectories=1, seed=3))  # type: ignore[attr-defined]
    res = _scores(s)
    assert res["C6"].score is None and "tick" in (res["C6"].missing_reason or "")
    assert res["C3"].score == 1.0 and not http_agent.ticks
    assert s["panel"]["tests"]["C3"]["features"][0]["delivery"]["ticks_as_turns"] == 240


def test_all_thirty_tests_good_above_poor_and_five_axes(tmp_path: Path) -> None:
    from sitbench.chi._panel_report import PANEL_DEMO_TESTS, panel_demo_failures, panel_demo_specs, panel_demo_table

    specs = panel_demo_specs()
    for spec in specs.values():
        spec.trajectories = 1
    sections = {name: run_panel(spec, out=tmp_path / name)["panel"] for name, spec in specs.items()}
    assert len(PANEL_DEMO_TESTS) == 30 and set(sections["good"]["tests"]) == set(PANEL_DEMO_TESTS)
    assert panel_demo_failures(sections) == []
    for name in sections:
        assert all(sections[name]["capacities"][a]["estimate"] is not None for a in "RMCAI"), name
    assert "C=1.000" in panel_demo_table(sections)
    page = (tmp_path / "good" / "panel.html").read_text()
    assert "Missing registered tests (0)" in page


def test_i3_and_the_a_tests_share_one_valence_induction() -> None:
    """I3's induction records and the A tests' round-result turns are the same results: valence only in the verb,
    the same templates' verbs and the same magnitudes in every condition."""
    import re

    from sitbench.chi._memory_env import parse_record
    from sitbench.chi._panel_a import ValenceShift
    from sitbench.chi._panel_c import Delivery, header_of, payload_of
    from sitbench.chi._panel_common import MAGNITUDES, RESULT_VERBS, induced_valence
    from sitbench.chi._panel_i import I3StateEvidence

    instance = I3StateEvidence().generate(11)
    magnitudes = {}
    for ep in instance.episodes:
        recs = [parse_record(ln) for ln in ep.records]
        assert all(r is not None for r in recs)
        verbs = {r.attribute.split(" ", 1)[1] for r in recs if r is not None and r.attribute}
        assert verbs <= set(RESULT_VERBS[ep.name]) and len(verbs) == 3
        magnitudes[ep.name] = sorted(int(r.value) for r in recs if r is not None and r.value)
        assert induced_valence([(r.attribute or "", r.entity or "", r.value or "") for r in recs if r]) == ep.name
    assert magnitudes["positive"] == magnitudes["negative"] == magnitudes["neutral"]  # equal information
    assert set(magnitudes["neutral"]) == set(MAGNITUDES)

    test = ValenceShift()
    for ep in test.generate(11)[:5]:
        session = test.session(ep)
        ev = session.next_event()
        while ev is not None:
            if header_of(ev.text) == "ROUND RESULT":
                words = set(re.findall(r"[a-z]+", payload_of(ev.text)["result"].lower()))
                assert len(words & {v for vs in RESULT_VERBS.values() for v in vs}) == 1
                assert int(re.findall(r"\d+", payload_of(ev.text)["result"])[0]) in MAGNITUDES
            session.send('{"ack": true}' if header_of(ev.text) != "CHOICE" else '{"choice": "A"}', Delivery.HOOK)
            ev = session.next_event()


def test_an_unreadable_r_reply_is_reported_with_the_fields_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from sitbench.chi import _panel_run

    monkeypatch.setattr(_panel_run, "_factory", lambda spec, ep, cand: ((lambda: _Garbles()), {"label": "garbles"}))
    said: list[str] = []
    run_panel(PanelSpec(tests=["R4"], agent="garbles", model="", trajectories=1, seed=1), progress=said.append)
    (notice,) = [m for m in said if m.startswith("first malformed reply")]
    assert notice.startswith("first malformed reply of the run: R4 episode")
    assert "Expected: one JSON object with the fields abstain" in notice


def test_cli_runs_c_and_a_and_names_what_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c"
    assert main(["chi", "run", "--panel", "c", "--agent", "stateless", "--trajectories", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "C: missing" in text and "C6 (C): missing  missing: the agent lacks the hook(s) tick" in text
    assert "evidence class: capacity-only" in text and "CHI: null" in text
    assert main(["chi", "score", str(out / "observations.jsonl"), "--manifest", str(out / "manifest.json")]) == 0
    capsys.readouterr()
    assert main(["chi", "run", "--help"]) == 0
    assert "reference-good" in capsys.readouterr().out


def test_each_a_choice_record_carries_its_own_outcome(tmp_path: Path) -> None:
    """Every A1 choice record is graded on its own, and the grade is the normative answer recomputed from the text."""
    import re

    from sitbench.chi._panel_c import payload_of

    def value(option: str) -> float:
        nums = [int(n) for n in re.findall(r"\d+", option)]
        return nums[0] if "for certain" in option else nums[0] / nums[1] * nums[2]  # "P in 100 chance of M"

    s = run_panel(PanelSpec(tests=["A1"], agent="reference-poor", trajectories=1, seed=5), out=tmp_path)
    probes = [json.loads(ln) for ln in (tmp_path / "probes.jsonl").read_text().splitlines()]
    choices = [p for p in probes if p["utterance"].startswith("CHOICE")]
    assert len(choices) == 5 * 40  # five arms, two blocks of 20
    for p in choices:
        v = payload_of(p["utterance"])
        best = "A" if value(v["A"]) > value(v["B"]) else "B"
        assert p["outcome"] == ("correct" if p["parsed"]["choice"] == best else "wrong")
    assert {p["outcome"] for p in choices} == {"correct", "wrong"}  # the valence mimic misses some, not all
    res = _scores(s)["A1"]
    assert res.correct is not None and res.total is not None and res.correct < res.total
