"""``sitbench chi memory``: generate the M1–M8 panel, run agents through it, report the curves."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import click

from sitbench._options import MAX_RESAMPLES, SEED, Bounded
from sitbench.errors import InputError

_PANELS = ("m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8")
_BASELINES = ("stateless", "sliding", "replay", "rag", "versioned", "scheduled", "oracle", "mimic")
_CONDITIONS = ("equal-budget", "best-effort")
_MECHANISMS = ("persistent", "in-context", "replayed-transcript", "none")


def _panels(value: str) -> list[str]:
    items = [p.strip().lower() for p in value.split(",") if p.strip()]
    if items == ["all"]:
        return list(_PANELS)
    bad = [p for p in items if p not in _PANELS]
    if not items or bad:
        raise InputError(f"--panel {value!r}: use m1 … m8, a comma-separated list of them, or all")
    return list(dict.fromkeys(items))


def _grid(value: str | None) -> list[int]:
    from sitbench.chi import M8_GRID

    if value is None:
        return list(M8_GRID)
    try:
        grid = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--grid {value!r}: give loads as comma-separated whole numbers, e.g. 100,300,1000") from None
    if not grid or any(n < 100 or n > 100000 for n in grid) or grid != sorted(set(grid)):
        raise InputError(f"--grid {value!r}: loads must be strictly increasing whole numbers in 100 … 100000 "
                         "(a changed grid is a new panel id)")
    return grid


def _say(message: str) -> None:
    click.echo(message, err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def memory() -> None:
    """The memory axis: M1–M8 item generators, machine baselines, the EIMC sweep.

    The panel, baselines and EIMC are those of the CHI/CHIS Specification v0.1
    (§3, §6, §11); docs/concepts.md defines every symbol, docs/chi-memory.md the
    protocol.

    \b
    Baselines (--agent): stateless, sliding, replay, rag, versioned, scheduled,
    oracle, mimic; or any agent of `sitbench run --agent` (package.module:factory,
    path/to/file.py:factory, http://HOST:PORT). Models (--model): mock/memory-reader
    (a deterministic literal reader of the prompt), local/smollm2, openai/…

    \b
    Examples:
      sitbench chi memory generate --panel m8 --seed 1 --out items/
      sitbench chi memory run --panel m8 --agent versioned --model mock/memory-reader --seed 1 --out runs/versioned
      sitbench chi memory sweep --panel m8 --model mock/memory-reader --seed 1 --out runs/m8
      sitbench chi memory report runs/m8/* --out memory.html
      sitbench chi memory demo               # offline: a good and a poor reference system

    Everything is labelled capacity-only: machine baselines, no human calibration, CHI null.
    """


@memory.command()
@click.option("--panel", "panel", required=True, help="m1 … m8, a comma-separated list, or all.")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Generator seed.")
@click.option("--grid", default=None, help="M8 loads (default 100,300,1000,3000,10000).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write items.jsonl, probes.jsonl (with answer keys) and generator.json here.")
@click.option("--no-tokens", is_flag=True, help="Skip the WordPiece token counts (faster).")
@click.option("--json", "as_json", is_flag=True, help="Print the generator report as JSON.")
def generate(panel: str, seed: int, grid: str | None, out: Path | None, no_tokens: bool, as_json: bool) -> None:
    """Generate panel instances and print the §3 generator report.

    The report gives the generator hash, value entropy, byte and token length
    distributions, total stored objects, bytes and tokens, key and version
    counts, redundancy and relationships, per arm (M8: per load and clean twin).

    \b
    Examples:
      sitbench chi memory generate --panel m8 --seed 1
      sitbench chi memory generate --panel all --seed 1 --out items/ --json
    """
    from sitbench.chi import environment_report
    from sitbench.chi import generate as gen

    counter = None
    if not no_tokens:
        from sitbench.configs import wordpiece_counter

        counter = wordpiece_counter()
    reports = {}
    for p in _panels(panel):
        env = gen(p, seed, **({"grid": _grid(grid)} if p == "m8" else {}))
        reports[p] = environment_report(env, counter)
        if out is not None:
            from sitbench.stores import write_lines, write_text_atomic

            d = out / p
            write_lines(d / "items.jsonl", (json.dumps({"arm": arm.name, **r.to_json()}, ensure_ascii=False) + "\n"
                                            for arm in env.arms for r in arm.records))
            write_lines(d / "probes.jsonl", (json.dumps({"arm": arm.name, **pr.to_json()}, ensure_ascii=False,
                                                        default=str) + "\n"
                                             for arm in env.arms for pr in arm.probes))
            write_text_atomic(d / "generator.json", json.dumps(reports[p], indent=2, default=str) + "\n")
    if as_json:
        click.echo(json.dumps(reports, indent=2, default=str))
        return
    for p, rep in reports.items():
        click.echo(f"{p.upper()}  generator {rep['generator_sha256'][:16]}  items {rep['items_sha256'][:16]}  "
                   f"answer key {rep['answer_key_sha256'][:16]}")
        for name, st in rep["arms"].items():
            tok = st.get("token_length", {})
            click.echo(f"  {name:<14} objects {st['stored_objects']:>6}  bytes {st['bytes']:>8}  tokens "
                       f"{st.get('tokens', '-'):>7}  keys {st['keys']:>6}  versions {st['versions']:>6}  "
                       f"bytes/record p50 {st['byte_length'].get('p50', 0):.0f}  tokens/record p50 "
                       f"{tok.get('p50', 0):.0f}  value entropy {st['value_entropy_bits']['per_value_generator']:.1f} bits"
                       f"  probes {st['probes']}")
        t = rep["totals"]
        click.echo(f"  total: {t['stored_objects']} stored objects, {t['bytes']} bytes, {t['tokens']} tokens")
    if out is not None:
        click.echo(f"wrote {out}/<panel>/items.jsonl, probes.jsonl, generator.json")


def _run_options(f: Any) -> Any:
    opts = [
        click.option("--panel", "panel", default="m8", show_default=True, help="m1 … m8, a comma-separated list, or all."),
        click.option("--model", default="", help="Candidate model of the baselines (mock/memory-reader, local/smollm2…)."),
        click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of trajectories and bootstrap."),
        click.option("--trajectories", type=Bounded(int, 1, 200), default=5, show_default=True,
                     help="Independent trajectories (corpus draws); the bootstrap resamples them."),
        click.option("--retriever", type=click.Choice(["bm25", "minilm"]), default="bm25", show_default=True,
                     help="Retriever of rag, versioned and scheduled (minilm embeds every line: ~140 lines/s here)."),
        click.option("--grid", default=None, help="M8 loads (default 100,300,1000,3000,10000)."),
        click.option("--no-clean-pair", is_flag=True, help="Skip M8's byte-matched clean twins (no clean_i)."),
        click.option("--deadline", type=Bounded(float, 0, 3600, low_open=True), default=60.0, show_default=True,
                     help="Response deadline per probe, seconds (a later reply is a timeout: invalid)."),
        click.option("--resamples", type=Bounded(int, 2000, MAX_RESAMPLES), default=2000, show_default=True,
                     help="Whole-cluster bootstrap resamples."),
        click.option("--context-window", type=Bounded(int, 64, 10_000_000), default=None,
                     help="Override the model's context window (tokens) the budgets are sized to."),
        click.option("--pre-exposure", type=Bounded(int, 0, 10000), default=10, show_default=True,
                     help="Probes per arm asked on a fresh clone before any history (0: none)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


@memory.command()
@_run_options
@click.option("--agent", required=True, help="A baseline name or an agent spec (package.module:factory, file.py:factory, URL).")
@click.option("--condition", type=click.Choice(_CONDITIONS), default="equal-budget", show_default=True,
              help="Budget condition (reported separately).")
@click.option("--agent-option", "agent_options", multiple=True, metavar="KEY=VALUE",
              help="Keyword argument for a user agent's factory (repeatable).")
@click.option("--mechanism", type=click.Choice(_MECHANISMS), default=None,
              help="A user agent's declared memory mechanism (default persistent).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Run folder.")
@click.option("--json", "as_json", is_flag=True, help="Print the memory section as JSON.")
def run(panel: str, model: str, seed: int, trajectories: int, retriever: str, grid: str | None, no_clean_pair: bool,
        deadline: float, resamples: int, context_window: int | None, pre_exposure: int, agent: str, condition: str,
        agent_options: tuple[str, ...], mechanism: str | None, out: Path | None, as_json: bool) -> None:
    """Run one agent through the panel and score it into the CHI kit.

    Writes (with --out) manifest.json and observations.jsonl (readable by
    `sitbench chi score`), probes.jsonl (every question, reply, parse and outcome),
    generator.json, report.json, memory.json and report.txt.

    \b
    Examples:
      sitbench chi memory run --panel m8 --agent rag --model mock/memory-reader --seed 1 --out runs/rag
      sitbench chi memory run --panel m1,m2,m3 --agent versioned --model local/smollm2 --trajectories 1 --out runs/smol
    """
    from sitbench.chi import RunSpec, render_memory_text, run_memory
    from sitbench.runs import parse_agent_options

    if agent not in _BASELINES and ":" not in agent and not agent.startswith(("http://", "https://")):
        raise InputError(f"--agent {agent!r}: use one of {', '.join(_BASELINES)} or an agent spec "
                         "(package.module:factory, path/to/file.py:factory, http://HOST:PORT)")
    if agent in _BASELINES and agent != "mimic" and not model:
        raise InputError(f"--agent {agent}: needs --model (e.g. --model mock/memory-reader or local/smollm2)")
    spec = RunSpec(panels=_panels(panel), agent=agent, model=model, condition=condition, seed=seed,
                   trajectories=trajectories, retriever=retriever, grid=_grid(grid), clean_pair=not no_clean_pair,
                   deadline_s=deadline, resamples=resamples, pre_exposure=pre_exposure,
                   agent_options=parse_agent_options(agent_options), mechanism=mechanism, context_window=context_window)
    summary = run_memory(spec, out, progress=_say)
    run_view = {"spec": summary["spec"], "entry": summary["entry"], "memory": summary["memory"],
                "wall_s": summary["wall_s"]}
    if as_json:
        click.echo(json.dumps(run_view["memory"], indent=2, default=str))
    else:
        click.echo(render_memory_text(run_view))
    if out is not None:
        _say(f"wrote {out}/manifest.json, observations.jsonl, probes.jsonl, report.txt; next: "
             f"sitbench chi memory report {out} --out memory.html")
    _report_format_errors(summary.get("format_errors", {}))
    _report_malformed(agent, summary["malformed_replies"])


def _report_format_errors(errors: dict[str, int]) -> None:
    """The replies the rubric could not read, counted by reason (the first five), and the format it reads."""
    if not errors:
        return
    from sitbench.chi import REPLY_FORMAT

    listed = ", ".join(f"{reason} ×{n}" for reason, n in list(errors.items())[:5])
    _say(f"warning: {sum(errors.values())} replies were not in the reply format and scored invalid ({listed}); "
         f"a reply is {REPLY_FORMAT} (README: \"Replies, battery by battery\")")


#: Exit code of a run in which the agent returned replies in no accepted form (as `sitbench run`'s dropped trials).
EXIT_MALFORMED_REPLIES = 4


def _report_malformed(agent: str, malformed: list[dict[str, Any]]) -> None:
    """One line per kind of malformed reply naming the agent, the first probes and the accepted forms; exit 4."""
    if not malformed:
        return
    from collections import defaultdict

    from sitbench.agents import ACCEPTED_REPLY_FORMS

    by_reason: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for m in malformed:
        by_reason[str(m["reason"]).split("; accepted replies:")[0]].append(m)
    for reason, probes in by_reason.items():
        first = probes[0]
        named = ", ".join(p["probe_id"] for p in probes[:3]) + (", …" if len(probes) > 3 else "")
        _say(f"error: agent {agent!r}: {reason} for {len(probes)} probe(s) ({named}; first in {first['panel']}, "
             f"arm {first['arm']}, trajectory {first['trajectory'] + 1}); accepted replies: {ACCEPTED_REPLY_FORMS}")
    _say(f"error: {len(malformed)} replies in no accepted form were scored invalid (each is in probes.jsonl with "
         f"its reason); fix the agent's respond() and run again (exit code {EXIT_MALFORMED_REPLIES})")
    raise click.exceptions.Exit(EXIT_MALFORMED_REPLIES)


@memory.command()
@_run_options
@click.option("--agents", default="all", show_default=True, help="Comma-separated baselines, or all.")
@click.option("--conditions", default="both", show_default=True, help="equal-budget, best-effort or both.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder: one run folder per baseline and condition, plus report.html and report.txt.")
def sweep(panel: str, model: str, seed: int, trajectories: int, retriever: str, grid: str | None, no_clean_pair: bool,
          deadline: float, resamples: int, context_window: int | None, pre_exposure: int, agents: str, conditions: str,
          out: Path) -> None:
    """Every baseline under every condition over the same seeds, then one report.

    Equivalent to one `sitbench chi memory run` per baseline and condition with
    the same options (same corpora: trajectory seeds derive from --seed), plus
    `sitbench chi memory report` over the results. Before it starts it prints
    the planned work (runs, history turns, probes, agent calls) and an estimate
    at the reference rate; after each run, the time left at the measured rate.

    \b
    Examples:
      sitbench chi memory sweep --panel m8 --model mock/memory-reader --seed 1 --out runs/m8
    """
    from sitbench.chi import (
        RunSpec,
        load_run,
        plan_sweep,
        plan_text,
        remaining_estimate,
        render_html,
        render_memory_text,
        run_memory,
    )

    names = list(_BASELINES) if agents == "all" else [a.strip() for a in agents.split(",") if a.strip()]
    bad = [a for a in names if a not in _BASELINES]
    if bad or not names:
        raise InputError(f"--agents {agents!r}: use all or a comma-separated list of {', '.join(_BASELINES)}")
    conds = list(_CONDITIONS) if conditions == "both" else [c.strip() for c in conditions.split(",") if c.strip()]
    if not conds or any(c not in _CONDITIONS for c in conds):
        raise InputError(f"--conditions {conditions!r}: use equal-budget, best-effort or both")
    if not model and any(a != "mimic" for a in names):
        raise InputError("--model: the baselines need a model (e.g. --model mock/memory-reader)")
    folders = []
    timing = []
    specs = [RunSpec(panels=_panels(panel), agent=a, model=model, condition=cond, seed=seed, trajectories=trajectories,
                     retriever=retriever, grid=_grid(grid), clean_pair=not no_clean_pair, deadline_s=deadline,
                     resamples=resamples, pre_exposure=pre_exposure, context_window=context_window)
             for cond in conds for a in names]
    _say(plan_text(plan_sweep(specs[0], len(specs)), model))
    for spec in specs:
        t0 = time.perf_counter()
        folder = out / f"{spec.agent}-{spec.condition}"
        run_memory(spec, folder, progress=_say)
        folders.append(folder)
        timing.append((spec.agent, spec.condition, time.perf_counter() - t0))
        _say(f"{spec.agent} {spec.condition}: {timing[-1][2]:.1f} s; "
             + remaining_estimate([t for *_, t in timing], len(specs)))
    from sitbench.stores import write_text_atomic

    runs = [load_run(f) for f in folders]
    write_text_atomic(out / "report.html", render_html(runs))
    write_text_atomic(out / "report.txt", "\n\n".join(render_memory_text(r) for r in runs) + "\n")
    click.echo(_summary_table(runs))
    click.echo(f"wrote {out}/report.html and report.txt ({sum(t for *_, t in timing):.0f} s)")


def _agent_label(run: dict[str, Any]) -> str:
    """A user agent by the name it gives (its describe() or class) rather than its spec path; a baseline by its
    short name."""
    entry = run.get("entry") or {}
    if run["spec"]["agent"] in _BASELINES or not entry.get("label"):
        return str(run["spec"]["agent"])
    return str(entry["label"])


def _summary_table(runs: list[dict[str, Any]]) -> str:
    if not any(r["memory"].get("m8") for r in runs):
        tests = sorted({p for r in runs for p in r["memory"]["panels"]})
        out = [f"{'agent':<10} {'condition':<13} " + " ".join(f"{t.upper():>6}" for t in tests)]
        for r in runs:
            ps = r["memory"]["panels"]
            cells = []
            for t in tests:
                est = ps.get(t, {}).get("score", {}).get("estimate")
                cells.append(f"{'-' if est is None else format(est, '.3f'):>6}")
            out.append(f"{_agent_label(r):<10} {r['spec']['condition']:<13} " + " ".join(cells))
        return "\n".join(out)
    lines = [f"{'agent':<10} {'condition':<13} " + " ".join(f"{'Q_M@' + str(n):>11}" for n in
                                                            (runs[0]["memory"].get("m8") or {}).get("grid", []))
             + f" {'mean Q_M':>9} {'EIMC':>6} status"]
    for r in runs:
        m8 = r["memory"].get("m8")
        if not m8:
            continue
        qs = " ".join(f"{(m8['q_m'][str(n)] if m8['q_m'][str(n)] is not None else float('nan')):>11.3f}" for n in m8["grid"])
        lines.append(f"{_agent_label(r):<10} {r['spec']['condition']:<13} {qs} "
                     f"{(m8['mean_q_m'] if m8['mean_q_m'] is not None else float('nan')):>9.3f} "
                     f"{'null' if m8['eimc'] is None else m8['eimc']!s:>6} {m8['status']}")
    return "\n".join(lines)


@memory.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help="HTML file to write.")
def report(runs: tuple[Path, ...], out: Path) -> None:
    """One HTML page with the Memory Capacity Curves of several run folders.

    \b
    Examples:
      sitbench chi memory report runs/m8/* --out memory.html
    """
    from sitbench.chi import load_run, render_html

    loaded = [load_run(p) for p in runs if not (p.is_file() and p.suffix in (".html", ".txt"))]
    if not loaded:
        raise InputError("RUNS: give run folders written by 'sitbench chi memory run --out'")
    from sitbench.stores import write_text_atomic

    write_text_atomic(out, render_html(loaded))
    click.echo(_summary_table(loaded))
    click.echo(f"wrote {out}")


@memory.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the two run folders and report.html [default: a new temporary folder].")
def demo(out: Path | None) -> None:
    """Offline: a good and a poor reference system on the whole M1–M8 panel, in seconds.

    versioned (one resolved record per key) and rag (append-only retrieval)
    over the literal reader mock/memory-reader, M8 loads 100, 300 and 1,000,
    two trajectories, seed 1; no key, no server. Capacity-only, CHI null.

    \b
    Examples:
      sitbench chi memory demo
      sitbench chi memory demo --out memory-demo/
    """
    import tempfile

    from sitbench.chi import (
        MEMORY_DEMO_GRID,
        MEMORY_DEMO_SYSTEMS,
        MEMORY_DEMO_TRAJECTORIES,
        load_run,
        memory_demo_failures,
        memory_demo_specs,
        memory_demo_table,
        render_html,
        run_memory,
    )
    from sitbench.stores import write_text_atomic

    started = time.perf_counter()
    root = out or Path(tempfile.mkdtemp(prefix="sitbench-memory-demo-"))
    folders = []
    for spec in memory_demo_specs():
        _say(f"running {spec.agent} ({MEMORY_DEMO_SYSTEMS[spec.agent].split(':')[0]}): panels M1-M8, M8 loads "
             f"{', '.join(map(str, MEMORY_DEMO_GRID))}, {MEMORY_DEMO_TRAJECTORIES} trajectories")
        folders.append(root / spec.agent)
        run_memory(spec, folders[-1])
    runs = [load_run(f) for f in folders]
    write_text_atomic(root / "report.html", render_html(runs))
    for name, what in MEMORY_DEMO_SYSTEMS.items():
        click.echo(f"{name}: {what}")
    click.echo("")
    click.echo(memory_demo_table(runs))
    click.echo("")
    for r in runs:
        click.echo(f"why {r['spec']['agent']}'s M8 u and s probes failed: {memory_demo_failures(r)}")
    click.echo(f"wrote {root}/versioned, {root}/rag and {root}/report.html in {time.perf_counter() - started:.1f} s "
               "(measured); capacity-only: machine baselines, no human calibration, CHI null")


@memory.command()
@click.option("--model", default="mock/memory-reader", show_default=True, help="Model the budgets are sized to.")
def baselines(model: str) -> None:
    """List the §6 machine baselines, their mechanisms and the registered budgets.

    \b
    Examples:
      sitbench chi memory baselines
    """
    from sitbench.candidates import get_candidate
    from sitbench.chi import BASELINES, LABELS, MECHANISMS, budget_for, model_context_window

    window = model_context_window(get_candidate(model))
    for name in BASELINES:
        click.echo(f"{name:<10} [{MECHANISMS[name]}] {LABELS[name]}")
    for cond in _CONDITIONS:
        click.echo(f"{cond}: " + json.dumps(budget_for(cond, window).to_json()))

