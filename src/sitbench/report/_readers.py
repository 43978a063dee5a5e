"""The report's two-reader parts: each figure's band, the contested shares and both readers' verdicts of a trial.

With two readers (``--extractor FIRST+SECOND``) a verdict is agreed or contested; a figure's band
is the range it spans when every contested verdict is counted as a failure and as a pass. Runs read by one
reader have none of this, and the page shows none of it for them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sitbench.glossary import category_label, config_label
from sitbench.metrics import CATEGORY_ORDER, FIGURE_RULE, Band, ConfigMetrics
from sitbench.metrics import format_percent as pct
from sitbench.render import esc
from sitbench.report._data import LoadedRun
from sitbench.runs import ScoreRecord
from sitbench.schema import Verdict

BAND_MEANING = (
    "Band (the small range under a value): the figure with every contested verdict — the two readers' verdicts "
    "differ — counted as a failure, and as a pass (a flag either reader raised counted as raised, and as not); "
    "the value itself is the primary reader's."
)
"""What a band means, in one sentence: the page says it under every two-reader table."""


def has_two_readers(run: LoadedRun) -> bool:
    """Whether any configuration of the run was read by two readers (its metrics carry bands)."""
    return any(row.band is not None for row in run.metrics.values())


def second_reader(run: LoadedRun) -> str | None:
    """The second reader's ``id@version`` as the first two-reader record names it; None with one reader."""
    if not has_two_readers(run):
        return None
    return next((record.second.extractor for record in run.scores if record.second is not None), None)


def primary_readers(run: LoadedRun) -> list[str]:
    """The primary readers' ``id@version`` over the run's configurations, sorted."""
    return sorted({row.reader for row in run.metrics.values() if row.reader})


def format_band(band: Band | None) -> str:
    """A band as ``low–high`` in percent with one decimal, like the value beside it; ``—`` when undefined."""
    if band is None or band.low is None or band.high is None:
        return "—"
    return f"{pct(band.low)}–{pct(band.high)}"


def band_span(row: ConfigMetrics, field: str) -> str:
    """The band of one figure, to sit in its cell under the value; empty with one reader."""
    if row.band is None or field not in row.band:
        return ""
    return (f"<span class='band' data-band='{esc(field)}' title='band over the contested verdicts'>"
            f"{format_band(row.band[field])}</span>")


def _share_cell(run: str, config: str, key: str, contested: int, completed: int) -> str:
    text = "—" if not completed else f"{contested} / {completed} ({pct(contested / completed)}%)"
    return f"<td data-run='{esc(run)}' data-config='{esc(config)}' data-contested='{esc(key)}'>{text}</td>"


def contested_table(run: LoadedRun) -> str:
    """Contested trials over completed trials, per configuration (rows) and category (columns), with the
    sentence saying what a band means and whose the values are; empty with one reader."""
    if not has_two_readers(run):
        return ""
    head = "<tr><th class='l'>config.</th>" + "".join(
        f"<th title='{esc(category_label(c.value))}'>cat. {c.value}</th>" for c in CATEGORY_ORDER)
    head += "<th>all</th><th>read by two readers</th></tr>"
    rows = []
    for config, row in run.metrics.items():
        if row.band is None:
            continue
        cells = [f"<td class='l' title='{esc(config_label(config))}'><b>{esc(config)}</b></td>"]
        for category in CATEGORY_ORDER:
            counts = row.counts.get(category.value)
            cells.append(_share_cell(run.name, config, category.value, row.contested.get(category.value, 0),
                                     counts.completed if counts else 0))
        cells.append(_share_cell(run.name, config, "all", sum(row.contested.values()), row.n_completed))
        cells.append(f"<td>{row.n_two_readers}</td>")
        rows.append(f"<tr>{''.join(cells)}</tr>")
    second = second_reader(run) or "?"
    readers = (f"Primary reader {', '.join(primary_readers(run)) or '(several)'}; second reader {second}. "
               "Contested share = trials whose two readers' verdicts differ / completed trials of that category.")
    return (
        f"<p class='note band-meaning'>{esc(BAND_MEANING)}</p>"
        f"<h4>Contested verdicts: contested / completed (share %)</h4>"
        f"<table class='contested' data-run='{esc(run.name)}'><thead>{head}</thead><tbody>{''.join(rows)}</tbody>"
        f"</table><p class='note'>{esc(readers)}</p>"
        f"<p class='note' data-rule='figure'><b>Which figure to quote:</b> {esc(FIGURE_RULE)}.</p>"
    )


