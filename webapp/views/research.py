"""The Archive page's "Judges and matchups": Bradley-Terry ratings over side-swapped matchups (and
how they agree with a stored published leaderboard), the model-vs-model margins, judge agreement,
side bias and margin distributions per judge, and dropped-claim rates per model, all from
:mod:`debate_core.analysis.judgments` and :mod:`debate_core.analysis.ledger`.

:func:`research_tables` and :func:`dropped_table` compute over the whole archive (the page caches
them); the figures are built from their tables in the page's language, with every model and judge name
HTML-escaped for plotly (:func:`~webapp.views.common.plot_text`).  Nothing here imports streamlit;
plotly is imported inside the figure functions."""

from __future__ import annotations

import math
from typing import Any

from webapp.i18n import N_, _
from webapp.views.common import plot_frame, plot_text, safe_inline

RATING_COLUMNS = (N_("rank"), N_("model"), N_("name"), N_("rating"), "ci_low", "ci_high", N_("matchups"),
                  N_("score"), N_("judgments"))
BIAS_COLUMNS = (N_("judge"), N_("judgments"), "pro_wins", "con_wins", N_("ties"), "pro_win_rate",
                "ci_low", "ci_high", "mean_margin", N_("biased"))  # (field-like names: common.COLUMN_LABELS)
DROPPED_COLUMNS = (N_("model"), N_("name"), N_("debates"), N_("answerable"), N_("dropped"), "dropped_rate",
                   "claims_made", "own_dropped")
CHUNK = 200  # debates loaded at a time for the dropped-claim rates


def research_tables(archive: Any, *, bootstrap: int = 200) -> dict[str, Any]:
    """Everything the section shows, as tables (no figure, no translated text: cacheable as is).

    Keys: ``judgments`` (how many per-judge judgments), ``debates`` (how many judged debates),
    ``ratings`` (:func:`~debate_core.analysis.judgments.matchup_ratings`), ``published`` (the stored
    leaderboard's template, or "") and ``rank_agreement`` (``models``, ``spearman``, ``kendall``, or
    None), ``margin_mean`` / ``margin_count`` (row model over column model), ``agreement`` /
    ``common`` (judge x judge), ``side_bias`` and ``distribution`` (per judge)."""
    from debate_core.analysis import judgments as J

    frame = J.judgments_frame(archive)
    out: dict[str, Any] = {"judgments": int(len(frame)),
                           "debates": int(frame["debate_id"].nunique()) if len(frame) else 0}
    if not len(frame):
        return out
    names = J.model_names(archive)
    ratings = J.matchup_ratings(frame, names=names, complete_only=True, bootstrap=bootstrap)
    out["ratings"] = ratings
    published = J.leaderboard(archive)
    out["published"] = str(published["template"].iloc[0]) if len(published) else ""
    out["rank_agreement"] = J.rank_agreement(ratings, published) if len(published) and len(ratings) else None
    out["margin_mean"], out["margin_count"] = J.margin_matrix(frame, names=names)
    out["agreement"], out["common"] = J.agreement_matrix(frame)
    out["side_bias"] = J.side_bias(frame)
    out["distribution"] = J.margin_distribution(frame)
    return out


def dropped_table(archive: Any):
    """Dropped-claim rates per model (:func:`debate_core.analysis.ledger.dropped_rates`) over every
    debate of the archive with a claim structure; it reads every debate, :data:`CHUNK` at a time."""
    from debate_core.analysis import judgments as J
    from debate_core.analysis.ledger import dropped_rates

    ids = archive.debate_ids()

    def debates():
        for i in range(0, len(ids), CHUNK):
            yield from archive.get_debates(ids[i:i + CHUNK])

    return dropped_rates(debates(), names=J.model_names(archive))


def agreement_caption(tables: dict[str, Any]) -> str:
    """The rank correlation with the published leaderboard, as a sentence of Markdown ("" when none is
    stored); the leaderboard's template name comes from imported files, so it is neutralised."""
    ra = tables.get("rank_agreement")
    if not ra or not ra.get("models"):
        return ""
    if ra["models"] < 3 or any(isinstance(v, float) and math.isnan(v) for v in (ra["spearman"], ra["kendall"])):
        return _("Too few models in common with the published leaderboard ({template}) to compare ranks.").format(
            template=safe_inline(tables.get("published", "")))
    return _("Against the published leaderboard ({template}), over {n} models in common: Spearman {rho}, Kendall "
             "{tau}.").format(template=safe_inline(tables.get("published", "")), n=ra["models"],
                              rho=f"{ra['spearman']:.3f}", tau=f"{ra['kendall']:.3f}")


# -------------------------------------------------------------------- figures


def _layout(fig, height: int = 380):
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10), legend_title_text="")
    return fig


