"""Bradley-Terry ratings and win-rate tables from judged debates.

An *outcome* is one pairwise result: ``winner`` beat ``loser`` (or they tied) in
debate ``debate_id``.  A topic debate won by 辩手乙 gives one outcome against
every other debater; a trial gives one (a draw is a tie).  Items are what the
participants are compared by: their ``model``, their ``stance`` or their
``label``.  Two debaters with the same item (a degraded topic debate) yield no
outcome.

:func:`bradley_terry` fits strengths by maximum likelihood (Newton's method) with a
small prior (``prior`` virtual wins and as many losses per item, spread over the
other items) so that unbeaten or winless items stay finite, reports them on an Elo-like scale
(400·log10, centred on 1500), and gets percentile intervals from a bootstrap
over debates.  A tie counts as half a win for each side.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from debate_core.protocols import registry

OUTCOME_COLUMNS = ["debate_id", "batch_id", "protocol", "topic", "winner", "loser", "tie"]
RATING_COLUMNS = [
    "rank",
    "item",
    "rating",
    "ci_low",
    "ci_high",
    "wins",
    "losses",
    "ties",
    "games",
    "win_rate",
    "debates",
    "strength",
]
BY = ("model", "stance", "label")


# ------------------------------------------------------------------- outcomes


def _item(p: dict[str, Any], by: str) -> str:
    return str(p.get(by) or p.get("label") or "")


def outcomes_from_rows(rows: Iterable[dict[str, Any]], by: str = "model") -> pd.DataFrame:
    """Pairwise outcomes from rows with ``debate_id``, ``protocol``, ``participants`` (list of dicts
    with label/model/stance) and ``winner`` (a label, ``draw``, or None); optional ``batch_id``, ``topic``."""
    if by not in BY:
        raise ValueError(f"by must be one of {', '.join(BY)}, not {by!r}")
    out: list[dict[str, Any]] = []
    for r in rows:
        parts = r.get("participants") or []
        if isinstance(parts, str):
            parts = json.loads(parts)
        winner = r.get("winner")
        if not winner or not parts:
            continue
        base = {
            "debate_id": r.get("debate_id"),
            "batch_id": r.get("batch_id"),
            "protocol": r.get("protocol"),
            "topic": r.get("topic"),
        }
        if winner == "draw":
            items = [_item(p, by) for p in parts]
            for a, b in zip(items, items[1:], strict=False):
                if a != b:
                    out.append({**base, "winner": a, "loser": b, "tie": True})
            continue
        w = next((p for p in parts if p.get("label") == winner), None)
        if w is None:
            continue
        wi = _item(w, by)
        for p in parts:
            li = _item(p, by)
            if p is w or li == wi:
                continue
            out.append({**base, "winner": wi, "loser": li, "tie": False})
    return pd.DataFrame(out, columns=OUTCOME_COLUMNS)


def outcomes_from_debates(debates: Iterable[Any], by: str = "model") -> pd.DataFrame:
    """Outcomes from :class:`~debate_core.models.Debate` objects that have a parsed verdict."""
    rows = []
    for d in debates:
        v = d.verdict
        if v is None or not v.parsed:
            continue
        rows.append(
            {
                "debate_id": d.id,
                "batch_id": d.batch_id,
                "protocol": d.protocol,
                "topic": d.topic,
                "winner": v.winner,
                "participants": [p.model_dump() for p in d.participants],
            }
        )
    return outcomes_from_rows(rows, by)


def outcomes_from_archive(
    archive, by: str = "model", *, batch_id: str | None = None, protocol: str | None = None
) -> pd.DataFrame:
    """Outcomes of every completed judged debate in ``archive`` (optionally one batch / protocol)."""
    df = archive.judged_outcomes(registry.judged(), batch_id=batch_id, protocol=protocol)
    return outcomes_from_rows(df.to_dict(orient="records"), by)


# ---------------------------------------------------------------- the model


def _fit(items: list[str], wins: np.ndarray, games: np.ndarray, prior: float, max_iter: int, tol: float) -> np.ndarray:
    """Maximum-likelihood strengths p (geometric mean 1) by Newton's method on log p.

    ``prior`` virtual wins and as many virtual losses per item, spread evenly over the
    other items, keep every strength finite (an unbeaten item) and the comparison
    graph connected.
    """
    k = len(items)
    if k == 1:
        return np.ones(1)
    virtual = prior / (k - 1) * (np.ones((k, k)) - np.eye(k))
    w = wins + virtual
    n = w + w.T
    total = w.sum(axis=1)
    theta = np.zeros(k)
    for _ in range(max_iter):
        diff = theta[:, None] - theta[None, :]
        sig = 1.0 / (1.0 + np.exp(-diff))  # P(i beats j)
        grad = total - (n * sig).sum(axis=1)
        curv = n * sig * sig.T
        hess = np.diag(curv.sum(axis=1)) - curv  # minus the Hessian: positive semi-definite
        step = np.linalg.solve(hess + np.ones((k, k)) / k, grad)
        theta = theta + step
        theta -= theta.mean()
        if np.max(np.abs(step)) < tol:
            break
    return np.exp(theta)


def _encode(df: pd.DataFrame, items: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    idx = {it: i for i, it in enumerate(items)}
    return (
        df["winner"].map(idx).to_numpy(dtype=int),
        df["loser"].map(idx).to_numpy(dtype=int),
        df["tie"].astype(bool).to_numpy(),
    )


def _weighted(
    k: int, wi: np.ndarray, li: np.ndarray, tie: np.ndarray, weight: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(wins[i, j], games[i, j]) with ties as half a win each way; ``weight`` per outcome."""
    w = np.ones(len(wi)) if weight is None else weight
    wins = np.zeros((k, k))
    np.add.at(wins, (wi, li), np.where(tie, 0.5, 1.0) * w)
    np.add.at(wins, (li[tie], wi[tie]), 0.5 * w[tie])
    return wins, wins + wins.T


