"""The Archive page's Charts tab: bar charts over the whole archive, two at a time (one group of
:data:`CHART_GROUPS`), drawn by Streamlit's own Vega-Lite (``st.altair_chart``).

Issue 25 asks for the Archive's first chart in under 2 s.  A page with one Vega-Lite bar chart draws it
about 0.7 s sooner than the same page with a plotly chart (``bench/app_bench.py`` measures both, and the
Archive's first chart): the browser loads and parses Streamlit's plotly chunk, some 4.7 MB, before a first
plotly chart, and much less for a Vega-Lite one.  The other charts of the app (ratings with
their intervals, the judges' heatmaps, Outcome's scores and argument map) stay plotly.

Vega-Lite draws every label and legend entry as text on a canvas or in SVG text nodes, and its
tooltips escape HTML: the names here (models, masters, stances, rules) go in as they are, not
HTML-escaped as plotly's need (:func:`webapp.views.common.plot_frame`).  Nothing here imports
streamlit; altair is imported inside the functions."""

from __future__ import annotations

from typing import Any

from webapp.i18n import N_, _, ngettext

CHART_GROUPS = {  # the keys are msgids: the page shows them translated
    N_("Activity"): ("over_time", "rounds"),
    N_("Tokens & cost"): ("tokens", "cost"),
    N_("Check failures"): ("fail_rule", "fail_master"),
    N_("Winners (judged)"): ("win_stance", "win_model"),
}

OVER_TIME_TITLES = {"day": N_("Debates over time (per day)"), "week": N_("Debates over time (per week)"),
                    "month": N_("Debates over time (per month)")}
# a bar per bucket the query made (date_trunc in UTC), as wide as its bucket
_TIME_UNITS = {"day": "utcyearmonthdate", "week": "utcyearweek", "month": "utcyearmonth"}
HEIGHT = 380  # the whole chart (Streamlit fits the plot inside): title, tilted names and the legend included
LABEL_LIMIT = 120  # px: a longer name is cut with … on the axis (the tooltip shows it whole)


def archive_figures(archive: Any, group: str | None = None) -> dict[str, Any]:
    """The Archive page's charts over the whole archive: one group of :data:`CHART_GROUPS`, or all
    (:func:`archive_charts` without its notes)."""
    return archive_charts(archive, group)[0]


def chart_spec(chart: Any) -> dict:
    """A chart's Vega-Lite specification (its data inline), as the page sends it: for tests and notebooks."""
    return chart.to_dict()


def _over_time_freq(t) -> str:
    """Bars per day over a few weeks, per week over a year, per month beyond."""
    if not len(t):
        return "day"
    span = (t["period"].max() - t["period"].min()).days
    return "day" if span <= 45 else "week" if span <= 400 else "month"


def _names(df, column: str, mapping) -> Any:
    return df.assign(**{column: [mapping(v) for v in df[column]]})


def _rule_name(rule: Any) -> str:
    from debate_core.checks import registry as rules
    from webapp.i18n import current

    lang = current()
    text = rules.label(str(rule), lang)
    return text.replace("_", " ") if lang == "en" else text


def _tilted(values) -> bool:
    """Long or many category names: tilt them rather than let them overlap."""
    cats = {str(v) for v in values}
    return len(cats) > 6 or any(len(c) > 14 for c in cats)


def _category(field: str, title: str, values, sort: Any = None):
    """An x axis of names: titled, sorted as asked, its labels tilted when they are many or long."""
    import altair as alt

    axis = alt.Axis(labelAngle=-30 if _tilted(values) else 0, labelLimit=LABEL_LIMIT, labelOverlap=False)
    return alt.X(f"{field}:N", title=title, sort=sort, axis=axis)


def _count(field: str, title: str):
    """A y axis of counts: whole numbers only."""
    import altair as alt

    return alt.Y(field, title=title, axis=alt.Axis(format="d", tickMinStep=1))


def _legend(field: str, title: str, sort: Any = None):
    import altair as alt

    return alt.Color(f"{field}:N", title=title, sort=sort, legend=alt.Legend(orient="bottom", title=None))


def _chart(df, title: str):
    import altair as alt

    return alt.Chart(df, title=alt.Title(title, anchor="start")).properties(height=HEIGHT)


def _empty(title: str, note: str = ""):
    """A titled chart that says there is nothing to draw."""
    import altair as alt
    import pandas as pd

    note = note or _("nothing in the archive yet")
    return (alt.Chart(pd.DataFrame({"note": [note]}), title=alt.Title(title, anchor="start"))
            .mark_text(size=14, color="gray").encode(text="note:N").properties(height=HEIGHT))


