"""Archive: filter the debates, open one in Outcome, charts, the read-only SQL box, imports."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _, ngettext

ANY = N_("(any)")


def filters(arc) -> dict:
    opts = views.filter_options(arc)
    any_ = lambda v: _(ANY) if v == ANY else v  # noqa: E731
    c = st.columns(5)
    protocol = c[0].selectbox(_("Protocol"), [ANY] + opts["protocol"], key="f_protocol", format_func=any_)
    master = c[1].selectbox(_("Master"), [ANY] + opts["master"], key="f_master", format_func=any_)
    model = c[2].selectbox(_("Model"), [ANY] + opts["model"], key="f_model", format_func=any_)
    status = c[3].selectbox(_("Status"), [ANY] + opts["status"], key="f_status",
                            format_func=lambda v: any_(v) if v == ANY else views.status_text(v))
    lang = c[4].selectbox(_("Debate language"), [ANY, "zh", "en"], key="f_lang",
                          format_func=lambda v: any_(v) if v == ANY else views.debate_language_label(v))
    c = st.columns([1, 1, 2])
    date_from = c[0].date_input(_("From"), value=None, key="f_from")
    date_to = c[1].date_input(_("To"), value=None, key="f_to")
    text = c[2].text_input(_("Text in the topic or the speeches"), key="f_text")
    return dict(protocol=protocol, master=master, model=model, status=status, date_from=date_from,
                date_to=date_to, text=text, lang=lang)


def table(arc, f: dict) -> None:
    df = views.find_debates(arc, **f)
    st.caption(ngettext("{n} debate, newest first (at most 500 shown). Select a row to open it.",
                        "{n} debates, newest first (at most 500 shown). Select a row to open it.", len(df))
               .format(n=len(df)))
    event = ui.table(df, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                         key="debates", column_config={"cost": st.column_config.NumberColumn(format="$%.4f")})
    if df.empty:
        return
    rows = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    ids = list(df["id"])
    default = ids.index(df.iloc[rows[0]]["id"]) if rows else 0
    topics = dict(zip(df["id"], df["topic"]))
    c1, c2, c3 = st.columns([4, 1, 1])
    chosen = c1.selectbox(_("Debate"), ids, index=default, key="open_id",
                          format_func=lambda i: f"{i} · {str(topics[i])[:70]}")
    with c2:
        ui.link_to("outcome", chosen, _("Open in Outcome"))
    with c3:
        ui.link_to("live", chosen, _("Live"))


def charts(arc) -> None:
    group = st.segmented_control(_("Chart"), list(views.CHART_GROUPS), default="Activity", key="chart_group",
                                 format_func=_, required=True,
                                 help=_("Charts over the whole archive, two at a time.")) or "Activity"
    figs = views.archive_figures(arc, group)
    cols = st.columns(2)
    for col, name in zip(cols, views.CHART_GROUPS[group]):
        col.plotly_chart(figs[name], key=f"fig-{name}")


def ratings(arc) -> None:
    """Bradley-Terry ratings (bootstrap intervals) of models and stances (debate_core.analysis.ratings via views)."""
    t = views.ratings_tables(arc, bootstrap=100)
    if t["outcomes"].empty:
        st.caption(_("No judged debate with a verdict yet. Topic debates and trials are rated here; a batch with "
                     "`tournament: true` and `swap: true` rates models fairly (docs/batch.md)."))
        return
    cols = [N_("rank"), N_("item"), N_("rating"), N_("ci_low"), N_("ci_high"), N_("wins"), N_("losses"), N_("ties"),
            N_("win_rate")]
    c1, c2 = st.columns(2)
    c1.caption(_("Models"))
    with c1:
        ui.table(t["models"][cols], hide_index=True, width="stretch", key="ratings-models")
    c2.caption(_("Stances"))
    with c2:
        ui.table(t["stances"][cols], hide_index=True, width="stretch", key="ratings-stances")
    st.caption(_("Win rate of the row model against the column model (ties count half)"))
    st.dataframe(t["model_win_rates"], width="stretch", key="ratings-win-rates")
    if st.toggle(_("Ratings as charts"), key="ratings_charts"):
        c1, c2 = st.columns(2)
        c1.plotly_chart(views.ratings_figure(t["models"], _("Models")), key="fig-ratings-models")
        c2.plotly_chart(views.ratings_figure(t["stances"], _("Stances")), key="fig-ratings-stances")


def sql_box(arc) -> None:
    st.caption(_(views.SQL_HELP))
    query = st.text_area(_("SQL (read-only)"), value=views.SQL_EXAMPLE, key="sql", height=100)
    if st.button(_("Run query"), key="run_sql"):
        with ui.guard("SQL"):
            df = views.run_sql(arc, query)
            st.caption(ngettext("{n} row", "{n} rows", len(df)).format(n=len(df)))
            st.dataframe(df, hide_index=True, width="stretch")


def importer(arc) -> None:
    st.caption(_("Topic-debate artifact folders (<slug>.debate/ with debate-log.md and verdict.md), master-debate "
                 "Markdown, or this workbench's JSON export. A folder can be uploaded as such or as a .zip; "
                 "importing the same thing twice does not duplicate it."))
    files = st.file_uploader(_("Files (.md, .json, .zip)"), type=["md", "json", "zip"], accept_multiple_files=True,
                             key="up_files")
    folder = st.file_uploader(_("An artifact folder"), accept_multiple_files="directory", key="up_dir")
    if st.button(_("Import"), key="import"):
        uploads = [(f.name, f.getvalue()) for f in list(files or []) + list(folder or [])]
        with ui.guard(_("Import")):
            with st.spinner(_("Importing…")):
                lines = views.import_uploads(arc, uploads)
            st.success(_("Imported:") + "  \n" + "  \n".join(views.safe_markdown(line) for line in lines))


@ui.page(N_("Archive"), "🗄️")
def archive_page() -> None:
    arc = ui.archive()
    st.caption(_("archive file `{path}`").format(path=arc.path))
    f = filters(arc)
    with ui.guard(_("Filter")):
        table(arc, f)
    st.subheader(_("Charts"))
    with ui.guard(_("Charts")):
        charts(arc)
    st.subheader(_("Ratings"))
    with ui.guard(_("Ratings")):
        ratings(arc)
    st.subheader("SQL")
    sql_box(arc)
    st.subheader(_("Import"))
    importer(arc)


archive_page()
