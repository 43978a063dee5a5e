"""The drill-down of failed (and, with two readers, contested) trials: one collapsible entry per trial, filtered by
the page's script."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sitbench.glossary import category_label, check_meaning, config_label
from sitbench.metrics import laa_outcome
from sitbench.render import esc
from sitbench.report._data import FailedTrial, Listed, LoadedRun, failed_checks, is_contested
from sitbench.report._exports import TRIALS_CSV
from sitbench.report._props import PropWords, prop_words
from sitbench.report._readers import agreement_filter_options, has_two_readers, two_readers_html
from sitbench.runs import ScoreRecord
from sitbench.schema import Observation

DRILLDOWN_TEXT_BUDGET = 4_000_000
"""Characters of envelope and response text the drill-down may carry in all; long texts are
shortened (head and tail kept) so a large run's report stays small and opens fast."""

MIN_TEXT_CHARS = 600
"""No message or response is shortened below this many characters."""


def _shorten(text: str, limit: int | None, where: str) -> str:
    if limit is None or len(text) <= limit:
        return text
    head = limit * 2 // 5
    tail = limit - head
    omitted = len(text) - head - tail
    return f"{text[:head]}\n… [{omitted:,} characters omitted here; full text in {where}] …\n{text[-tail:]}"


def _text_limit(trials: Sequence[FailedTrial]) -> int | None:
    """Per-text character cap so the drill-down's texts fit :data:`DRILLDOWN_TEXT_BUDGET`; ``None`` = no cap."""
    texts = [
        len(m.content)
        for t in trials
        if t.trial is not None and t.trial.turns
        for m in t.trial.turns[-1].messages
    ] + [len(t.trial.response_text or "") for t in trials if t.trial is not None]
    if sum(texts) <= DRILLDOWN_TEXT_BUDGET:
        return None
    # Largest cap whose capped total fits the budget (bisection over the cap).
    lo, hi = MIN_TEXT_CHARS, max(texts)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in texts) <= DRILLDOWN_TEXT_BUDGET:
            lo = mid
        else:
            hi = mid - 1
    return lo


def observation_html(obs: Observation | None, response: str | None, words: PropWords | None = None) -> str:
    """A reader's Γ̂ as a list: acts, claims (in words with ``words``, and the span of the response they read),
    unmapped statements, uncertainty, disclosure and the extractor."""
    words = words or PropWords()
    if obs is None:
        return "<p class='note'>No observation recorded.</p>"
    items: list[str] = [f"<b>acts Ŷ</b>: {esc(', '.join(a.value for a in obs.acts) or '(none)')}"]
    for claim in obs.claims:
        span = ""
        if response is not None:
            a, b = claim.span
            span = f" — “{esc(response[a:b])}”"
        items.append(
            f"<b>claim</b> {words.claim_html(claim.prop_id, claim.polarity)} "
            f"<span class='muted'>({esc(claim.provenance.value)})</span>{span}"
        )
    for un in obs.unmapped:
        slot = f" slot {un.slot}={un.value}" if un.slot else ""
        items.append(
            f"<b>unmapped</b> {'+' if un.polarity else '−'} <span class='muted'>({esc(un.provenance.value)}{esc(slot)})</span>"
            f" — “{esc(un.text)}”"
        )
    items.append(f"<b>uncertainty û</b>: {esc(obs.uncertainty.value)}")
    shared = ", ".join(obs.disclosure.shared) or "(none)"
    items.append(f"<b>disclosure ŵ</b>: shared {esc(shared)}; framed as withheld: {'yes' if obs.disclosure.framed_as_withheld else 'no'}")
    items.append(f"<span class='muted'>extractor {esc(obs.verifier_version)}</span>")
    return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def check_name_html(name: str) -> str:
    """A check's name with what it tests beside it (muted), escaped."""
    meaning = check_meaning(name)
    return f"<b>{esc(name)}</b>" + (f" <span class='muted'>— {esc(meaning)}</span>" if meaning else "")


def _checks_html(failed: FailedTrial, words: PropWords) -> str:
    score = failed.score
    assert score.verdict is not None
    if score.verdict.valid:
        return "<p class='note'>Target verdict valid: every check passed.</p>" + _partner_html(score)
    rows = [
        f"<tr class='failed-check'><td class='l'>{check_name_html(name)}</td>"
        f"<td class='l reason'>{words.reason_html(check.reason)}</td></tr>"
        for name, check in score.verdict.checks.items()
        if not check.passed
    ]
    passed = [name for name, check in score.verdict.checks.items() if check.passed]
    out = (
        f"<table><thead><tr><th class='l'>failed target check</th><th class='l'>why it failed</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        f"<p class='note'>passed: {esc(', '.join(passed) or '(none)')}</p>"
    )
    return out + _partner_html(score)


