"""The report's corrected validities and the verifier card they come from.

A reader's card holds its measured false rejects and false accepts per category on annotated answers; the
validities are corrected with it (Rogan–Gladen) and shown with their intervals, beside the card itself —
the same card ``sitbench metrics --json`` prints under ``verifier_cards``.
"""

from __future__ import annotations

from collections.abc import Sequence

from sitbench.glossary import category_label, config_label
from sitbench.metrics import CATEGORY_ORDER, FIGURE_RULE, WIDE_INTERVAL, ConfigMetrics
from sitbench.metrics import format_percent as pct
from sitbench.render import esc
from sitbench.report._data import LoadedRun
from sitbench.schema import CATEGORY_METRICS
from sitbench.verify import (
    MIN_PER_VERDICT,
    CategoryErrors,
    Corrected,
    CorrectionStatus,
    ReaderCard,
    card_key,
    shipped_card,
)

_FIELDS: tuple[tuple[str, str], ...] = (*((CATEGORY_METRICS[c], category_label(c.value)) for c in CATEGORY_ORDER),
                                        ("macro_sit", "mean of the eight category validities"))

_STATUS_WORDS: dict[CorrectionStatus, tuple[str, str]] = {
    CorrectionStatus.TOO_SMALL: ("too small", f"the card has under {MIN_PER_VERDICT} annotated answers of a "
                                              "verdict in this category: nothing corrected"),
    CorrectionStatus.NO_CARD: ("no card", "no card was measured for this reader and scorer"),
    CorrectionStatus.UNINFORMATIVE: ("n/i", "the reader is no better than chance on the card here "
                                            "(1 − FR − FA ≤ 0): nothing to correct with"),
    CorrectionStatus.UNDEFINED: ("—", "the figure itself is undefined"),
}


def _carded(row: ConfigMetrics) -> bool:
    return any(c.status is not CorrectionStatus.NO_CARD for c in row.corrected.values())


def verifier_cards(metrics: dict[str, ConfigMetrics]) -> list[ReaderCard]:
    """The shipped cards of the readers behind these metrics (what ``sitbench metrics --json`` lists under
    ``verifier_cards``)."""
    readers = {card_key(row.reader) for row in metrics.values() if row.reader}
    return [card for card in shipped_card().readers if card.reader in readers]


def _corrected_cell(run: str, config: str, field: str, corrected: Corrected | None) -> str:
    status = corrected.status if corrected is not None else CorrectionStatus.NO_CARD
    attrs = f"data-run='{esc(run)}' data-config='{esc(config)}' data-corrected='{esc(field)}' data-status='{status}'"
    if corrected is not None and status is CorrectionStatus.CORRECTED and corrected.estimate is not None:
        wide = corrected.low is not None and corrected.high is not None and \
            corrected.high - corrected.low >= WIDE_INTERVAL
        mark = "<span class='wide' title='50 points wide or more: too wide to inform'>*</span>" if wide else ""
        interval = ("" if corrected.low is None or corrected.high is None
                    else f" <span class='muted'>[{pct(corrected.low)}, {pct(corrected.high)}]{mark}</span>")
        return f"<td {attrs}>{pct(corrected.estimate)}{interval}</td>"
    words, why = _STATUS_WORDS.get(status, ("", ""))
    return f"<td {attrs} title='{esc(why)}'>{esc(words)}</td>"


def _corrected_table(run: LoadedRun) -> str:
    head = "<tr><th class='l'>config.</th>" + "".join(
        f"<th title='{esc(tip)}'>{esc('Macro SIT' if field == 'macro_sit' else field)}</th>" for field, tip in _FIELDS
    ) + "</tr>"
    rows = []
    for config, row in run.metrics.items():
        if not _carded(row):
            continue
        cells = [f"<td class='l' title='{esc(config_label(config))}'><b>{esc(config)}</b></td>"]
        cells += [_corrected_cell(run.name, config, field, row.corrected.get(field)) for field, _ in _FIELDS]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (f"<table class='corrected' data-run='{esc(run.name)}'><thead>{head}</thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")