def _empty(title: str, note: str):
    import plotly.graph_objects as go

    fig = go.Figure()
    fig.update_layout(title=title, height=300, margin=dict(l=10, r=10, t=40, b=10),
                      annotations=[dict(text=note, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")],
                      xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig


def _cell_side(n: int) -> int:
    return int(min(900, max(320, 120 + 22 * n)))


def margin_heatmap(mean, count):
    """Mean signed margin of the row model over the column model (blue: the row model wins), the
    number of matchups in the hover."""
    import plotly.graph_objects as go

    title = _("Mean margin of the row model over the column model")
    if mean is None or not len(mean):
        return _empty(title, _("no margins recorded"))
    z = mean.to_numpy(float)
    lim = float(max(abs(v) for v in z.flatten() if v == v) or 1.0) if (z == z).any() else 1.0
    fig = go.Figure(go.Heatmap(
        z=z, x=[plot_text(m) for m in mean.columns], y=[plot_text(m) for m in mean.index],
        customdata=count.to_numpy(), zmid=0, zmin=-lim, zmax=lim,
        colorscale="RdBu", colorbar=dict(title=_("margin")),
        hovertemplate=_("%{y} over %{x}: %{z:.2f} (%{customdata} matchups)") + "<extra></extra>"))
    fig.update_xaxes(title=_("column model"), tickangle=-45)
    fig.update_yaxes(title=_("row model"), autorange="reversed")
    fig.update_layout(title=title)
    return _layout(fig, _cell_side(len(mean)))


def agreement_heatmap(share, common):
    """The share of common debates on which two judges named the same winner."""
    import plotly.graph_objects as go

    title = _("Judge agreement (same winner on common debates)")
    if share is None or not len(share):
        return _empty(title, _("no judgments"))
    fig = go.Figure(go.Heatmap(
        z=share.to_numpy(float), x=[plot_text(j) for j in share.columns], y=[plot_text(j) for j in share.index],
        customdata=common.to_numpy(),
        zmin=0, zmax=1, colorscale="Viridis", colorbar=dict(title=_("agreement")),
        hovertemplate=_("%{y} and %{x}: %{z:.0%} of %{customdata} common debates") + "<extra></extra>"))
    fig.update_xaxes(title=_("judge"), tickangle=-30)
    fig.update_yaxes(title=_("judge"), autorange="reversed")
    fig.update_layout(title=title)
    return _layout(fig, max(380, _cell_side(len(share)) - 60))


def side_bias_figure(bias):
    """Each judge's PRO win rate among decisive judgments with its Wilson interval; 0.5 is no bias."""
    import plotly.graph_objects as go

    title = _("PRO win rate per judge (95% Wilson interval)")
    df = bias.dropna(subset=["pro_win_rate"]) if bias is not None and len(bias) else None
    if df is None or not len(df):
        return _empty(title, _("no decisive judgment"))
    rate = df["pro_win_rate"].astype(float)
    fig = go.Figure(go.Scatter(
        x=[plot_text(j) for j in df["judge"]], y=rate, mode="markers",
        marker=dict(size=10, color=["#d62728" if b else "#1f77b4" for b in df["biased"]]),
        error_y=dict(type="data", symmetric=False, array=(df["ci_high"].astype(float) - rate).tolist(),
                     arrayminus=(rate - df["ci_low"].astype(float)).tolist()),
        customdata=df[["judgments", "pro_wins", "con_wins"]].to_numpy(),
        hovertemplate=_("%{x}: PRO won %{y:.0%} (%{customdata[1]} PRO, %{customdata[2]} CON of %{customdata[0]})")
        + "<extra></extra>", name=_("PRO win rate")))
    fig.add_hline(y=0.5, line=dict(color="#888888", dash="dash"),
                  annotation_text=_("no side bias"), annotation_position="bottom right")
    fig.update_yaxes(title=_("PRO win rate"), range=[0, 1], tickformat=".0%")
    fig.update_xaxes(title=_("judge"))
    fig.update_layout(title=title, showlegend=False)
    return _layout(fig)


def margin_distribution_figure(dist):
    """How each judge's absolute margins spread over bins (share of its judgments)."""
    import plotly.express as px

    title = _("Margins per judge (absolute margin)")
    if dist is None or not len(dist):
        return _empty(title, _("no margins recorded"))
    fig = px.bar(plot_frame(dist, "judge", "bin"), x="bin", y="share", color="judge", barmode="group",
                 hover_data=["count"], title=title,
                 labels={"bin": _("absolute margin"), "share": _("share of the judge's judgments"),
                         "judge": _("judge"), "count": _("judgments")})
    fig.update_yaxes(tickformat=".0%")
    return _layout(fig)