def _matrices(df: pd.DataFrame, items: list[str]) -> tuple[np.ndarray, np.ndarray]:
    if not len(df):
        k = len(items)
        return np.zeros((k, k)), np.zeros((k, k))
    return _weighted(len(items), *_encode(df, items))


def _scale(p: np.ndarray, present: np.ndarray | None = None) -> np.ndarray:
    logp = np.log10(p)
    mask = present if present is not None else np.ones(len(p), bool)
    center = logp[mask].mean() if mask.any() else 0.0
    return 1500.0 + 400.0 * (logp - center)


def bradley_terry(
    outcomes: pd.DataFrame,
    *,
    bootstrap: int = 200,
    ci: float = 0.95,
    seed: int = 0,
    prior: float = 1.0,
    max_iter: int = 100,
    tol: float = 1e-9,
) -> pd.DataFrame:
    """Bradley-Terry ratings with bootstrap intervals, best first.

    ``outcomes`` has columns ``winner``, ``loser`` and optionally ``tie`` (bool) and
    ``debate_id`` (the bootstrap resamples debates, so the outcomes of one debate stay
    together).  Returns columns: rank, item, rating (Elo-like, mean 1500), ci_low,
    ci_high, wins, losses, ties, games, win_rate, debates, strength (BT p, geometric mean 1).
    """
    if outcomes is None or len(outcomes) == 0:
        return pd.DataFrame(columns=RATING_COLUMNS)
    df = outcomes.copy()
    if "tie" not in df:
        df["tie"] = False
    df["tie"] = df["tie"].fillna(False).astype(bool)
    if "debate_id" not in df or df["debate_id"].isna().all():
        df["debate_id"] = np.arange(len(df))
    df["winner"] = df["winner"].astype(str)
    df["loser"] = df["loser"].astype(str)
    items = sorted(set(df["winner"]) | set(df["loser"]))
    wins, games = _matrices(df, items)
    p = _fit(items, wins, games, prior, max_iter, tol)
    rating = _scale(p)

    lo = np.full(len(items), np.nan)
    hi = np.full(len(items), np.nan)
    if bootstrap and bootstrap > 0:
        rng = np.random.default_rng(seed)
        wi, li, tie = _encode(df, items)
        group = pd.factorize(df["debate_id"])[0]
        n_groups = group.max() + 1
        samples = np.full((bootstrap, len(items)), np.nan)
        for b in range(bootstrap):
            counts = np.bincount(rng.integers(0, n_groups, n_groups), minlength=n_groups).astype(float)
            w_b, g_b = _weighted(len(items), wi, li, tie, counts[group])
            present = g_b.sum(axis=1) > 0
            r_b = _scale(_fit(items, w_b, g_b, prior, max_iter, tol * 1000), present)
            r_b[~present] = np.nan
            samples[b] = r_b
        alpha = (1 - ci) / 2
        with np.errstate(all="ignore"):
            lo = np.nanquantile(samples, alpha, axis=0)
            hi = np.nanquantile(samples, 1 - alpha, axis=0)

    n_wins = np.array([((df["winner"] == it) & ~df["tie"]).sum() for it in items])
    n_losses = np.array([((df["loser"] == it) & ~df["tie"]).sum() for it in items])
    n_ties = np.array([(((df["winner"] == it) | (df["loser"] == it)) & df["tie"]).sum() for it in items])
    n_games = n_wins + n_losses + n_ties
    n_debates = np.array([df.loc[(df["winner"] == it) | (df["loser"] == it), "debate_id"].nunique() for it in items])
    gm = np.exp(np.log(p).mean())
    table = pd.DataFrame(
        {
            "item": items,
            "rating": rating,
            "ci_low": lo,
            "ci_high": hi,
            "wins": n_wins,
            "losses": n_losses,
            "ties": n_ties,
            "games": n_games,
            "win_rate": (n_wins + 0.5 * n_ties) / np.maximum(n_games, 1),
            "debates": n_debates,
            "strength": p / gm,
        }
    )
    table = table.sort_values(["rating", "item"], ascending=[False, True]).reset_index(drop=True)
    table.insert(0, "rank", np.arange(1, len(table) + 1))
    for col in ("rating", "ci_low", "ci_high"):
        table[col] = table[col].round(1)
    table["win_rate"] = table["win_rate"].round(4)
    table["strength"] = table["strength"].round(4)
    return table[RATING_COLUMNS]


