"""Bradley-Terry ratings and win-rate tables on synthetic outcomes with a known order."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from debate_core.models import Debate, DebateConfig, Participant, Verdict
from debate_core.analysis.ratings import (RATING_COLUMNS, bradley_terry, outcomes_from_debates, outcomes_from_rows,
                                 ratings_figure, win_counts, win_probability, win_rate_table)

TRUE = {"alpha": 4.0, "beta": 2.0, "gamma": 1.0, "delta": 0.5}


def synthetic(n: int = 1200, seed: int = 7, ties: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    items = list(TRUE)
    rows = []
    for i in range(n):
        a, b = rng.choice(items, 2, replace=False)
        if rng.random() < ties:
            rows.append({"debate_id": f"d{i}", "winner": a, "loser": b, "tie": True})
            continue
        pa = TRUE[a] / (TRUE[a] + TRUE[b])
        w, l = (a, b) if rng.random() < pa else (b, a)
        rows.append({"debate_id": f"d{i}", "winner": w, "loser": l, "tie": False})
    return pd.DataFrame(rows)


def test_known_order_and_strengths_are_recovered():
    table = bradley_terry(synthetic(), bootstrap=200, seed=1)
    assert list(table.columns) == RATING_COLUMNS
    assert list(table["item"]) == ["alpha", "beta", "gamma", "delta"] and list(table["rank"]) == [1, 2, 3, 4]
    # ratings are 400·log10 of strength: each true step is a factor 2 (about 120 points)
    steps = -np.diff(table["rating"].to_numpy())
    assert all(80 < s < 170 for s in steps), steps
    assert table["rating"].mean() == pytest.approx(1500, abs=0.2)
    # the intervals hold the estimate and separate the ends of the order
    assert (table["ci_low"] <= table["rating"]).all() and (table["rating"] <= table["ci_high"]).all()
    by = table.set_index("item")
    assert by.loc["alpha", "ci_low"] > by.loc["gamma", "ci_high"]
    assert by.loc["beta", "ci_low"] > by.loc["delta", "ci_high"]
    assert win_probability(table, "alpha", "delta") == pytest.approx(8 / 9, abs=0.05)
    assert table["games"].sum() == 2 * 1200 and table["strength"].prod() == pytest.approx(1.0, rel=1e-3)


def test_bootstrap_is_seeded_and_intervals_narrow_with_data():
    small, big = synthetic(150, seed=3), synthetic(1500, seed=3)
    a = bradley_terry(small, bootstrap=100, seed=5)
    b = bradley_terry(small, bootstrap=100, seed=5)
    pd.testing.assert_frame_equal(a, b)
    width = lambda t: (t["ci_high"] - t["ci_low"]).mean()  # noqa: E731
    assert width(bradley_terry(big, bootstrap=100, seed=5)) < width(a)


def test_unbeaten_items_stay_finite_and_ties_count_half():
    table = bradley_terry(pd.DataFrame([{"winner": "x", "loser": "y"}] * 6), bootstrap=20)
    assert list(table["item"]) == ["x", "y"] and all(math.isfinite(v) for v in table["rating"])
    assert table.iloc[0]["win_rate"] == 1.0
    tied = bradley_terry(pd.DataFrame([{"winner": "x", "loser": "y", "tie": True}] * 4), bootstrap=0)
    assert tied["rating"].tolist() == [1500.0, 1500.0] and tied["ties"].tolist() == [4, 4]
    assert tied["win_rate"].tolist() == [0.5, 0.5]
    assert bradley_terry(pd.DataFrame(columns=["winner", "loser"])).empty


def test_win_rate_tables():
    df = synthetic(400, ties=0.1)
    wide = win_rate_table(df)
    items = list(TRUE)
    for a in items:
        for b in items:
            if a != b:
                assert wide.loc[a, b] + wide.loc[b, a] == pytest.approx(1.0)
    assert wide.loc["alpha", "overall"] > wide.loc["delta", "overall"]
    long = win_counts(df)
    assert (long["games"] == long["wins"] + long["losses"] + long["ties"]).all()
    assert long["games"].sum() == 2 * len(df)


def _debate(i: int, models: list[str], stances: list[str], winner, protocol: str = "topic") -> Debate:
    labels = ["辩手甲", "辩手乙", "辩手丙"][:len(models)] if protocol == "topic" else ["pro", "con"]
    return Debate(id=f"d{i}", protocol=protocol, topic="t", status="completed",
                  participants=[Participant(label=lab, model=m, stance=s) for lab, m, s in zip(labels, models, stances)],
                  config=DebateConfig(protocol=protocol, topic="t"),
                  verdict=Verdict(winner=winner, parsed=winner is not None))


def test_outcomes_from_judged_debates():
    debates = [
        _debate(1, ["a", "b", "c"], ["S1", "S2", "S3"], "辩手乙"),   # b beats a and c
        _debate(2, ["a", "a"], ["S1", "S2"], "辩手甲"),               # degraded: no model outcome, a stance one
        _debate(3, ["a", "b"], ["支持", "反对"], "draw", "trial"),     # a tie
        _debate(4, ["a", "b"], ["S1", "S2"], None),                   # unparsed verdict: nothing
    ]
    by_model = outcomes_from_debates(debates, "model")
    assert sorted(zip(by_model["winner"], by_model["loser"], by_model["tie"])) == [
        ("a", "b", True), ("b", "a", False), ("b", "c", False)]
    by_stance = outcomes_from_debates(debates, "stance")
    assert ("S1", "S2", False) in set(zip(by_stance["winner"], by_stance["loser"], by_stance["tie"]))
    with pytest.raises(ValueError, match="by must be"):
        outcomes_from_rows([], by="color")


def test_figure_has_one_bar_per_item():
    fig = ratings_figure(bradley_terry(synthetic(200), bootstrap=20))
    assert len(fig.data) == 1 and len(fig.data[0].y) == 4


names = st.sampled_from(["a", "b", "c", "d"])
games = st.lists(st.tuples(names, names).filter(lambda t: t[0] != t[1]), min_size=1, max_size=40)


@settings(max_examples=40, deadline=None)
@given(games, st.tuples(names, names).filter(lambda t: t[0] != t[1]))
def test_one_more_win_never_lowers_a_rating_against_that_opponent(rows, extra):
    df = pd.DataFrame([{"winner": w, "loser": l} for w, l in rows])
    before = bradley_terry(df, bootstrap=0).set_index("item")["rating"]
    after = bradley_terry(pd.concat([df, pd.DataFrame([{"winner": extra[0], "loser": extra[1]}])],
                                    ignore_index=True), bootstrap=0).set_index("item")["rating"]
    gap = lambda r: r.get(extra[0], 1500.0) - r.get(extra[1], 1500.0)  # noqa: E731
    assert gap(after) >= gap(before) - 1e-6
    assert after.mean() == pytest.approx(1500.0, abs=0.1)  # ratings are rounded to 0.1
