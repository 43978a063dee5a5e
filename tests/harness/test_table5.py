"""The paper's Table 5 on the reference pilot: deterministic mocks against the analytical bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitbench.cli._runs import execute_run, score_run
from sitbench.metrics import compute_metrics, load_scores


@pytest.fixture(scope="module")
def runs(pilot: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = {}
    root = tmp_path_factory.mktemp("table5")
    for name, model, handler in [("collapse", "mock/collapse", "native"), ("oracle", "mock/oracle", "native"),
                                 ("perfect", "mock/oracle", "perfect")]:
        run = root / name
        attempted, completed = execute_run(pilot, model, run, "all", handler)
        assert (attempted, completed) == (198, 198)
        score_run(run)
        out[name] = compute_metrics(load_scores(run))
    return out


def test_collapse_under_b_respects_the_profile_collision_bound(runs: dict[str, dict]) -> None:
    b = runs["collapse"]["B"]
    assert b.LAA is not None and b.LAA <= 0.5
    # Hand count: pair 1 correct only on Mara B's Kyoto probe (1 of 3 for one member, 0 for the other),
    # pair 2 only on Aoife A's Lisbon probe (1 of 2 and 0): LAA = (1/6 + 1/4) / 2 = 5/24.
    assert b.LAA == pytest.approx(5 / 24)
    assert b.IC_wrong == pytest.approx(5 / 24)  # the mirror image: the partner's contract accepts the same text
    assert b.IC_none == pytest.approx(1 - 10 / 24)
    # Profile-only text is identical in every configuration, so nothing changes across A–I.
    assert {runs["collapse"][c].LAA for c in "ABCDEFGHI"} == {b.LAA}


def test_oracle_under_i_is_perfect(runs: dict[str, dict]) -> None:
    i = runs["oracle"]["I"]
    assert i.macro_sit == pytest.approx(1.0)
    assert i.LAA == pytest.approx(1.0)
    assert (i.FMR, i.TL, i.UEL) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("config", list("DEFGH"))
def test_perfect_handlers_score_one(runs: dict[str, dict], config: str) -> None:
    m = runs["perfect"][config]
    assert m.macro_sit == pytest.approx(1.0)
    assert m.LAA == pytest.approx(1.0)


def test_profile_only_configs_cannot_attribute(runs: dict[str, dict]) -> None:
    for config in "BC":
        assert runs["oracle"][config].LAA == 0.0  # the oracle has no lineage evidence to go on