def _protocol_name(name: Any) -> str:
    from webapp.views.archive import protocol_name

    return protocol_name(name)


def _model_names(archive: Any) -> dict[str, str]:
    from webapp.views.archive import _model_names as names

    return names(archive)


def archive_charts(archive: Any, group: str | None = None, lang: str | None = None
                   ) -> tuple[dict[str, Any], list[str]]:
    """(charts, notes): the Archive page's charts over the whole archive, as altair charts — one group of
    :data:`CHART_GROUPS`, or all — and one line per thing a chart leaves out (draws in the wins
    charts) or relabels.  Protocols, models (their display names), masters and rules are shown by
    name.  ``lang`` only keys the page's cache (the strings follow the language being rendered)."""
    import altair as alt
    import pandas as pd

    want = set(CHART_GROUPS.get(group, ())) if group else {k for v in CHART_GROUPS.values() for k in v}
    charts: dict[str, Any] = {}
    notes: list[str] = []
    tip_debates = alt.Tooltip("debates:Q", title=_("debates"))
    if want & {"over_time"}:
        t = archive.debates_over_time("day")
        if len(t):
            freq = _over_time_freq(t)
            if freq != "day":
                t = archive.debates_over_time(freq)
            t = _names(t.groupby(["period", "protocol"], as_index=False)["debates"].sum(), "protocol",
                       _protocol_name)
            unit, step = _TIME_UNITS[freq], pd.Timedelta(days={"day": 1, "week": 7, "month": 31}[freq])
            # a bucket of margin on each side (one day alone is not a bar as wide as the chart); ticks at most
            # one per bucket, so a day is not labelled three times
            domain = [(t["period"].min() - step).isoformat(), (t["period"].max() + 2 * step).isoformat()]
            axis = alt.Axis(format="%Y-%m-%d", labelAngle=0, tickCount={"interval": freq, "step": 1},
                            labelOverlap=True)
            charts["over_time"] = _chart(t, _(OVER_TIME_TITLES[freq])).mark_bar().encode(
                x=alt.X("period:T", timeUnit=unit, title=None, axis=axis, scale=alt.Scale(type="utc", domain=domain)),
                y=_count("debates:Q", _("debates")),
                color=_legend("protocol", _("protocol")),
                tooltip=[alt.Tooltip("period:T", timeUnit=unit, title=_("date"), format="%Y-%m-%d"),
                         alt.Tooltip("protocol:N", title=_("protocol")), tip_debates])
        else:
            charts["over_time"] = _empty(_("Debates over time"))

    if want & {"tokens", "cost"}:
        tok = archive.tokens_by_model()
        if len(tok) and (tok["tokens"].fillna(0).sum() > 0 or tok["cost"].fillna(0).sum() > 0):
            names = _model_names(archive)
            offline = tok["model"].isin(["offline", ""]) | tok["model"].isna()
            if offline.any():
                notes.append(_("The offline engine uses no tokens and costs nothing: it is not in the token and "
                               "cost charts."))
            tok = _names(tok[~offline], "model", lambda m: names.get(m, m))
            cached = tok["cached_tokens"].fillna(0) if "cached_tokens" in tok else 0
            parts = {_("input, cached"): cached, _("input, not cached"): tok["prompt_tokens"].fillna(0) - cached,
                     _("output"): tok["completion_tokens"].fillna(0)}
            order = list(parts)  # stacked from the bottom in this order
            long = pd.concat([pd.DataFrame({"model": tok["model"], "part": part, "rank": i,
                                            "tokens": pd.Series(v, index=tok.index)})
                              for i, (part, v) in enumerate(parts.items())], ignore_index=True)
            models = list(tok["model"])
            charts["tokens"] = _chart(long, _("Tokens by model")).mark_bar().encode(
                x=_category("model", _("model"), models, sort="-y"),
                y=alt.Y("sum(tokens):Q", title=_("tokens")),
                color=_legend("part", "", sort=order), order=alt.Order("rank:Q"),
                tooltip=[alt.Tooltip("model:N", title=_("model")), alt.Tooltip("part:N", title=_("tokens")),
                         alt.Tooltip("tokens:Q", title=_("tokens"), format=",")])
            charts["cost"] = _chart(tok[["model", "cost"]], _("Cost by model (USD)")).mark_bar().encode(
                x=_category("model", _("model"), models, sort="-y"),
                y=alt.Y("cost:Q", title=_("cost (USD)")),
                tooltip=[alt.Tooltip("model:N", title=_("model")),
                         alt.Tooltip("cost:Q", title=_("cost (USD)"), format=",.4f")])
        else:
            note = _("no tokens recorded yet (the offline engine uses none)")
            charts["tokens"] = _empty(_("Tokens by model"), note)
            charts["cost"] = _empty(_("Cost by model (USD)"), note)

    if want & {"rounds"}:
        r = archive.rounds_per_debate()
        if len(r):
            counts = r.assign(rounds=r["rounds"].fillna(0).astype("int64")).groupby(
                ["protocol", "rounds"], as_index=False).size().rename(columns={"size": "debates"})
            counts = _names(counts, "protocol", _protocol_name)
            charts["rounds"] = _chart(counts, _("Rounds per debate (rounds played)")).mark_bar().encode(
                x=alt.X("rounds:O", title=_("rounds played"), axis=alt.Axis(labelAngle=0)),
                xOffset=alt.XOffset("protocol:N"),
                y=_count("debates:Q", _("debates")),
                color=_legend("protocol", _("protocol")),
                tooltip=[alt.Tooltip("protocol:N", title=_("protocol")),
                         alt.Tooltip("rounds:O", title=_("rounds played")), tip_debates])
        else:
            charts["rounds"] = _empty(_("Rounds per debate"))

    if want & {"fail_rule", "fail_master"}:
        f = archive.check_failures()
        if len(f):
            f = _names(f, "rule", _rule_name)
            by_rule = f.groupby("rule", as_index=False)["count"].sum().sort_values("count", ascending=False)
            f = f.assign(master=f["speaker_name"].fillna(f["speaker"]))
            by_master = f.groupby(["master", "rule"], as_index=False)["count"].sum()
            tip_count = alt.Tooltip("count:Q", title=_("failed checks"))
            charts["fail_rule"] = _chart(by_rule, _("Check failures by rule")).mark_bar().encode(
                x=_category("rule", _("rule"), by_rule["rule"], sort="-y"),
                y=_count("count:Q", _("failed checks")),
                tooltip=[alt.Tooltip("rule:N", title=_("rule")), tip_count])
            charts["fail_master"] = _chart(by_master, _("Check failures by master")).mark_bar().encode(
                x=_category("master", _("master"), by_master["master"], sort="-y"),
                y=_count("sum(count):Q", _("failed checks")),
                color=_legend("rule", _("rule")),
                tooltip=[alt.Tooltip("master:N", title=_("master")), alt.Tooltip("rule:N", title=_("rule")),
                         tip_count])
        else:
            note = _("no failed check recorded")
            charts["fail_rule"] = _empty(_("Check failures by rule"), note)
            charts["fail_master"] = _empty(_("Check failures by master"), note)

    if want & {"win_stance", "win_model"}:
        w = archive.winners()
        draws = int((w["winner"] == "draw").sum()) if len(w) else 0
        w = w[w["winner"].notna() & (w["winner"] != "draw")] if len(w) else w
        if draws:
            notes.append(ngettext("{n} judged debate ended in a draw: nobody won, so it is not in the wins charts.",
                                  "{n} judged debates ended in a draw: nobody won, so they are not in the wins "
                                  "charts.", draws).format(n=draws))
        if len(w):
            names = _model_names(archive)
            none, unknown = _("(no stance)"), _("no model recorded")
            from webapp.views.chrome import stance_text

            w = w.assign(stance=[stance_text(x) for x in w["stance"].fillna(none).replace("", none)],
                         model=[names.get(m, m) if isinstance(m, str) and m else unknown for m in w["model"]],
                         protocol=[_protocol_name(p) for p in w["protocol"]])
            if (w["model"] == unknown).any():
                notes.append(_("\"no model recorded\": the winner's model is not in the archive (an imported "
                               "debate that did not name it)."))
            tip = [alt.Tooltip("protocol:N", title=_("protocol")), alt.Tooltip("wins:Q", title=_("wins"))]
            for key, field, axis, title in (
                    ("win_stance", "stance", _("stance"), _("Judged debates: wins by stance")),
                    ("win_model", "model", _("model"), _("Judged debates: wins by model"))):
                counts = w.groupby(["protocol", field], as_index=False).size().rename(columns={"size": "wins"})
                charts[key] = _chart(counts, title).mark_bar().encode(
                    x=_category(field, axis, counts[field], sort="-y"),
                    y=_count("sum(wins):Q", _("wins")),
                    color=_legend("protocol", _("protocol")),
                    tooltip=[alt.Tooltip(f"{field}:N", title=axis), *tip])
        else:
            note = _("no judged debate yet")
            charts["win_stance"] = _empty(_("Judged debates: wins by stance"), note)
            charts["win_model"] = _empty(_("Judged debates: wins by model"), note)
    return {k: v for k, v in charts.items() if k in want}, notes