def _partner_html(score: ScoreRecord) -> str:
    out = ""
    if score.verdict is not None and score.partner is not None:
        partner_failed = [name for name, c in score.partner.checks.items() if not c.passed]
        outcome = laa_outcome(score.verdict.valid, score.partner.valid).replace("_", " ")
        out += (
            f"<p class='note'>Partner contract (LAA): {'valid' if score.partner.valid else 'invalid'}"
            f"{' — failed ' + esc(', '.join(partner_failed)) if partner_failed else ''}; outcome <b>{esc(outcome)}</b>.</p>"
        )
    return out


def _flags(score: ScoreRecord) -> list[str]:
    return [
        name
        for name, on in (("FMR", score.false_memory), ("TL", score.temporal_leak), ("UEL", score.unauthorized_epistemic))
        if on
    ]


def _trace(failed: FailedTrial, where: str) -> str:
    s = failed.score
    trace = [where, f"probe {s.probe_id}", f"capability {s.capability}"]
    if s.answer_ms is not None:
        # An agent's answer time is its own (time queued behind other trials is not counted); it has no prompt.
        trace.append(f"agent's own answer time {s.answer_ms:.3g} ms")
    else:
        trace.append(f"prompt tokens {s.prompt_tokens}")
    if s.verdict is not None:
        trace.append(f"scorer {s.verdict.verifier_version}")
    return f"<p class='note'>{esc(' · '.join(trace))}</p>"


def _trial_html(failed: FailedTrial, limit: int | None, words: PropWords) -> str:
    s = failed.score
    checks = failed_checks(s)
    flags = _flags(s)
    where = f"responses.jsonl line {failed.responses_line} of run {failed.run}" if failed.responses_line else "responses.jsonl"
    summary = (
        f"<span class='tid'>{esc(s.trial_id)}</span> "
        f"<span class='pill'>{esc(config_label(s.config))}</span>"
        f"<span class='pill'>{esc(category_label(s.category.value))}</span>"
        f"<span class='muted'> {esc(failed.run)} · {esc(s.lineage_id)} · {esc(s.pair_id)}"
        f"{' · ' + esc(s.stratum) if s.stratum else ''}{' · Q*' if s.theorem_qualified else ''}</span> "
        + "".join(f"<span class='pill bad'>{esc(c)}</span>" for c in checks)
        + "".join(f"<span class='pill flag'>{esc(f)}</span>" for f in flags)
        + (f"<span class='pill contested'>contested: {esc(', '.join(s.contested_checks) or 'flags')}</span>"
           if is_contested(s) else "")
    )
    body: list[str] = []
    trial = failed.trial
    response = trial.response_text if trial is not None else None
    if trial is None or not trial.turns:
        body.append("<p class='note warn'>responses.jsonl has no record of this trial.</p>")
    else:
        last = trial.turns[-1]
        body.append(
            f"<h4>Envelope — messages sent at the scored turn (turn {last.turn + 1} of {len(trial.turns)}, "
            f"session {last.session})</h4>"
        )
        for message in last.messages:
            body.append(f"<div class='role'>{esc(message.role)}</div><pre>{esc(_shorten(message.content, limit, where))}</pre>")
        if trial.persisted:
            body.append("<p class='note'>Persisted across resets: " + esc("; ".join(trial.persisted)) + "</p>")
        body.append("<h4>Response</h4>")
        body.append(f"<pre>{esc(_shorten(response, limit, where)) if response is not None else '(no text)'}</pre>")
    body.append("<h4>Extracted observation Γ̂</h4>")
    body.append(observation_html(s.observation, response, words))
    body.append("<h4>Checks</h4>")
    body.append(_checks_html(failed, words))
    if s.second is not None:
        body.append(two_readers_html(s, observation_html(s.second.observation, response, words),
                                     reason=words.reason_html))
    body.append(_trace(failed, where))
    return (
        f"<details class='trial' data-run='{esc(failed.run)}' data-config='{esc(s.config)}' "
        f"data-category='{esc(s.category.value)}' data-checks='{esc(' '.join(checks))}' data-flags='{esc(' '.join(flags))}'"
        f"{_agreement_attribute(s)}>"
        f"<summary>{summary}</summary><div class='body'>{''.join(body)}</div></details>"
    )