def win_probability(table: pd.DataFrame, a: str, b: str) -> float:
    """P(a beats b) under the fitted model."""
    s = table.set_index("item")["rating"]
    return float(1.0 / (1.0 + 10 ** ((s[b] - s[a]) / 400.0)))


def win_rate_table(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Row item's win rate against column item (ties count half); NaN where they never met.

    A final ``overall`` column holds each item's win rate over all its games."""
    if outcomes is None or len(outcomes) == 0:
        return pd.DataFrame()
    df = outcomes.copy()
    if "tie" not in df:
        df["tie"] = False
    df["tie"] = df["tie"].fillna(False).astype(bool)
    items = sorted(set(df["winner"].astype(str)) | set(df["loser"].astype(str)))
    wins, games = _matrices(df.assign(winner=df["winner"].astype(str), loser=df["loser"].astype(str)), items)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(games > 0, wins / games, np.nan)
        overall = wins.sum(axis=1) / games.sum(axis=1)
    table = pd.DataFrame(rate, index=pd.Index(items, name="item"), columns=items)
    table["overall"] = overall
    table["games"] = games.sum(axis=1).astype(int)
    return table.round(4)


def win_counts(outcomes: pd.DataFrame) -> pd.DataFrame:
    """Long form: item, opponent, wins, losses, ties, games, win_rate."""
    cols = ["item", "opponent", "wins", "losses", "ties", "games", "win_rate"]
    if outcomes is None or len(outcomes) == 0:
        return pd.DataFrame(columns=cols)
    df = outcomes.copy()
    if "tie" not in df:
        df["tie"] = False
    df["tie"] = df["tie"].fillna(False).astype(bool)
    rows: dict[tuple[str, str], list[int]] = {}
    for w, lo, t in zip(df["winner"].astype(str), df["loser"].astype(str), df["tie"], strict=True):
        for a, b, kind in ((w, lo, 2 if t else 0), (lo, w, 2 if t else 1)):
            rec = rows.setdefault((a, b), [0, 0, 0])
            rec[kind] += 1
    out = pd.DataFrame(
        [
            {"item": a, "opponent": b, "wins": r[0], "losses": r[1], "ties": r[2], "games": sum(r)}
            for (a, b), r in rows.items()
        ]
    )
    out["win_rate"] = ((out["wins"] + 0.5 * out["ties"]) / out["games"]).round(4)
    return out.sort_values(["item", "opponent"]).reset_index(drop=True)[cols]


def ratings_from_archive(
    archive,
    by: str = "model",
    *,
    batch_id: str | None = None,
    protocol: str | None = None,
    bootstrap: int = 200,
    ci: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Bradley-Terry ratings of models / stances / labels over the archive's judged debates."""
    outcomes = outcomes_from_archive(archive, by, batch_id=batch_id, protocol=protocol)
    return bradley_terry(outcomes, bootstrap=bootstrap, ci=ci, seed=seed)


def ratings_tables(archive, *, batch_id: str | None = None, bootstrap: int = 200) -> dict[str, pd.DataFrame]:
    """Everything an archive page shows about ratings, as DataFrames:

    ``models`` and ``stances`` (Bradley-Terry with intervals), ``model_win_rates``
    (row vs column) and ``outcomes`` (by model)."""
    by_model = outcomes_from_archive(archive, "model", batch_id=batch_id)
    by_stance = outcomes_from_archive(archive, "stance", batch_id=batch_id)
    return {
        "models": bradley_terry(by_model, bootstrap=bootstrap),
        "stances": bradley_terry(by_stance, bootstrap=bootstrap),
        "model_win_rates": win_rate_table(by_model),
        "outcomes": by_model,
    }


def ratings_figure(table: pd.DataFrame, title: str = "Bradley-Terry rating"):
    """A plotly bar chart of ratings with their bootstrap intervals (imports plotly lazily)."""
    import plotly.graph_objects as go

    t = table.sort_values("rating")
    err_hi = (t["ci_high"] - t["rating"]).fillna(0)
    err_lo = (t["rating"] - t["ci_low"]).fillna(0)
    fig = go.Figure(
        go.Bar(
            x=t["rating"],
            y=t["item"].astype(str),
            orientation="h",
            error_x=dict(type="data", array=err_hi, arrayminus=err_lo),
            text=[f"{w}-{lo}" for w, lo in zip(t["wins"], t["losses"], strict=True)],
            textposition="auto",
        )
    )
    fig.update_layout(
        title=title,
        xaxis_title="rating (1500 = average)",
        yaxis_title="",
        height=max(240, 40 * len(t) + 120),
        margin=dict(l=10, r=10, t=40, b=10),
    )
    return fig


__all__ = [
    "BY",
    "bradley_terry",
    "outcomes_from_archive",
    "outcomes_from_debates",
    "outcomes_from_rows",
    "ratings_figure",
    "ratings_from_archive",
    "ratings_tables",
    "win_counts",
    "win_probability",
    "win_rate_table",
]
