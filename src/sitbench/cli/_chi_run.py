"""``sitbench chi run``: any subset of the 30-test CHI panel through one agent, scored into the kit."""

from __future__ import annotations

import json
from pathlib import Path

import click

from sitbench._options import MAX_RESAMPLES, SEED, Bounded
from sitbench.errors import InputError

_BASELINES = ("stateless", "sliding", "replay", "rag", "versioned", "scheduled", "oracle", "mimic", "reference-good",
              "reference-poor")
_CONDITIONS = ("equal-budget", "best-effort")


def _say(message: str) -> None:
    click.echo(message, err=True)


@click.command("run")
@click.option("--panel", required=True,
              help="Test ids (r1,c3,a5,i4,m3,…), axis letters (r, m, c, a, i), or all (all 30 registered tests).")
@click.option("--agent", required=True,
              help="A §6 baseline name, a reference system (reference-good, reference-poor), or an agent spec "
                   "(package.module:factory, file.py:factory, http://HOST:PORT).")
@click.option("--model", default="mock/panel-solver", show_default=True,
              help="The baselines' model: mock/panel-solver (good reference), mock/panel-naive (poor reference), "
                   "mock/memory-reader (memory tests), local/smollm2, … (a reference system has its own).")
@click.option("--condition", type=click.Choice(_CONDITIONS), default="equal-budget", show_default=True,
              help="Budget condition of the baselines (reported separately).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of every generator and of the bootstrap.")
@click.option("--trajectories", type=Bounded(int, 1, 1000), default=2, show_default=True,
              help="Independent trajectories (item draws): the bootstrap's clusters (one gives null intervals).")
@click.option("--deadline", type=Bounded(float, 0, 3600, low_open=True), default=60.0, show_default=True,
              help="Response deadline per call, seconds (a later reply is a timeout: a task failure).")
@click.option("--resamples", type=Bounded(int, 2000, MAX_RESAMPLES), default=2000, show_default=True,
              help="Whole-cluster bootstrap resamples.")
@click.option("--agent-option", "agent_options", multiple=True, metavar="KEY=VALUE",
              help="Keyword argument for a user agent's factory (repeatable).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Run folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the panel section (profile, tests, intervals) as JSON.")
def run(panel: str, agent: str, model: str, condition: str, seed: int, trajectories: int, deadline: float,
        resamples: int, agent_options: tuple[str, ...], out: Path | None, as_json: bool) -> None:
    """Run one agent through registered tests of the CHI panel (§5, §11).

    Every test has a seeded generator (same seed, same item hashes), an
    exact-answer rubric and the §5 protocol through the agent hooks (ingest,
    respond, end_session, fork, tick, erase, inject_fault/repair_fault). The
    C and A tests are interactive episodes: every turn and scheduler tick goes
    through the same hooks and the reply is read exactly; C6 needs tick. A
    registered test that is not run or needs a hook the agent lacks is
    missing, never failed; an axis missing a registered test has no capacity
    (never renormalised). The first malformed reply of a run is reported with
    its expected format. Evidence class capacity-only; CHI null.

    Writes (with --out) manifest.json and observations.jsonl (readable by
    `sitbench chi score`), probes.jsonl (every question, reply, parse and
    outcome), generator.json, panel.json, report.json, report.txt and the
    HTML page panel.html.

    \b
    Examples:
      sitbench chi run --panel r --agent sliding --seed 1 --out runs/r-sliding
      sitbench chi run --panel all --agent scheduled --model mock/panel-solver
      sitbench chi run --panel c,a --agent reference-good --out runs/ca
      sitbench chi run --panel r1,r4,i1 --agent stateless --model mock/panel-naive
      sitbench chi run --panel all --agent my_agent.py:make_agent --out runs/mine
      sitbench chi run --panel r2,r3 --agent versioned --model local/smollm2 --trajectories 1
    """
    from sitbench.chi import PanelSpec, parse_panel, render_panel_text, run_panel
    from sitbench.runs import parse_agent_options

    if agent not in _BASELINES and ":" not in agent and not agent.startswith(("http://", "https://")):
        raise InputError(f"--agent {agent!r}: use one of {', '.join(_BASELINES)} or an agent spec "
                         "(package.module:factory, path/to/file.py:factory, http://HOST:PORT)")
    spec = PanelSpec(tests=parse_panel(panel), agent=agent, model=model, condition=condition, seed=seed,
                     trajectories=trajectories, deadline_s=deadline, resamples=resamples,
                     agent_options=parse_agent_options(agent_options))
    summary = run_panel(spec, out, progress=_say)
    if as_json:
        click.echo(json.dumps(summary["panel"], indent=2, default=str))
    else:
        click.echo(render_panel_text(summary["panel"]))
    if out is not None:
        _say(f"wrote {out}/manifest.json, observations.jsonl, probes.jsonl, panel.json, report.txt, panel.html; next: "
             f"sitbench chi score {out}/observations.jsonl --manifest {out}/manifest.json")


@click.command("panel-demo")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write each system's run folder (good/, poor/) here.")
@click.option("--json", "as_json", is_flag=True, help="Print both panel sections as JSON.")
def panel_demo(out: Path | None, as_json: bool) -> None:
    """Offline demo: a good and a poor reference system on all 30 registered tests.

    Good (reference-good): full-history replay (best-effort budget) over
    mock/panel-solver for R, M and I, and the good C/A reference policies.
    Poor (reference-poor): a sliding window (equal budget) over
    mock/panel-naive, the shortcut each test is built to catch, and the naive
    C/A policies each control stops. Both have every hook (fork, tick, erase,
    inject_fault, repair_fault), so all five axes get a capacity. Two
    trajectories each, no key, no server, under a minute. M8 runs on the
    panel grid (100, 300); its registered sweep is `sitbench chi memory demo`.
    Capacity-only; CHI null.

    \b
    Examples:
      sitbench chi panel-demo
      sitbench chi panel-demo --out demo/panel
    """
    import time

    from sitbench.chi import PANEL_DEMO_TESTS, panel_demo_failures, panel_demo_specs, panel_demo_table, run_panel

    started = time.perf_counter()
    sections = {name: run_panel(spec, None if out is None else out / name, progress=None)["panel"]
                for name, spec in panel_demo_specs().items()}
    if as_json:
        click.echo(json.dumps(sections, indent=2, default=str))
        return
    click.echo(panel_demo_table(sections))
    failures = panel_demo_failures(sections)
    n = len(PANEL_DEMO_TESTS)
    click.echo(f"good above poor on {n - len(failures)} of {n} tests" + (f" (not on {', '.join(failures)})"
                                                                        if failures else ""))
    click.echo(f"demo took {time.perf_counter() - started:.1f} s")
