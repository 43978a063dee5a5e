"""``sitbench chi``: score CHI/CHIS data from the command line."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import click

from sitbench._options import MAX_RESAMPLES, SEED, Bounded
from sitbench.chi import (
    AXES,
    DEFAULT_TAU,
    MIN_RESAMPLES,
    MemoryPoint,
    axis_similarity,
    build_report,
    chi_score,
    demo_manifest,
    demo_observations,
    dump_jsonl,
    file_sha256,
    load_manifest,
    load_observations,
    memory_curve,
    read_json,
    record_lines,
    render_text,
    validate_records,
)
from sitbench.errors import InputError

_FACTORS = ("r", "t", "s", "u", "i")


def _emit(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


def _require_object(value: Any, field: str, where: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: field '{field}': expected a JSON object")
    return value


def _parse_point(raw: Any, field: str, where: Path) -> MemoryPoint:
    obj = _require_object(raw, field, where)
    allowed = set(_FACTORS) | {"f", "f_raw", "invalid_lure_rate", "clean_i"}
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise InputError(f"{where}: field '{field}.{unknown[0]}': unknown factor; allowed are r, t, s, u, i, f (or f_raw and invalid_lure_rate), clean_i")
    for name in _FACTORS:
        if name not in obj:
            raise InputError(f"{where}: field '{field}.{name}': required factor is missing; give a value, counts, or null for a missing factor")
    if "f" not in obj and not ("f_raw" in obj and "invalid_lure_rate" in obj):
        raise InputError(f"{where}: field '{field}.f': required factor is missing; give f, or f_raw and invalid_lure_rate, or null")
    rates: dict[str, Any] = {}
    counts: dict[str, Any] = {}
    try:
        for name in (*_FACTORS, "clean_i"):
            v = obj.get(name)
            if isinstance(v, dict):
                c = _count_pair(v, f"{field}.{name}")
                counts[name] = c
                rates[name] = None if c[1] == 0 else c[0] / c[1]
            else:
                rates[name] = v
        f = obj.get("f")
        extra: dict[str, Any] = {"f_raw": obj.get("f_raw"), "invalid_lure_rate": obj.get("invalid_lure_rate")}
        if isinstance(f, dict):
            if set(f) == {"f_raw", "invalid_lure_rate"}:
                extra = dict(f)
                f = None
            else:
                lures = _lure_triple(f, f"{field}.f")
                counts["f"] = lures
                f = None
                if lures[2] > 0:
                    extra = {"f_raw": lures[0] / lures[2], "invalid_lure_rate": lures[1] / lures[2]}
        for name, v in (*rates.items(), ("f", f), *extra.items()):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise InputError(f"field '{field}.{name}': expected a number, counts or null, got {v!r}")
        if counts:
            base = MemoryPoint.from_counts(
                r=counts.get("r"), t=counts.get("t"), s=counts.get("s"), u=counts.get("u"), i=counts.get("i"),
                lures=counts.get("f"), clean_i=counts.get("clean_i"),
            )
            kept = base.counts
        else:
            kept = None
        return MemoryPoint(f=f, counts=kept, **rates, **extra)
    except InputError as exc:
        msg = str(exc)
        if msg.startswith("field '") and not msg.startswith(f"field '{field}"):
            msg = f"field '{field}." + msg[len("field '"):]
        raise InputError(f"{where}: {msg}") from None


def _count_pair(v: dict[str, Any], field: str) -> tuple[int, int]:
    if set(v) != {"correct", "total"} or not all(isinstance(v[k], int) and not isinstance(v[k], bool) and v[k] >= 0 for k in v):
        raise InputError(f"field '{field}': counts must be {{\"correct\": k, \"total\": n}} with non-negative integers")
    if v["correct"] > v["total"]:
        raise InputError(f"field '{field}': correct {v['correct']} exceeds total {v['total']}")
    return v["correct"], v["total"]


def _lure_triple(v: dict[str, Any], field: str) -> tuple[int, int, int]:
    if set(v) != {"unsupported", "invalid", "total"} or not all(isinstance(v[k], int) and not isinstance(v[k], bool) and v[k] >= 0 for k in v):
        raise InputError(
            f"field '{field}': lure counts must be {{\"unsupported\": a, \"invalid\": b, \"total\": n}} with non-negative integers"
        )
    if v["unsupported"] + v["invalid"] > v["total"]:
        raise InputError(f"field '{field}': unsupported + invalid exceed total lures; the two failures are mutually exclusive")
    return v["unsupported"], v["invalid"], v["total"]


def eimc_from_json(data: Any, where: Path) -> dict[str, Any]:
    """Score a CURVE.json object; the result is what ``sitbench chi eimc --json`` prints."""
    obj = _require_object(data, "(root)", where)
    unknown = sorted(set(obj) - {"grid", "points", "tau", "alpha"})
    if unknown:
        raise InputError(f"{where}: field '{unknown[0]}': unknown field; expected grid, points, tau, alpha")
    for key in ("grid", "points"):
        if key not in obj:
            raise InputError(f"{where}: field '{key}': required field is missing; add it")
    points_raw = _require_object(obj["points"], "points", where)
    points: dict[int, MemoryPoint] = {}
    for key, raw in points_raw.items():
        try:
            load = int(key)
        except ValueError:
            raise InputError(f"{where}: field 'points.{key}': load keys must be integers such as \"100\"") from None
        points[load] = _parse_point(raw, f"points.{key}", where)
    try:
        res = memory_curve(obj["grid"], points, obj.get("tau", DEFAULT_TAU), obj.get("alpha"))
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    return {
        "q_m": {str(n): v for n, v in res.q_m.items()},
        "eimc": res.eimc,
        "status": res.status,
        "nonmonotone": res.nonmonotone,
        "pass_pattern_nonmonotone": res.pass_pattern_nonmonotone,
        "sustained_prefix_eimc": res.sustained_prefix_eimc,
        "sensitivity": res.sensitivity,
        "sensitivity_status": res.sensitivity_status,
        "tau": res.tau,
        "alpha": res.alpha,
        "untested": res.untested,
        "mean_q_m": res.mean_q_m,
        "factors": {
            str(n): {
                **{k: getattr(p, k) for k in ("r", "t", "s", "u", "i", "f", "f_raw", "invalid_lure_rate", "clean_i")},
                "interference_gap": p.interference_gap,
                "counts": None if p.counts is None else {k: c.model_dump() for k, c in p.counts.items()},
            }
            for n, p in sorted(res.points.items())
        },
    }


def similarity_from_json(data: Any, where: Path) -> dict[str, Any]:
    """Score an AXES.json object; the result is what ``sitbench chi similarity --json`` prints."""
    obj = _require_object(data, "(root)", where)
    top = set(obj) - {"weights", "scale_floor", "axes"}
    if "axes" in obj:
        if top:
            raise InputError(f"{where}: field '{sorted(top)[0]}': unknown field next to 'axes'")
        axes = _require_object(obj["axes"], "axes", where)
        prefix = "axes."
    else:
        axes = {k: obj[k] for k in top}
        prefix = ""
    unknown = sorted(set(axes) - set(AXES))
    if unknown:
        raise InputError(f"{where}: field '{prefix}{unknown[0]}': unknown axis; axes are R, M, C, A, I")
    h: dict[str, float | None] = {}
    d2: dict[str, float | None] = {}
    for axis in AXES:
        field = f"{prefix}{axis}"
        entry = axes.get(axis)
        if entry is None:
            h[axis] = d2[axis] = None
            continue
        entry = _require_object(entry, field, where)
        keys = set(entry)
        try:
            if "h" in keys:
                if keys - {"h"}:
                    raise InputError(f"field '{field}': give either 'h' or 'z', 'mu', 's', not both")
                h[axis] = entry["h"]
                d2[axis] = None
                continue
            if not {"z", "mu", "s"} <= keys or keys - {"z", "mu", "s", "scale_floor"}:
                raise InputError(f"field '{field}': give 'h', or the lists 'z', 'mu' and 's' (optional 'scale_floor')")
            floor = entry.get("scale_floor", obj.get("scale_floor"))
            if floor is None:
                raise InputError(
                    f"field '{field}.scale_floor': a positive scale floor must be declared; "
                    "add 'scale_floor' at the top level or on the axis"
                )
            sim = axis_similarity(axis, entry["z"], entry["mu"], entry["s"], floor)
        except InputError as exc:
            msg = str(exc)
            if msg.startswith("field '") and not msg.startswith(f"field '{field}"):
                msg = f"field '{field}." + msg[len("field '"):]
            raise InputError(f"{where}: {msg}") from None
        h[axis], d2[axis] = sim.h, sim.delta_squared
    try:
        chi = chi_score(h, obj.get("weights"))
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    weights = obj.get("weights") or {a: 1.0 / len(AXES) for a in AXES}
    return {"h": h, "chi": chi, "delta_squared": d2, "weights": weights}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def chi() -> None:
    """CHI/CHIS scoring and logging kit (source: CHI/CHIS Specification v0.1,
    Dmitry Chistyakov, 2026; its symbols are defined in docs/concepts.md).

    \b
    Capacity p and human similarity h are always separate. CHI = 100 * prod h_j^w_j
    over all five axes R, M, C, A, I; it is null (never 0, never renormalized)
    when any similarity or the calibration is missing, and 0 when an axis is 0.
    Q_M is the weighted geometric mean of the six memory factors r, t, s, u, i
    and 1 - f (each to the power of its weight, the weights summing to 1;
    1/6 each by default); EIMC is the largest passing tested
    load, with status observed, no_passing_tested_load or
    lower_bound/right_censored.

    \b
    Examples:
      sitbench chi eimc curve.json --json
      sitbench chi similarity axes.json --json
      sitbench chi score observations.jsonl --manifest manifest.json
      sitbench chi demo --out demo/
      sitbench chi run --panel r,i --agent versioned --out runs/chi
      sitbench chi run --panel all --agent reference-good --out runs/all
      sitbench chi panel-demo

    None of these scores measures consciousness, sentience, IQ, safety or
    personhood. Invalid input exits with code 2 and one line naming the
    field and the rule it breaks.
    """


@chi.command()
@click.argument("curve", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def eimc(curve: Path, as_json: bool) -> None:
    """Score a Memory Capacity Curve: Q_M per load, EIMC and its status.

    \b
    CURVE.json:
      {"grid": [100, 300, 1000, 3000, 10000],
       "points": {"100": {"r": 0.9, "t": 0.9, "s": 0.9, "u": 0.9, "i": 0.9, "f": 0.05}, ...},
       "tau": 0.8,                       (optional, default 0.8)
       "alpha": {"r": ..., "f": ...}}    (optional, six exponents > 0 summing to 1)

    Each of r, t, s, u, i may be a proportion, {"correct": k, "total": n}, or null
    (missing: Q_M is then null at that load). f may be a proportion,
    {"f_raw": a, "invalid_lure_rate": b}, {"unsupported": a, "invalid": b,
    "total": n}, or null; f = f_raw + invalid_lure_rate. A load absent from
    "points" is untested.

    Output: q_m per load, eimc (largest tested load with Q_M >= tau, or null),
    status, nonmonotone (Q_M rises somewhere), sustained_prefix_eimc, and
    sensitivity at tau = 0.7, 0.8, 0.9.

    \b
    Examples:
      sitbench chi eimc curve.json
      sitbench chi eimc curve.json --json
    """
    result = eimc_from_json(read_json(curve), curve)
    if as_json:
        _emit(result)
        return
    click.echo("load     Q_M")
    for n, q in result["q_m"].items():
        click.echo(f"{n:>8} {'null' if q is None else f'{q:.4f}'}")
    click.echo(f"EIMC(tau={result['tau']}): {result['eimc']} [{result['status']}]")
    click.echo(f"sustained prefix EIMC: {result['sustained_prefix_eimc']}   nonmonotone: {str(result['nonmonotone']).lower()}")
    click.echo("sensitivity: " + ", ".join(f"tau {k} -> {v}" for k, v in result["sensitivity"].items()))


@chi.command()
@click.argument("axes", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def similarity(axes: Path, as_json: bool) -> None:
    """Calibrated similarity h per axis and CHI.

    \b
    AXES.json:
      {"R": {"h": 0.8},
       "M": {"z": [0.4, 0.7], "mu": [0.5, 0.6], "s": [0.1, 0.2]},
       ...,
       "scale_floor": 0.05,             (required when any axis gives z/mu/s)
       "weights": {"R": 0.2, ...}}      (optional, all > 0, summing to 1)
    The axes may also be wrapped in {"axes": {...}}.

    h_j = exp(-0.5 * mean(((z - mu) / s)^2)); scales must be >= the declared
    positive floor. An absent or null axis is missing similarity, so CHI is
    null; an axis with h = 0 makes CHI 0.

    \b
    Examples:
      sitbench chi similarity axes.json --json
    """
    result = similarity_from_json(read_json(axes), axes)
    if as_json:
        _emit(result)
        return
    for axis in AXES:
        v = result["h"][axis]
        click.echo(f"h[{axis}] = {'null' if v is None else f'{v:.6f}'}")
    value = result["chi"]
    click.echo("CHI = " + ("null" if value is None else f"{value:.4f}"))


@chi.command()
@click.argument("observations", type=click.Path(path_type=Path))
@click.option("--manifest", "manifest_path", type=click.Path(path_type=Path), required=True, help="Run manifest (JSON) kept next to the log.")
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@click.option("--seed", type=SEED, default=None, help="Bootstrap seed (default: the manifest's analysis.seed).")
@click.option("--resamples", type=Bounded(int, MIN_RESAMPLES, MAX_RESAMPLES), default=None,
              help=f"Bootstrap resamples, {MIN_RESAMPLES:,} … {MAX_RESAMPLES:,} (default: the manifest's).")
def score(observations: Path, manifest_path: Path, as_json: bool, seed: int | None, resamples: int | None) -> None:
    """Validate an observation log against its manifest and print the §8 report.

    OBSERVATIONS.jsonl holds one record per run and checkpoint with the
    required fields version, config_hash, run, agent, seed, step, wall_time,
    history_hash, state_hash, capacities, human_similarity, chi,
    reference_kind, synthetic, budgets (plus optional tick, state, features,
    memory, task_results). Runs are the independent clusters of the
    whole-cluster bootstrap. The evidence class may not claim more than the
    data: synthetic records cannot be capacity-only or human-referenced.

    \b
    Examples:
      sitbench chi score observations.jsonl --manifest manifest.json --seed 7
    """
    manifest = load_manifest(manifest_path)
    records = load_observations(observations)
    validate_records(manifest, records, str(observations), record_lines(observations))
    report = build_report(
        manifest,
        records,
        artifact_hashes={"observations": file_sha256(observations), "manifest": file_sha256(manifest_path)},
        n_resamples=resamples,
        seed=seed,
    )
    if as_json:
        _emit(report.model_dump(mode="json"))
    else:
        click.echo(render_text(report))


@chi.command()
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the synthetic generator and the bootstrap.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Also write manifest.json, observations.jsonl and report.json here.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON instead of text.")
def demo(seed: int, out: Path | None, as_json: bool) -> None:
    """Synthetic demonstration: 8 clusters x 5 checkpoints on the grid [1, 2, 4, 8, 16].

    Everything is labelled synthetic and scored against a synthetic reference;
    it shows the scoring mechanics and is not the 30-test pilot, a memory
    experiment, or comparable with any human-calibrated CHI.

    \b
    Examples:
      sitbench chi demo --out chi/
      sitbench chi demo --seed 1 --json
    """
    started = time.perf_counter()
    manifest = demo_manifest(seed)
    records = demo_observations(seed)
    manifest_text = json.dumps(manifest.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    log_text = dump_jsonl(records)
    hashes = {
        "manifest": hashlib.sha256(manifest_text.encode("utf-8")).hexdigest(),
        "observations": hashlib.sha256(log_text.encode("utf-8")).hexdigest(),
    }
    report = build_report(manifest, records, artifact_hashes=hashes)
    if out is not None:
        from sitbench.stores import write_text_atomic

        write_text_atomic(out / "manifest.json", manifest_text)
        write_text_atomic(out / "observations.jsonl", log_text)
        write_text_atomic(out / "report.json", json.dumps(report.model_dump(mode="json"), indent=2, allow_nan=False) + "\n")
    if as_json:
        _emit(report.model_dump(mode="json"))
    else:
        click.echo(render_text(report))
        if out is not None:
            click.echo(f"wrote {out / 'manifest.json'}, {out / 'observations.jsonl'}, {out / 'report.json'}")
        click.echo(f"demo took {time.perf_counter() - started:.1f} s (measured wall time of this command; the "
                   "records' wall_time fields are synthetic)")


from sitbench.cli._chi_memory import memory as _memory  # noqa: E402 - the group is defined above

chi.add_command(_memory, "memory")

from sitbench.cli._chi_run import panel_demo as _panel_demo  # noqa: E402 - the group is defined above
from sitbench.cli._chi_run import run as _run  # noqa: E402 - the group is defined above

chi.add_command(_run, "run")
chi.add_command(_panel_demo, "panel-demo")