def _agreement_attribute(score: ScoreRecord) -> str:
    """``data-agreement`` for a trial read by two readers (what the readers filter matches); none with one."""
    return f" data-agreement='{esc(score.agreement)}'" if score.agreement is not None else ""


def _select(element_id: str, label: str, options: Sequence[str], shown: Callable[[str], str] = str) -> str:
    opts = "".join(f"<option value='{esc(o)}'>{esc(shown(o))}</option>" for o in options)
    return f"<label>{esc(label)} <select id='{element_id}'><option value=''>all</option>{opts}</select></label>"


def _filters(runs: Sequence[LoadedRun], trials: Sequence[FailedTrial]) -> str:
    configs = sorted({t.score.config for t in trials})
    categories = sorted({t.score.category.value for t in trials})
    checks = sorted({c for t in trials for c in failed_checks(t.score)})
    agreements = agreement_filter_options(runs)
    return (
        "<div class='filters'>"
        "<label>search <input type='search' id='q' placeholder='words in trial id, envelope, response, reasons…'></label>"
        + _select("f-run", "run", [r.name for r in runs])
        + _select("f-config", "config.", configs, config_label)
        + _select("f-category", "category", categories, category_label)
        + _select("f-check", "failing check", checks)
        + _select("f-flag", "diagnostic", ["FMR", "TL", "UEL"])
        + (_select("f-agreement", "readers", agreements) if agreements else "")
        + "<button type='button' id='clear'>clear</button>"
        f"<span><b id='shown'>{len(trials)}</b> of <span id='listed'>{len(trials)}</span> listed</span>"
        "</div>"
    )


def _what_is_listed(runs: Sequence[LoadedRun], listed: Listed) -> str:
    names = ", ".join(f"<b>{esc(run.name)}</b>" for run in runs)
    across = f"across {len(runs)} run{'s' if len(runs) != 1 else ''} ({names}). "
    failed = f"{listed.failed:,} failed trial{'s' if listed.failed != 1 else ''} (completed, target verdict invalid)"
    if not any(has_two_readers(run) for run in runs):
        return f"{failed} {across}"
    return (f"{failed} and {listed.contested:,} contested (two readers' verdicts differ, the primary reader's "
            f"valid or not): {listed.total:,} trial{'s' if listed.total != 1 else ''} {across}"
            "Filter with <b>readers = contested</b> to see both readers' verdicts and the checks they differ on. ")


def drilldown(runs: Sequence[LoadedRun], trials: Sequence[FailedTrial], listed: Listed, cap: int) -> str:
    """The filter bar, the note on what is listed, and one ``<details class='trial'>`` per trial."""
    limit = _text_limit(trials)
    words = prop_words(runs)
    total = listed.total
    note = f"<p class='note'>{_what_is_listed(runs, listed)}"
    if len(trials) < total:
        note += (
            f"<b class='warn'>Showing {len(trials):,} of {total:,}</b>: the drill-down is capped at {cap:,} trials, "
            "picked round-robin over run × configuration × category so every failing group appears; "
            f"every trial is in {TRIALS_CSV} and the runs' scores.jsonl. "
        )
    if limit is not None:
        note += f"Texts longer than {limit:,} characters are shortened (head and tail kept) to keep the file small. "
    note += "Filters can be linked: e.g. <code>#config=A&amp;check=grounding</code>.</p>"
    note += _words_note(runs, words)
    body = "".join(_trial_html(t, limit, words[t.run]) for t in trials)
    if not trials:
        body = "<p class='note'>No failed trials.</p>"
    return _filters(runs, trials) + note + f"<div id='trials'>{body}</div>"


def _words_note(runs: Sequence[LoadedRun], words: dict[str, PropWords]) -> str:
    """Where the propositions' words come from, per run (one line when all runs share it)."""
    notes = {words[run.name].note for run in runs}
    if len(notes) == 1:
        return f"<p class='note props-source'>In the reasons and claims below, {esc(notes.pop())}.</p>"
    return "".join(f"<p class='note props-source'>{esc(run.name)}: {esc(words[run.name].note)}.</p>" for run in runs)
