"""``sitbench compare``: paired comparison of scored runs (configurations or agents) on one dataset."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import click

from sitbench._options import MAX_RESAMPLES, SEED, Bounded
from sitbench.errors import InputError
from sitbench.stats import (
    DEFAULT_SEED,
    ArmComparison,
    ChangeDirection,
    CompareReport,
    Decision,
    EndpointComparison,
    compare_runs,
)

_DECISION_WORDS: dict[Decision, str] = {
    Decision.DIFFERENCE: "DIFFERENCE",
    Decision.NOT_REJECTED: "no difference shown",
    Decision.INCOMPLETE: "incomplete",
    Decision.DESCRIPTIVE: "outside Holm",
}
_CHANGE_WORDS: dict[ChangeDirection, str] = {
    ChangeDirection.PASS_TO_FAIL: "pass → fail",
    ChangeDirection.FAIL_TO_PASS: "fail → pass",
}
_NAMES = {"macro_sit": "Macro SIT"}


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _pp(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f}"


def _p(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _columns(head: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    """A plain-text table: the first ``left`` columns flush left, the rest flush right."""
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(parts).rstrip()

    return [line(head), *(line(row) for row in rows)]


def _interval(e: EndpointComparison) -> str:
    if e.ci_lower is None or e.ci_upper is None:
        return "—"
    mark = "*" if e.bootstrap is not None and e.bootstrap.degenerate else ""
    return f"[{100 * e.ci_lower:+.1f}, {100 * e.ci_upper:+.1f}]{mark}"


def _endpoint_row(e: EndpointComparison) -> list[str]:
    name = _NAMES.get(e.endpoint, e.endpoint) + ("" if e.higher_is_better else " ↓")
    return [name, _pct(e.baseline_value), _pct(e.arm_value), _pp(e.difference), _interval(e),
            f"{e.n_pairs}/{e.pairs_attempted}", _p(e.p), _p(e.p_holm), _DECISION_WORDS[e.decision]]


def _endpoint_lines(c: ArmComparison, ci: float) -> list[str]:
    endpoints = [*c.categories, c.macro_sit, *c.diagnostics]
    head = ["endpoint", "baseline %", "arm %", "diff pp", f"{ci:.0%} interval pp", "pairs", "p", "Holm p",
            "decision"]
    lines = _columns(head, [_endpoint_row(e) for e in endpoints])
    notes = ["↓ lower is better; pairs = compared / holding probes of the endpoint"]
    if any(e.bootstrap is not None and e.bootstrap.degenerate for e in endpoints):
        notes.append("* degenerate interval (one pair, or every resample gives the same value)")
    return lines + ["; ".join(notes)]


def _incomplete_lines(c: ArmComparison) -> list[str]:
    lines = []
    for e in [*c.categories, *c.diagnostics]:
        for pair, why in e.incomplete_pairs.items():
            lines.append(f"  {_NAMES.get(e.endpoint, e.endpoint)} {pair}: {why}")
        if e.reason:
            lines.append(f"  {e.endpoint}: not compared ({e.reason})")
    return ["incomplete (left out, never reweighted):", *lines] if lines else []


def _change_lines(c: ArmComparison, max_changes: int) -> list[str]:
    counts = c.probes
    lines = [f"probes: {counts.shared} shared, {counts.both_completed} completed in both; "
             f"{counts.pass_to_fail} pass → fail, {counts.fail_to_pass} fail → pass"
             + (f"; {counts.only_baseline} only in the baseline" if counts.only_baseline else "")
             + (f"; {counts.only_arm} only in {c.arm}" if counts.only_arm else "")]
    shown = c.changes[:max_changes]
    if shown:
        head = ["probe", "cat.", "pair", "change", f"failed checks in {c.baseline}", f"failed checks in {c.arm}"]
        rows = [[ch.probe_id, ch.category, ch.pair_id, _CHANGE_WORDS[ch.change],
                 ", ".join(ch.baseline_failed_checks) or "—", ", ".join(ch.arm_failed_checks) or "—"]
                for ch in shown]
        lines += ["  " + line for line in _columns(head, rows, left=6)]
    if len(c.changes) > len(shown):
        lines.append(f"  (+{len(c.changes) - len(shown)} more changed probes: raise --max-changes, or use --json "
                     "or --html)")
    return lines


def _comparison_lines(c: ArmComparison, report: CompareReport, max_changes: int) -> list[str]:
    lines = ["", f"{c.arm} vs {c.baseline} (diff = {c.arm} − {c.baseline})"]
    lines += _endpoint_lines(c, report.ci)
    lines.append(c.holm.note)
    for e in c.categories:
        if e.decision is Decision.DIFFERENCE:
            lines.append(f"{e.endpoint}: {e.decision_note}")
    if c.decidability.message:
        lines.append(c.decidability.message)
    return lines + _incomplete_lines(c) + _change_lines(c, max_changes)


def render_text(report: CompareReport, max_changes: int) -> str:
    """The comparison as plain text: one table of endpoints and the changed probes per arm."""
    d = report.dataset
    digest = f"manifest SHA-256 {d.manifest_sha256[:12]}…" if d.manifest_sha256 else "no recorded fingerprint"
    lines = [
        f"sitbench compare: dataset {d.suite or '?'} ({digest}); baseline {report.baseline}",
        "arms: " + "; ".join(f"{a.label} ({a.completed}/{a.attempted} completed"
                             + (f", {a.dropped} dropped" if a.dropped else "")
                             + (f", {a.unscored} unscored" if a.unscored else "") + ")" for a in report.arms),
        (f"intervals: {report.ci:.0%} percentile cluster bootstrap over pairs, {report.n_resamples} resamples, "
         f"seed {report.seed}; p: exact two-sided sign-flip over pairs; Holm over the 8 categories at alpha "
         f"{report.alpha:g}"),
    ]
    for comparison in report.comparisons:
        lines += _comparison_lines(comparison, report, max_changes)
    return "\n".join(lines)


@click.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--baseline", default=None, metavar="LABEL",
              help="Arm every other arm is compared with (default: the first arm of the first run): RUN:CONFIG "
                   "with RUN the run directory's name (g:G for runs/g), or an agent's name.")
@click.option("--seed", type=SEED, default=DEFAULT_SEED, show_default=True,
              help="Bootstrap seed (and Monte-Carlo seed above 24 pairs); recorded in the output.")
@click.option("--resamples", type=Bounded(int, 2, MAX_RESAMPLES), default=1000, show_default=True,
              help=f"Bootstrap resamples per endpoint (2 … {MAX_RESAMPLES:,}).")
@click.option("--ci", type=float, default=0.95, show_default=True,
              help="Coverage of the percentile intervals, strictly between 0 and 1.")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Family-wise error rate of Holm over the eight categories, strictly between 0 and 1.")
@click.option("--max-changes", type=Bounded(int, 0, 1_000_000), default=50, show_default=True,
              help="Changed probes listed per arm in the text output (--json and --html list all).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON instead of text.")
@click.option("--html", "html", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a self-contained comparison page to this file.")
def compare(runs: tuple[Path, ...], baseline: str | None, seed: int, resamples: int, ci: float, alpha: float,
            max_changes: int, as_json: bool, html: Path | None) -> None:
    """Paired comparison of scored RUNS of one dataset: each arm against the baseline.

    An arm is a configuration of a run (labelled RUN:CONFIG, RUN the run
    directory's name) or an agent run (labelled by the agent's name); the
    baseline is the first arm, or --baseline.
    Per arm: the eight category validities (A_pos … A_session), Macro SIT, LAA,
    FMR, TL and UEL in both arms and their difference, a percentile cluster
    bootstrap interval over pairs and the exact sign-flip p over the pairs;
    Holm over the eight categories; every probe whose verdict changed, with the
    checks that failed. A pair is compared on an endpoint only when every probe
    of it is completed in both arms: a dropped, unscored or missing probe makes
    the pair incomplete there (listed), never reweighted. With too few pairs for
    any decision (the pilot's 2: the exact test's smallest p is 0.5) the output
    says how many pairs are needed.

    Exit codes: 0 compared; 2 bad input (a run not scored, runs of different
    datasets, an unknown --baseline, fewer than two arms).

    \b
    Examples:
      sitbench compare runs/g runs/kw                 # runs/g's configurations and the agent
      sitbench compare runs/all --baseline all:G --json
      sitbench compare runs/g runs/h runs/kw --baseline keyword-baseline --html compare.html
    """
    for option, value, example in (("--ci", ci, "0.95"), ("--alpha", alpha, "0.05")):
        if not 0.0 < value < 1.0:
            raise InputError(f"{option} {value!r}: must lie strictly between 0 and 1, e.g. {example}")
    report = compare_runs(list(runs), baseline=baseline, seed=seed, n_resamples=resamples, ci=ci, alpha=alpha)
    if html is not None:
        from sitbench.report import write_comparison  # the report package only when a page is asked for

        path = write_comparison(report, html)
        click.echo(f"comparison page: {path}", err=True)
    if as_json:
        click.echo(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False))
    else:
        click.echo(render_text(report, max_changes))
