"""Per-judge judgments: ratings over side-swapped matchups, judge agreement, side bias, margins.

A *judgment* is one judge's decision on one two-sided debate: which side won (pro / con /
tie) and, where the source gives it, a signed margin (PRO positive).  They come from
imported benchmark panels (the ``judgments`` table), from our own judge audits
(``audit_judgments``, the unaltered variant) and from our own trials' verdicts.  Every
function here takes the frame :func:`judgments_frame` returns, so a notebook can build
one from anything with the same columns (:data:`COLUMNS`).

*Side-swap aware*: debates between the same two models on the same topic with the sides
reversed form one group (the benchmark names its groups; for our own debates the group is
topic + the two models).  :func:`matchup_ratings` fits Bradley-Terry over matchups: each
group gives each of its two models the share of judge decisions it won over both debates
(a tie counts half), so a model is credited for both sides it argued, and the bootstrap
resamples whole groups.  ``complete_only`` keeps the groups in which each model argued
both sides, as the benchmark's published leaderboard does.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd

from debate_core.analysis.ratings import _fit, _scale
from debate_core.protocols import registry

COLUMNS = [
    "debate_id",
    "group",
    "topic",
    "protocol",
    "judge",
    "winner",
    "margin",
    "normalized",
    "entertainment",
    "pro",
    "con",
    "template",
]
MATCHUP_COLUMNS = ["group", "a", "b", "a_score", "judgments", "debates", "complete", "a_margin"]


# ------------------------------------------------------------------- the frame


def _sides(participants: Any) -> tuple[str | None, str | None]:
    parts = json.loads(participants) if isinstance(participants, str) else (participants or [])
    by = {p.get("label"): p.get("model") or p.get("name") for p in parts}
    return by.get("pro"), by.get("con")


def judgments_frame(
    archive, *, protocol: str | None = None, template: str | None = None, include_own: bool = True
) -> pd.DataFrame:
    """Every per-judge judgment of a two-sided (pro / con) debate in ``archive``, one row each.

    Imported panels come first; with ``include_own`` our own judged debates with pro / con sides
    (trials) add their stored verdict
    (judge: the verdict's judge) and their judge audits' unaltered variant, one row per
    (debate, judge)."""
    stored = archive.judgment_rows(own_protocols=registry.judged() if include_own else ())
    rows = []
    seen: set[tuple[str, str]] = set()
    for r in stored:
        key = (r[0], r[4])
        if key in seen:
            continue
        seen.add(key)
        pro, con = _sides(r[9])
        if not pro or not con:
            continue
        winner = {"draw": "tie"}.get(r[5], r[5])
        if winner not in ("pro", "con", "tie"):
            continue
        rows.append(
            {
                "debate_id": r[0],
                "group": r[1],
                "topic": r[2],
                "protocol": r[3],
                "judge": r[4],
                "winner": winner,
                "margin": r[6],
                "normalized": r[7],
                "entertainment": r[8],
                "pro": pro,
                "con": con,
                "template": r[10],
            }
        )
    df = pd.DataFrame(rows, columns=COLUMNS)
    if protocol:
        df = df[df["protocol"] == protocol]
    if template:
        df = df[df["template"] == template]
    if len(df):
        pair = [tuple(sorted(p)) for p in zip(df["pro"], df["con"], strict=True)]
        own_group = [f"{t}\x1f{a}\x1f{b}" for t, (a, b) in zip(df["topic"], pair, strict=True)]
        df["group"] = [g if isinstance(g, str) and g else o for g, o in zip(df["group"], own_group, strict=True)]
    return df.reset_index(drop=True)


def model_names(archive) -> dict[str, str]:
    """The display names sources gave their models (model -> name)."""
    return archive.model_names()


# ------------------------------------------------------------------ matchups


def matchups(judgments: pd.DataFrame) -> pd.DataFrame:
    """One row per side-swap group: models ``a`` < ``b``, ``a_score`` (the share of judge decisions
    ``a`` won over the group's debates, ties half), how many judgments and debates, whether each
    model argued both sides (``complete``), and ``a``'s mean signed normalized margin."""
    if judgments is None or not len(judgments):
        return pd.DataFrame(columns=MATCHUP_COLUMNS)
    j = judgments[judgments["pro"] != judgments["con"]]
    pro, con, win = j["pro"].to_numpy(str), j["con"].to_numpy(str), j["winner"].to_numpy(str)
    a = np.where(pro < con, pro, con)
    b = np.where(pro < con, con, pro)
    a_is_pro = pro == a
    a_won = np.where(win == "tie", 0.5, np.where((win == "pro") == a_is_pro, 1.0, 0.0))
    margin = pd.to_numeric(j["normalized"].fillna(j["margin"]), errors="coerce").to_numpy(float)
    a_margin = np.where(a_is_pro, margin, -margin)
    frame = pd.DataFrame(
        {
            "group": j["group"].to_numpy(),
            "a": a,
            "b": b,
            "a_won": a_won,
            "a_margin": a_margin,
            "debate_id": j["debate_id"].to_numpy(),
            "a_pro": a_is_pro,
        }
    )
    g = frame.groupby(["group", "a", "b"], sort=False)
    out = g.agg(
        a_score=("a_won", "mean"),
        judgments=("a_won", "size"),
        debates=("debate_id", "nunique"),
        sides=("a_pro", "nunique"),
        a_margin=("a_margin", "mean"),
    ).reset_index()
    out["complete"] = out["sides"] == 2
    return out[MATCHUP_COLUMNS]


def matchup_ratings(
    judgments: pd.DataFrame,
    *,
    complete_only: bool = True,
    names: dict[str, str] | None = None,
    bootstrap: int = 200,
    ci: float = 0.95,
    seed: int = 0,
    prior: float = 1.0,
) -> pd.DataFrame:
    """Bradley-Terry ratings by model over side-swapped matchups, with bootstrap intervals.

    Each matchup (group) is one comparison worth its ``a_score`` to ``a`` and the rest to ``b``.
    Columns: rank, model, name (the source's display name where it gives one), rating (Elo-like,
    mean 1500), ci_low, ci_high, matchups, score (mean matchup score), judgments."""
    m = matchups(judgments)
    if complete_only:
        m = m[m["complete"]]
    cols = ["rank", "model", "name", "rating", "ci_low", "ci_high", "matchups", "score", "judgments"]
    if not len(m):
        return pd.DataFrame(columns=cols)
    items = sorted(set(m["a"]) | set(m["b"]))
    idx = {it: i for i, it in enumerate(items)}
    ai = m["a"].map(idx).to_numpy(int)
    bi = m["b"].map(idx).to_numpy(int)
    s = m["a_score"].to_numpy(float)
    k = len(items)

    def fit(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        wins = np.zeros((k, k))
        np.add.at(wins, (ai, bi), s * weight)
        np.add.at(wins, (bi, ai), (1 - s) * weight)
        return _fit(items, wins, wins + wins.T, prior, 100, 1e-9), (wins + wins.T).sum(axis=1) > 0

    p, _ = fit(np.ones(len(m)))
    rating = _scale(p)
    lo = hi = np.full(k, np.nan)
    if bootstrap:
        rng = np.random.default_rng(seed)
        samples = np.full((bootstrap, k), np.nan)
        for t in range(bootstrap):
            w = np.bincount(rng.integers(0, len(m), len(m)), minlength=len(m)).astype(float)
            p_b, present = fit(w)
            r_b = _scale(p_b, present)
            r_b[~present] = np.nan
            samples[t] = r_b
        alpha = (1 - ci) / 2
        with np.errstate(all="ignore"):
            lo, hi = np.nanquantile(samples, alpha, axis=0), np.nanquantile(samples, 1 - alpha, axis=0)
    n = np.bincount(ai, minlength=k) + np.bincount(bi, minlength=k)
    score = (np.bincount(ai, s, minlength=k) + np.bincount(bi, 1 - s, minlength=k)) / np.maximum(n, 1)
    nj = m["judgments"].to_numpy(float)
    judg = np.bincount(ai, nj, minlength=k) + np.bincount(bi, nj, minlength=k)
    names = names or {}
    table = pd.DataFrame(
        {
            "model": items,
            "name": [names.get(it, it) for it in items],
            "rating": rating.round(1),
            "ci_low": np.round(lo, 1),
            "ci_high": np.round(hi, 1),
            "matchups": n,
            "score": score.round(4),
            "judgments": judg.astype(int),
        }
    )
    table = table.sort_values(["rating", "model"], ascending=[False, True]).reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    return table[cols]


def margin_matrix(
    judgments: pd.DataFrame, *, names: dict[str, str] | None = None, complete_only: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(mean signed margin of the row model over the column model, number of matchups): the
    model-vs-model heatmap.  A margin is the normalized one where the source gives it."""
    m = matchups(judgments)
    if complete_only:
        m = m[m["complete"]]
    m = m.dropna(subset=["a_margin"])
    if not len(m):
        empty = pd.DataFrame()
        return empty, empty
    both = pd.concat(
        [
            m[["a", "b", "a_margin"]].rename(columns={"a": "row", "b": "col", "a_margin": "v"}),
            m[["a", "b", "a_margin"]]
            .assign(a_margin=-m["a_margin"])
            .rename(columns={"b": "row", "a": "col", "a_margin": "v"}),
        ]
    )
    names = names or {}
    both["row"] = both["row"].map(lambda x: names.get(x, x))
    both["col"] = both["col"].map(lambda x: names.get(x, x))
    mean = both.pivot_table(index="row", columns="col", values="v", aggfunc="mean")
    count = both.pivot_table(index="row", columns="col", values="v", aggfunc="size")
    order = mean.mean(axis=1).sort_values(ascending=False).index
    return mean.reindex(index=order, columns=order).round(3), count.reindex(index=order, columns=order)


# ------------------------------------------------------------------- judges


def agreement_matrix(judgments: pd.DataFrame, *, min_common: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(share of common debates on which two judges named the same winner, number of common debates).

    Judges are compared on the debates both judged; the diagonal is 1.  Cells with fewer
    than ``min_common`` common debates are NaN."""
    if judgments is None or not len(judgments):
        return pd.DataFrame(), pd.DataFrame()
    wide = judgments.drop_duplicates(["debate_id", "judge"]).pivot(index="debate_id", columns="judge", values="winner")
    judges = sorted(wide.columns)
    codes = {"pro": 1, "con": 2, "tie": 3}
    arr = wide[judges].apply(lambda c: c.map(codes)).to_numpy(float)  # NaN where a judge did not judge
    present = ~np.isnan(arr)
    common = present.T.astype(int) @ present.astype(int)
    agree = np.zeros((len(judges), len(judges)))
    for v in (1, 2, 3):
        hit = (arr == v).astype(int)
        agree += hit.T @ hit
    with np.errstate(all="ignore"):
        share = np.where(common >= max(min_common, 1), agree / common, np.nan)
    return (
        pd.DataFrame(share, index=judges, columns=judges).round(3),
        pd.DataFrame(common, index=judges, columns=judges),
    )


def side_bias(judgments: pd.DataFrame, *, z: float = 1.96) -> pd.DataFrame:
    """Per judge: how often the side presented first (PRO) wins among decisive judgments, with a
    Wilson interval; a judge without side bias sits near 0.5 on side-swapped debates.  Also the
    mean signed margin (PRO positive) and the tie share."""
    cols = [
        "judge",
        "judgments",
        "pro_wins",
        "con_wins",
        "ties",
        "pro_win_rate",
        "ci_low",
        "ci_high",
        "mean_margin",
        "biased",
    ]
    if judgments is None or not len(judgments):
        return pd.DataFrame(columns=cols)
    rows = []
    for judge, g in judgments.groupby("judge"):
        pw, cw, t = (
            int((g["winner"] == "pro").sum()),
            int((g["winner"] == "con").sum()),
            int((g["winner"] == "tie").sum()),
        )
        n = pw + cw
        rate = pw / n if n else np.nan
        if n:
            centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
            half = z * np.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
            lo, hi = centre - half, centre + half
        else:
            lo = hi = np.nan
        margin = pd.to_numeric(g["normalized"].fillna(g["margin"]), errors="coerce").mean()
        rows.append(
            {
                "judge": judge,
                "judgments": len(g),
                "pro_wins": pw,
                "con_wins": cw,
                "ties": t,
                "pro_win_rate": round(rate, 4) if n else np.nan,
                "ci_low": round(lo, 4) if n else np.nan,
                "ci_high": round(hi, 4) if n else np.nan,
                "mean_margin": round(float(margin), 3) if margin == margin else np.nan,
                "biased": bool(n and (lo > 0.5 or hi < 0.5)),
            }
        )
    return pd.DataFrame(rows, columns=cols).sort_values("judgments", ascending=False).reset_index(drop=True)


def margin_distribution(judgments: pd.DataFrame, *, bins: list[float] | None = None) -> pd.DataFrame:
    """Per judge, how many judgments fall in each bin of the absolute margin (normalized where the
    source gives it): long form ``judge, bin, count, share``."""
    if judgments is None or not len(judgments):
        return pd.DataFrame(columns=["judge", "bin", "count", "share"])
    margin = pd.to_numeric(judgments["normalized"].fillna(judgments["margin"]), errors="coerce").abs()
    df = pd.DataFrame({"judge": judgments["judge"], "m": margin}).dropna()
    if not len(df):
        return pd.DataFrame(columns=["judge", "bin", "count", "share"])
    edges = bins or [0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, float("inf")]
    labels = [f"{lo:g}–{hi:g}" if hi != float("inf") else f"≥{lo:g}" for lo, hi in zip(edges, edges[1:], strict=False)]
    df["bin"] = pd.cut(df["m"], edges, labels=labels, right=False, include_lowest=True)
    out = df.groupby(["judge", "bin"], observed=False).size().rename("count").reset_index()
    out["share"] = (out["count"] / out.groupby("judge")["count"].transform("sum")).round(4)
    out["bin"] = out["bin"].astype(str)
    return out


# ------------------------------------------------------- published leaderboards


def leaderboard(archive, *, template: str | None = None) -> pd.DataFrame:
    """A published leaderboard stored by an import (rank, model, rating), the newest template if
    none is named."""
    df = archive.leaderboards()
    if not len(df):
        return df
    template = template or df["template"].iloc[0]
    return df[df["template"] == template].sort_values("rank").reset_index(drop=True)


def _ranks(x: np.ndarray) -> np.ndarray:
    return pd.Series(x).rank(method="average").to_numpy()


def rank_agreement(ours: pd.DataFrame, published: pd.DataFrame) -> dict[str, Any]:
    """Spearman's rho and Kendall's tau-b between our order and a published one, over the models
    both rank (matched by display name, else by model id)."""
    pub = dict(zip(published["model"], published["rank"], strict=True))
    pairs = [(r["rank"], pub.get(r["name"], pub.get(r["model"]))) for _, r in ours.iterrows()]
    pairs = [(a, b) for a, b in pairs if b is not None]
    n = len(pairs)
    if n < 3:
        return {"models": n, "spearman": float("nan"), "kendall": float("nan")}
    a = _ranks(np.array([p[0] for p in pairs], float))
    b = _ranks(np.array([p[1] for p in pairs], float))
    rho = float(np.corrcoef(a, b)[0, 1])
    da = np.sign(a[:, None] - a[None, :])
    db = np.sign(b[:, None] - b[None, :])
    conc = (da * db).sum() / 2
    ta = (da != 0).sum() / 2
    tb = (db != 0).sum() / 2
    tau = float(conc / np.sqrt(ta * tb)) if ta and tb else float("nan")
    return {"models": n, "spearman": round(rho, 4), "kendall": round(tau, 4)}
