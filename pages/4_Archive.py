"""Archive: filter the debates, open one in Outcome, charts, the read-only SQL box, imports."""

import streamlit as st

from webapp import ui, views

ANY = "(any)"


def filters(arc) -> dict:
    opts = views.filter_options(arc)
    c = st.columns(4)
    protocol = c[0].selectbox("Protocol", [ANY] + opts["protocol"], key="f_protocol")
    master = c[1].selectbox("Master", [ANY] + opts["master"], key="f_master")
    model = c[2].selectbox("Model", [ANY] + opts["model"], key="f_model")
    status = c[3].selectbox("Status", [ANY] + opts["status"], key="f_status")
    c = st.columns([1, 1, 2])
    date_from = c[0].date_input("From", value=None, key="f_from")
    date_to = c[1].date_input("To", value=None, key="f_to")
    text = c[2].text_input("Text in the topic or the speeches", key="f_text")
    return dict(protocol=protocol, master=master, model=model, status=status, date_from=date_from,
                date_to=date_to, text=text)


def table(arc, f: dict) -> None:
    df = views.find_debates(arc, **f)
    st.caption(f"{len(df)} debate(s), newest first (at most 500 shown). Select a row to open it.")
    event = st.dataframe(df, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                         key="debates", column_config={"cost": st.column_config.NumberColumn(format="$%.4f")})
    if df.empty:
        return
    rows = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    ids = list(df["id"])
    default = ids.index(df.iloc[rows[0]]["id"]) if rows else 0
    topics = dict(zip(df["id"], df["topic"]))
    c1, c2, c3 = st.columns([4, 1, 1])
    chosen = c1.selectbox("Debate", ids, index=default, key="open_id",
                          format_func=lambda i: f"{i} · {str(topics[i])[:70]}")
    with c2:
        ui.link_to("outcome", chosen, "Open in Outcome")
    with c3:
        ui.link_to("live", chosen, "Live")


def charts(arc) -> None:
    group = st.segmented_control("Chart", list(views.CHART_GROUPS), default="Activity", key="chart_group",
                                 required=True, help="Charts over the whole archive, two at a time.") or "Activity"
    figs = views.archive_figures(arc, group)
    cols = st.columns(2)
    for col, name in zip(cols, views.CHART_GROUPS[group]):
        col.plotly_chart(figs[name], key=f"fig-{name}")


def ratings(arc) -> None:
    """Bradley-Terry ratings (bootstrap intervals) of models and stances (debate_core.analysis.ratings via views)."""
    t = views.ratings_tables(arc, bootstrap=100)
    if t["outcomes"].empty:
        st.caption("No judged debate with a verdict yet. Topic debates and trials are rated here; a batch with "
                   "`tournament: true` and `swap: true` rates models fairly (docs/batch.md).")
        return
    cols = ["rank", "item", "rating", "ci_low", "ci_high", "wins", "losses", "ties", "win_rate"]
    c1, c2 = st.columns(2)
    c1.caption("Models")
    c1.dataframe(t["models"][cols], hide_index=True, width="stretch", key="ratings-models")
    c2.caption("Stances")
    c2.dataframe(t["stances"][cols], hide_index=True, width="stretch", key="ratings-stances")
    st.caption("Win rate of the row model against the column model (ties count half)")
    st.dataframe(t["model_win_rates"], width="stretch", key="ratings-win-rates")
    if st.toggle("Ratings as charts", key="ratings_charts"):
        c1, c2 = st.columns(2)
        c1.plotly_chart(views.ratings_figure(t["models"], "Models"), key="fig-ratings-models")
        c2.plotly_chart(views.ratings_figure(t["stances"], "Stances"), key="fig-ratings-stances")


def sql_box(arc) -> None:
    st.caption(views.SQL_HELP)
    query = st.text_area("SQL (read-only)", value=views.SQL_EXAMPLE, key="sql", height=100)
    if st.button("Run query", key="run_sql"):
        with ui.guard("SQL"):
            df = views.run_sql(arc, query)
            st.caption(f"{len(df)} row(s)")
            st.dataframe(df, hide_index=True, width="stretch")


def importer(arc) -> None:
    st.caption("Topic-debate artifact folders (<slug>.debate/ with debate-log.md and verdict.md), master-debate "
               "Markdown, or this workbench's JSON export. A folder can be uploaded as such or as a .zip; "
               "importing the same thing twice does not duplicate it.")
    files = st.file_uploader("Files (.md, .json, .zip)", type=["md", "json", "zip"], accept_multiple_files=True,
                             key="up_files")
    folder = st.file_uploader("An artifact folder", accept_multiple_files="directory", key="up_dir")
    if st.button("Import", key="import"):
        uploads = [(f.name, f.getvalue()) for f in list(files or []) + list(folder or [])]
        with ui.guard("Import"):
            with st.spinner("Importing…"):
                lines = views.import_uploads(arc, uploads)
            st.success("Imported:  \n" + "  \n".join(views.safe_markdown(line) for line in lines))


@ui.page("Archive", "🗄️")
def archive_page() -> None:
    arc = ui.archive()
    st.caption(f"archive file `{arc.path}`")
    f = filters(arc)
    with ui.guard("Filter"):
        table(arc, f)
    st.subheader("Charts")
    with ui.guard("Charts"):
        charts(arc)
    st.subheader("Ratings")
    with ui.guard("Ratings"):
        ratings(arc)
    st.subheader("SQL")
    sql_box(arc)
    st.subheader("Import")
    importer(arc)


archive_page()
