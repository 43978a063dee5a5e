"""E6: the named offline tokenizer, budgeted G, and token scaling of D vs budgeted G.

The pilot's histories have 9–12 records; longer ones are synthesized by repeating each
subject's records with dates shifted back by 400 days per copy, so every copy precedes
the queries and G shows it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from sitbench.configs import (
    BUDGETED_G,
    TOKENIZER_NAME,
    BuildContext,
    build_budgeted_prompt,
    build_prompt,
    count_prompt_tokens,
    wordpiece_counter,
)
from sitbench.data import pilot_content, visible_evidence
from sitbench.errors import InputError
from sitbench.schema import Query, SubjectEvidence
from sitbench.stats import e6_token_scaling, truncate_history


@pytest.fixture(scope="module")
def pilot() -> tuple[dict[str, SubjectEvidence], list[Query]]:
    content = pilot_content()
    subjects = {lineage.subject: visible_evidence(lineage, content.registry) for lineage in content.lineages}
    return subjects, list(content.queries)


def longer(subject: SubjectEvidence, copies: int) -> SubjectEvidence:
    records = [r.model_copy(update={"t": r.t - dt.timedelta(days=400 * j)})
               for j in range(copies) for r in subject.records]
    return subject.model_copy(update={"records": sorted(records, key=lambda r: r.t)})


def last(query: Query) -> int:
    return len(query.turns) - 1


def test_tokenizer_is_offline_wordpiece_without_truncation() -> None:
    counter = wordpiece_counter()
    assert counter.name.startswith(TOKENIZER_NAME)
    # By hand: [ date : 2020 - 01 - 01 ] = 9 pieces; "unbelievably" = un ##bel ##ie ##va ##bly = 5.
    assert counter.count("[DATE: 2020-01-01] unbelievably") == 14
    # The shipped file truncates at 128 for the embedder; counts must not.
    assert counter.count("word " * 300) == 300
    assert counter.describe()["sha256"] == counter.sha256 and len(counter.sha256) == 64


def test_ample_budget_is_exactly_configuration_g(pilot) -> None:
    subjects, queries = pilot
    for query in queries:
        subject = subjects[query.subject]
        plain = build_prompt("G", subject, query, last(query), BuildContext())
        budgeted = build_budgeted_prompt(subject, query, last(query), BuildContext())
        assert budgeted.build.messages == plain.messages
        record = budgeted.record
        assert record.dropped == [] and record.fits
        assert record.tokens == record.tokens_unbudgeted == count_prompt_tokens(plain.messages)
        assert record.items_kept == record.items_total
        assert budgeted.build.view["config"] == BUDGETED_G


def test_binding_budget_drops_oldest_memories_first_and_keeps_the_most(pilot) -> None:
    subjects, queries = pilot
    query = queries[0]
    subject = subjects[query.subject]
    budget = 600
    result = build_budgeted_prompt(subject, query, last(query), BuildContext(), budget=budget)
    record = result.record
    assert record.fits and record.tokens <= budget < record.tokens_unbudgeted
    assert record.tokens == count_prompt_tokens(result.build.messages)
    dropped = [(d.section, d.index) for d in record.dropped]
    # Memories go first, oldest first: exactly the first len(dropped) records in chronicle order.
    assert dropped == [("memories", i) for i in range(len(dropped))]
    assert record.items_kept == record.items_total - len(dropped)
    # Maximal: giving back the last dropped record (independently built as plain G) overflows.
    fewer = subject.model_copy(update={"records": subject.records[len(dropped) - 1:]})
    assert count_prompt_tokens(build_prompt("G", fewer, query, last(query), BuildContext()).messages) > budget
    # The envelope is always whole.
    assert query.turns[-1].utterance in result.build.messages[-1].content
    # Deterministic record.
    assert build_budgeted_prompt(subject, query, last(query), BuildContext(), budget=budget).record == record


def test_structured_pointers_go_after_every_memory(pilot) -> None:
    subjects, queries = pilot
    query = queries[0]
    subject = subjects[query.subject]
    record = build_budgeted_prompt(subject, query, last(query), BuildContext(), budget=320).record
    sections = [d.section for d in record.dropped]
    memories = sections.count("memories")
    assert memories == sum(r.t <= query.tau for r in subject.records)
    assert sections[:memories] == ["memories"] * memories
    assert "acquisitions" in sections  # 320 also needs the acquisitions gone
    order = {"memories": 0, "acquisitions": 1, "beliefs": 2, "relationships": 3}
    assert [order[s] for s in sections] == sorted(order[s] for s in sections)


def test_frame_over_budget_drops_everything_but_never_the_envelope(pilot) -> None:
    subjects, queries = pilot
    query = queries[0]
    result = build_budgeted_prompt(subjects[query.subject], query, last(query), BuildContext(), budget=50)
    record = result.record
    assert not record.fits and record.items_kept == 0
    assert record.tokens == record.frame_tokens > 50
    assert query.turns[-1].utterance in result.build.messages[-1].content
    with pytest.raises(InputError, match="budget"):
        build_budgeted_prompt(subjects[query.subject], query, last(query), BuildContext(), budget=0)


def test_truncate_history_cuts_records_and_later_state(pilot) -> None:
    subjects, _ = pilot
    subject = next(s for s in subjects.values() if s.beliefs)
    cut = truncate_history(subject, 3)
    end = subject.records[2].t
    assert cut.records == subject.records[:3]
    assert all(a.t <= end for a in cut.acquisitions)
    assert len(cut.acquisitions) == sum(a.t <= end for a in subject.acquisitions)
    assert all(s.t <= end for b in cut.beliefs for s in b.stances)
    assert all(v.t <= end for r in cut.relationships for v in r.versions)
    with pytest.raises(InputError, match="fewer than T = 500"):
        truncate_history(subject, 500)


def test_token_scaling_d_grows_and_budgeted_g_stays_under_b(pilot) -> None:
    subjects, queries = pilot
    long = {key: longer(subject, 60) for key, subject in subjects.items()}
    chosen = [next(q for q in queries if q.subject == key) for key in sorted(long)]
    result = e6_token_scaling(long, chosen)
    assert result.tokenizer.startswith(TOKENIZER_NAME) and result.budget == 4096
    assert result.configs == ["D", BUDGETED_G]
    assert [row.history_length for row in result.lengths] == [50, 100, 250, 500]
    means = [row.mean_d for row in result.lengths]
    assert means == sorted(means) and len(set(means)) == 4
    # Chronicle growth is linear in T: tokens per added event agree between 50→100 and 250→500.
    rows = {row.history_length: row for row in result.lengths}
    per_event_low = (rows[100].mean_d - rows[50].mean_d) / 50
    per_event_high = (rows[500].mean_d - rows[250].mean_d) / 250
    assert per_event_high == pytest.approx(per_event_low, rel=0.1)
    for row in result.lengths:
        assert row.n_queries == len(chosen) and row.over_budget == 0
        assert row.max_g_budget <= 4096
        assert row.mean_difference == pytest.approx(row.mean_g_budget - row.mean_d)
    # At T = 500 the unbudgeted state is far above B and the budget binds; D is about five times B.
    assert rows[500].mean_g > 4096 and rows[500].mean_dropped > 0
    assert rows[500].mean_g_budget < rows[500].mean_d
    # Each count is the D prompt built independently on the truncated history.
    query = chosen[0]
    d = build_prompt("D", truncate_history(long[query.subject], 250), query, last(query), BuildContext())
    assert rows[250].d_tokens[0] == count_prompt_tokens(d.messages)


def test_token_scaling_input_errors(pilot) -> None:
    subjects, queries = pilot
    with pytest.raises(InputError, match="fewer than T = 50"):
        e6_token_scaling(subjects, queries[:1])
    with pytest.raises(InputError, match="no evidence"):
        e6_token_scaling({}, queries[:1], lengths=(5,))
    with pytest.raises(InputError, match="queries"):
        e6_token_scaling(subjects, [], lengths=(5,))


def test_tokens_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from sitbench.cli import main
    from sitbench.data import write_dataset

    write_dataset(pilot_content(), tmp_path / "pilot")
    assert main(["stats", "tokens", str(tmp_path / "pilot"), "--lengths", "9,5", "--budget", "500", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["history_length"] for row in data["lengths"]] == [5, 9]
    assert data["budget"] == 500 and data["tokenizer"].startswith(TOKENIZER_NAME)
    assert all(row["max_g_budget"] <= 500 and row["n_queries"] == 22 for row in data["lengths"])
    assert main(["stats", "tokens", str(tmp_path / "pilot"), "--lengths", "50"]) == 2
    assert "fewer than T = 50" in capsys.readouterr().err