ReasonHtml = Callable[[str], str]
"""Renders a check's reason as escaped HTML (the drill-down spells its propositions out)."""


def _check_state(verdict: Verdict | None, name: str, reason: ReasonHtml) -> str:
    if verdict is None:
        return "<span class='muted'>(none)</span>"
    if name == "valid":
        return "valid" if verdict.valid else "<b>invalid</b>"
    check = verdict.checks.get(name)
    if check is None:
        return "<span class='muted'>(not checked)</span>"
    return "passed" if check.passed else f"<b>failed</b> — {reason(check.reason)}"


def _differing_rows(score: ScoreRecord, reason: ReasonHtml) -> str:
    assert score.second is not None
    rows = []
    for name in score.contested_checks:
        bare = name.removeprefix("partner.")
        first, second = ((score.partner, score.second.partner) if bare != name
                         else (score.verdict, score.second.verdict))
        rows.append(f"<tr><td class='l'>{esc(name)}</td><td class='l'>{_check_state(first, bare, reason)}</td>"
                    f"<td class='l'>{_check_state(second, bare, reason)}</td></tr>")
    return "".join(rows)


def _verdict_words(verdict: Verdict | None, partner: Verdict | None) -> str:
    if verdict is None:
        return "no verdict"
    words = "valid" if verdict.valid else "invalid"
    if partner is not None:
        words += f" (partner contract: {'valid' if partner.valid else 'invalid'})"
    return words


def _failed_names(verdict: Verdict | None) -> list[str]:
    return [] if verdict is None else [name for name, check in verdict.checks.items() if not check.passed]


def two_readers_html(score: ScoreRecord, second_observation: str, *, reason: ReasonHtml = esc) -> str:
    """Both readers' verdicts of one trial: the checks they differ on (each reader's result and its reason, as
    ``reason`` renders it), the second reader's failed checks and flags, and its Γ̂ (``second_observation``,
    already rendered)."""
    second = score.second
    assert second is not None
    primary = score.verdict.extractor if score.verdict is not None else None
    out = [
        f"<h4>Two readers: {esc(score.agreement or 'agreed')}</h4>",
        f"<p class='note'>primary reader {esc(primary or '?')}: target {_verdict_words(score.verdict, score.partner)}"
        f"; second reader {esc(second.extractor)}: target {_verdict_words(second.verdict, second.partner)}.</p>",
    ]
    if score.contested_checks:
        out.append("<table class='differ'><thead><tr><th class='l'>check the readers differ on</th>"
                   "<th class='l'>primary reader</th><th class='l'>second reader</th></tr></thead>"
                   f"<tbody>{_differing_rows(score, reason)}</tbody></table>")
    failed = _failed_names(second.verdict)
    partner_failed = _failed_names(second.partner)
    flags = [name for name, on in (("FMR", second.false_memory), ("TL", second.temporal_leak),
                                   ("UEL", second.unauthorized_epistemic)) if on]
    out.append(
        f"<p class='note second-failed'>second reader's failed target checks: {esc(', '.join(failed) or '(none)')}"
        + (f"; failed partner checks: {esc(', '.join(partner_failed))}" if partner_failed else "")
        + f"; its flags: {esc(', '.join(flags) or '(none)')}.</p>"
    )
    out.append(f"<details><summary>Second reader's observation Γ̂</summary>{second_observation}</details>")
    return "".join(out)


def agreement_filter_options(runs: Sequence[LoadedRun]) -> list[str]:
    """Options of the drill-down's readers filter: both agreements with two readers, none with one."""
    return ["contested", "agreed"] if any(has_two_readers(run) for run in runs) else []