def _rate(errors: int, n: int) -> str:
    return "—" if not n else f"{errors}/{n} ({pct(errors / n)}%)"


def _card_row(letter: str, errors: CategoryErrors) -> str:
    corrects = "too small" if errors.too_small else "yes"
    return (f"<tr data-category='{esc(letter)}'><td class='l' title='{esc(category_label(letter))}'>cat. "
            f"{esc(letter)}</td><td>{errors.n_valid}</td><td>{errors.n_invalid}</td>"
            f"<td>{_rate(errors.false_rejects, errors.n_valid)}</td>"
            f"<td>{_rate(errors.false_accepts, errors.n_invalid)}</td><td>{corrects}</td></tr>")


def card_html(card: ReaderCard) -> str:
    """One reader's card in a collapsible section: per category the annotated answers of each verdict, the false
    rejects and false accepts, and whether the category is large enough to correct; then the card as JSON."""
    head = ("<tr><th class='l'>category</th><th>annotated valid</th><th>annotated invalid</th>"
            "<th>false rejects (FR)</th><th>false accepts (FA)</th><th>corrects</th></tr>")
    rows = "".join(_card_row(letter, errors) for letter, errors in card.categories.items())
    return (
        f"<details class='card' data-reader='{esc(card.reader)}'><summary>Verifier card of <b>{esc(card.reader)}</b>"
        f" (scorer {esc(card.scorer_version)}): false rejects and false accepts per category</summary>"
        f"<p class='note'>Measured on the {esc(card.measured_on)}. FR = valid answers the reader's verdict "
        "scored invalid; FA = invalid answers it scored valid; a category corrects with at least "
        f"{MIN_PER_VERDICT} annotated answers of each verdict.</p>"
        f"<table class='card'><thead>{head}</thead><tbody>{rows}</tbody></table>"
        f"<pre>{esc(card.model_dump_json(indent=1))}</pre></details>"
    )


def _run_corrected(run: LoadedRun) -> str:
    readers = sorted({row.reader for row in run.metrics.values() if row.reader and _carded(row)})
    cards = verifier_cards(run.metrics)
    named = "; ".join(f"{reader} → card {card_key(reader)}" for reader in readers)
    return (
        f"<h3>{esc(run.name)}</h3><p class='note'>Reader whose verdicts are corrected (the primary reader): "
        f"<b>{esc(named)}</b>.</p>{_corrected_table(run)}"
        + "".join(card_html(card) for card in cards)
    )


def _rule(runs: Sequence[LoadedRun]) -> str:
    """The rule for which figure to quote: whole when a run has two readers, else the part that applies."""
    if any(row.band is not None for run in runs for row in run.metrics.values()):
        rule = FIGURE_RULE
    else:
        rule = ("the corrected validity, when its interval is not marked * (too wide to inform); else the observed "
                "value, beside the card's error rates; a human audit of the run, when there is one, comes first")
    return f"<p class='note' data-rule='figure'><b>Which figure to quote:</b> {esc(rule)}.</p>"


def corrected_section(runs: Sequence[LoadedRun]) -> str | None:
    """Corrected validities with their intervals per run, the assumption behind them and the cards; None when no
    run's reader has a card."""
    carded = [run for run in runs if any(_carded(row) for row in run.metrics.values())]
    if not carded:
        return None
    intro = (
        "<p class='note'>Each category validity corrected for the reader's measured false rejects (FR) and false "
        "accepts (FA) on its verifier card (Rogan–Gladen: (observed − FA) / (1 − FR − FA)), in %, with its 95% "
        "interval in brackets (the card's and the observed share's sampling spread). "
        f"<b>The correction assumes</b> {esc(shipped_card().assumption)}. "
        "too small = the card has under 30 annotated answers of a verdict in that category; n/i = the reader is "
        "no better than chance there; no card = none was measured for the reader; * = the interval is 50 points "
        "wide or more, too wide to inform.</p>"
        + _rule(carded)
    )
    return intro + "".join(_run_corrected(run) for run in carded)
