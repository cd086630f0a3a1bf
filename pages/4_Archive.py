"""Archive, in tabs: Browse (the filters, the table with each debate's winner, open a debate in
Outcome), Charts, Ratings and judges, SQL (the read-only box with the tables, their columns and
example queries), Import.  Every tab says which filters it uses: only Browse uses them.

Issue 25 (the Archive's first chart in under 2 s at 10,000 debates, bench/app_bench.py): the Charts
section runs first on every run (its charts are cached until the archive changes, and are Vega-Lite, which
Streamlit's frontend draws sooner than plotly: webapp.views.archive_charts), so they are drawn in their tab
while Browse still fills; of the other sections only the open tab's runs (``st.tabs``
with a key and ``on_change="rerun"``: a click on a tab reruns the page with it open), so no run
queries, builds or sends the ratings, the SQL schema or the importer unless their tab is open.  The
sections' widgets keep their values while their tab is closed (``persist_state="page"``)."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _, current, ngettext

av = views.archive  # the Archive's view module (its charts, SQL schema and examples)

ANY = N_("(any)")
KEEP = "page"  # a section's widgets keep their values while another tab is open (only the open tab runs)
TABS = (N_("Browse"), N_("Charts"), N_("Ratings and judges"), N_("SQL"), N_("Import"))
WHOLE_ARCHIVE = N_("Over the whole archive: the filters of the Browse tab do not apply here.")


@st.cache_data(show_spinner=False, max_entries=64)
def _cached(name: str, path: str, marker: tuple, args: tuple):
    """``webapp.views.archive.<name>(archive, **args)`` until the archive changes (as ui.cached)."""
    return getattr(av, name)(ui.archive(), **dict(args))


def cached(arc, name: str, **kwargs):
    return _cached(name, str(arc.path), views.archive_marker(arc), tuple(sorted(kwargs.items())))


def filters(arc) -> dict:
    opts = ui.cached("filter_options")
    any_ = lambda v: _(ANY) if v == ANY else v  # noqa: E731
    c = st.columns(5)
    protocol = c[0].selectbox(_("Protocol"), [ANY] + opts["protocol"], key="f_protocol", persist_state=KEEP,
                              format_func=lambda v: any_(v) if v == ANY else av.protocol_name(v))
    names = opts["names"]  # a master by his name, a model by the name its source gave it
    master = c[1].selectbox(_("Master"), [ANY] + opts["master"], key="f_master", persist_state=KEEP,
                            format_func=lambda v: any_(v) if v == ANY else names["master"].get(v, v))
    model = c[2].selectbox(_("Model"), [ANY] + opts["model"], key="f_model", persist_state=KEEP,
                           format_func=lambda v: any_(v) if v == ANY else names["model"].get(v, v))
    status = c[3].selectbox(_("Status"), [ANY] + opts["status"], key="f_status", persist_state=KEEP,
                            format_func=lambda v: any_(v) if v == ANY else views.status_text(v))
    lang = c[4].selectbox(_("Debate language"), [ANY, "zh", "en"], key="f_lang", persist_state=KEEP,
                          format_func=lambda v: any_(v) if v == ANY else views.debate_language_label(v))
    c = st.columns([1, 1, 1, 2])
    judge = c[0].selectbox(_("Judge"), [ANY] + opts["judge"], key="f_judge", persist_state=KEEP, format_func=any_,
                           help=_("Debates this judge judged (a panel judge or the verdict's judge)."))
    side = c[1].selectbox(_("Side"), [ANY] + list(views.SIDES), key="f_side", persist_state=KEEP,
                          disabled=model == ANY,
                          format_func=lambda v: any_(v) if v == ANY else _(views.SIDE_NAMES[v]),
                          help=_("The side the chosen model argued (choose a model first)."))
    winner = c[2].selectbox(_("Winner"), [ANY] + list(views.WINNERS) + opts["model"], key="f_winner",
                            persist_state=KEEP,
                            format_func=lambda v: any_(v) if v == ANY else
                            (_(views.WINNER_NAMES[v]) if v in views.WINNER_NAMES else names["model"].get(v, v)),
                            help=_("The verdict's winner: a side, a draw, or a model (the side it argued won)."))
    topics = int(opts["topics"][0]) if opts["topics"] else 0
    topic = c[3].selectbox(_("Topic"), [ANY] + opts["topic"], key="f_topic", persist_state=KEEP,
                           format_func=lambda v: any_(v) if v == ANY else (v if len(v) <= 90 else v[:89] + "…"),
                           help=_("The {shown} most debated of {total} topics; the text filter finds any other.")
                           .format(shown=len(opts["topic"]), total=topics) if topics > len(opts["topic"]) else None)
    c = st.columns([1, 1, 2])
    date_from = c[0].date_input(_("From"), value=None, key="f_from", persist_state=KEEP)
    date_to = c[1].date_input(_("To"), value=None, key="f_to", persist_state=KEEP)
    text = c[2].text_input(_("Text in the topic or the speeches"), key="f_text", persist_state=KEEP)
    return dict(protocol=protocol, master=master, model=model, status=status, date_from=date_from,
                date_to=date_to, text=text, lang=lang, judge=judge, side=side, winner=winner, topic=topic)


LIMIT = 500


def follow_ticked_row(ids: list, ticked) -> None:
    """Point the picker (``open_id``) at the row just ticked.

    A selectbox's stored value wins over its ``index=``, so the picker is set through its session
    state instead, and only when the ticked row changes: picking another debate in the picker
    afterwards still works. A stored choice the table no longer shows falls back to the ticked
    row, else the first."""
    if ticked != st.session_state.get("open_ticked"):
        st.session_state["open_ticked"] = ticked
        if ticked is not None:
            st.session_state["open_id"] = ticked
    if st.session_state.get("open_id") not in ids:
        st.session_state["open_id"] = ticked if ticked is not None else ids[0]


def table(arc, f: dict) -> None:
    df = views.find_debates(arc, limit=LIMIT, **f)
    if len(df) >= LIMIT:
        total = views.count_debates(arc, **f)
        st.caption(ngettext("{shown} of {total} debate, newest first. Narrow the filters to see the others; "
                            "select a row to open it.",
                            "{shown} of {total} debates, newest first. Narrow the filters to see the others; "
                            "select a row to open it.", total).format(shown=len(df), total=total))
    else:
        st.caption(ngettext("{n} debate, newest first (at most 500 shown). Select a row to open it.",
                            "{n} debates, newest first (at most 500 shown). Select a row to open it.", len(df))
                   .format(n=len(df)))
    shown = df.assign(protocol=[av.protocol_name(p) for p in df["protocol"]],  # the app's words: the reader's
                      status=[views.status_text(x) for x in df["status"]])
    event = ui.table(shown, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                     key="debates", column_config={
                         "cost": st.column_config.NumberColumn(format="$%.4f", width="small"),
                         "created_at": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm", width="small"),
                         "topic": st.column_config.TextColumn(width="large"),
                         "winner": st.column_config.TextColumn(width="medium"),
                         "tokens": st.column_config.NumberColumn(width="small"),
                         "lang": st.column_config.TextColumn(width="small"),
                         "rounds": st.column_config.TextColumn(width="small"),
                         "degraded": None})
    if df.empty:
        return
    ids = list(df["id"])
    rows = [r for r in list(getattr(getattr(event, "selection", None), "rows", []) or []) if 0 <= r < len(ids)]
    follow_ticked_row(ids, ids[rows[0]] if rows else None)
    topics = dict(zip(df["id"], df["topic"]))
    c1, c2, c3 = st.columns([4, 1, 1])
    chosen = c1.selectbox(_("Debate"), ids, key="open_id", persist_state=KEEP,
                          format_func=lambda i: f"{i} · {str(topics[i])[:70]}")
    with c2:
        ui.link_to("outcome", chosen, _("Open in Outcome"))
    with c3:
        ui.link_to("live", chosen, _("Live"))


def charts(arc) -> None:
    st.subheader(_("Charts"))
    st.caption(_(WHOLE_ARCHIVE))
    group = st.segmented_control(_("Chart"), list(views.CHART_GROUPS), default="Activity", key="chart_group",
                                 persist_state=KEEP, format_func=_, required=True,
                                 help=_("Charts over the whole archive, two at a time.")) or "Activity"
    figs, notes = cached(arc, "archive_charts", group=group, lang=current())
    cols = st.columns(2)
    for col, name in zip(cols, views.CHART_GROUPS[group]):
        col.altair_chart(figs[name], key=f"fig-{name}", width="stretch")
    for note in notes:
        st.caption(note)


def ratings(arc) -> bool:
    """Bradley-Terry ratings (bootstrap intervals) of models and stances from verdicts
    (debate_core.analysis.ratings via views); False when no debate has a verdict to rate."""
    t = cached(arc, "ratings_tables", bootstrap=100)
    if t["outcomes"].empty:
        return False
    cols = [N_("rank"), N_("item"), N_("rating"), "ci_low", "ci_high", N_("wins"), N_("losses"), N_("ties"),
            "win_rate"]  # (field-like names shown by their labels: views.COLUMN_LABELS)
    c1, c2 = st.columns(2)
    c1.caption(_("Models"))
    with c1:
        ui.table(t["models"][cols], hide_index=True, width="stretch", key="ratings-models")
    c2.caption(_("Stances"))
    stances = t["stances"].assign(item=[views.stance_text(x) for x in t["stances"]["item"]])  # for the motion: ours
    with c2:
        ui.table(stances[cols], hide_index=True, width="stretch", key="ratings-stances")
    st.caption(_("Win rate of the row model against the column model (ties count half)"))
    rates = t["model_win_rates"].rename(columns={"overall": _("overall"), "games": _("games")})
    st.dataframe(rates, width="stretch", key="ratings-win-rates")
    if st.toggle(_("Ratings as charts"), key="ratings_charts", persist_state=KEEP):
        c1, c2 = st.columns(2)
        c1.plotly_chart(views.ratings_figure(t["models"], _("Models")), key="fig-ratings-models")
        c2.plotly_chart(views.ratings_figure(stances, _("Stances")), key="fig-ratings-stances")
    return True


def ratings_and_judges(arc) -> None:
    st.caption(_(WHOLE_ARCHIVE))
    st.subheader(_("Ratings"))
    rated = True
    with ui.guard(_("Ratings")):
        rated = ratings(arc)
    if not rated:
        st.caption(_("No debate here has a single verdict to rate: topic debates and trials get one from their "
                     "judge model (a batch with side swaps rates models fairly, docs/batch.md). Debates judged by a "
                     "panel of judges, such as an imported benchmark, are rated below under Judges and matchups."))
    st.subheader(_("Judges and matchups"))
    with ui.guard(_("Judges and matchups")):
        research()


def _fill_sql(query: str) -> None:
    st.session_state["sql"] = query


def sql_box(arc) -> None:
    st.caption(_("Over the whole archive: the filters of the Browse tab do not apply; filter in the query itself "
                 "(WHERE …)."))
    st.caption(_(views.SQL_HELP))
    left, right = st.columns([3, 2])
    with left:
        st.caption(_("Example queries (each fills the box):"))
        cols = st.columns(len(av.SQL_EXAMPLES))
        for n, (col, (title, query)) in enumerate(zip(cols, av.SQL_EXAMPLES)):
            col.button(_(title), key=f"sql_example_{n}", on_click=_fill_sql, args=(query,), width="stretch")
        if "sql" not in st.session_state:
            st.session_state["sql"] = views.SQL_EXAMPLE
        query = st.text_area(_("SQL (read-only)"), key="sql", persist_state=KEEP, height=140)
        run = st.button(_("Run query"), key="run_sql", type="primary")
    with right:
        st.caption(_("Tables and their columns"))
        with st.container(height=330):
            schema = cached(arc, "sql_schema")
            st.markdown("  \n".join(f"**{views.safe_code(t)}** — "
                                    + ", ".join(views.safe_code(col.strip()) for col in str(c).split(","))
                                    for t, c in schema.itertuples(index=False)))
    if run:
        try:
            df = views.run_sql(arc, query)
        except Exception as exc:  # noqa: BLE001 - any failure is one line under the box
            if ui._is_control_flow(exc):
                raise
            st.error(views.safe_inline(av.sql_error_line(exc)), icon="⚠️")
        else:
            st.caption(ngettext("{n} row", "{n} rows", len(df)).format(n=len(df)))
            st.dataframe(df, hide_index=True, width="stretch")


def research() -> None:
    """Judges and matchups: ratings over side-swapped matchups, margins, judge agreement, side bias,
    margin distributions, dropped claims (debate_core.analysis.judgments and .ledger via views)."""
    t = ui.cached("research_tables", bootstrap=200)
    if not t["judgments"]:
        st.caption(_("No per-judge judgment yet: import a debate benchmark checkout (the Import tab) or judge "
                     "trials to compare models and judges here."))
        return
    st.caption(ngettext("{n} judgment on {debates} debates (one row per judge and debate).",
                        "{n} judgments on {debates} debates (one row per judge and debate).", t["judgments"])
               .format(n=t["judgments"], debates=t["debates"]))
    st.markdown(_("**Ratings over side-swapped matchups** (Bradley-Terry, 95% bootstrap intervals)"))
    if len(t["ratings"]):
        ui.table(t["ratings"][list(views.RATING_COLUMNS)], hide_index=True, width="stretch", key="matchup-ratings")
        note = views.agreement_caption(t)
        if note:
            st.caption(note)
    else:
        st.caption(_("No complete matchup yet: a model is rated once it argued both sides of one topic against "
                     "the same opponent."))
    st.plotly_chart(views.margin_heatmap(t["margin_mean"], t["margin_count"]), key="fig-margins")
    st.markdown(_("**Judges: agreement and side bias**"))
    c1, c2 = st.columns(2)
    c1.plotly_chart(views.agreement_heatmap(t["agreement"], t["common"]), key="fig-agreement")
    c2.plotly_chart(views.side_bias_figure(t["side_bias"]), key="fig-side-bias")
    ui.table(t["side_bias"][list(views.BIAS_COLUMNS)], hide_index=True, width="stretch", key="side-bias")
    st.caption(_("PRO win rate among decisive judgments with its 95% Wilson interval; biased: the interval "
                 "misses 0.5. Margins are signed, positive favours PRO."))
    st.plotly_chart(views.margin_distribution_figure(t["distribution"]), key="fig-margin-distribution")
    st.markdown(_("**Dropped claims per model**"))
    if st.toggle(_("Compute dropped-claim rates"), key="dropped_rates", persist_state=KEEP,
                 help=_("Reads every debate's speeches: a few seconds on a large archive (kept until it changes).")):
        with st.spinner(_("Reading the debates…")):
            rates = ui.cached("dropped_table")
        if len(rates):
            ui.table(rates[list(views.DROPPED_COLUMNS)], hide_index=True, width="stretch", key="dropped-rates")
            st.caption(_("dropped_rate: of the opponents' claims a model could still answer, the share it never "
                         "answered; own_dropped: its own claims the opponents never answered."))
        else:
            st.caption(_("No debate with a claim structure yet."))


def show_report(rep) -> None:
    if rep.lines:
        st.success(_("Imported:") + " " + rep.summary + "  \n"
                   + "  \n".join(views.safe_inline(line) for line in rep.shown_lines))
    else:
        st.info(rep.summary)
    for msg in rep.skipped:
        st.warning(views.safe_format(_("Skipped: {reason}"), reason=msg))


def importer(arc) -> None:
    st.subheader(_("Import"))
    st.caption(_("Topic-debate artifact folders (a ….debate folder with debate-log.md and verdict.md), master-debate "
                 "Markdown, this workbench's JSON export, or a debate benchmark checkout (lechmazur/debate layout: "
                 "`transcripts/*.md`, `reports/debate_matchup_judgments/<template>/*.md`, "
                 "`reports/debate_leaderboard__*.md`). A folder can be uploaded as such or as a .zip; importing the "
                 "same thing twice does not duplicate it, and a malformed benchmark file is skipped with a warning."))
    files = st.file_uploader(_("Files (.md, .json, .zip)"), type=["md", "json", "zip"], accept_multiple_files=True,
                             key="up_files")
    folder = st.file_uploader(_("An artifact folder"), accept_multiple_files="directory", key="up_dir")
    if st.button(_("Import"), key="import"):
        uploads = [(f.name, f.getvalue()) for f in list(files or []) + list(folder or [])]
        with ui.guard(_("Import")):
            with st.spinner(_("Importing…")):
                rep = views.import_uploads(arc, uploads)
            show_report(rep)
    c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
    path = c1.text_input(_("Folder on this machine"), key="import_path", persist_state=KEEP,
                         placeholder=_("/path/to/a/checkout"),
                         help=_("A folder (or file) on the machine running the app, e.g. a clone of the debate "
                                "benchmark; it is read in place, nothing is uploaded."))
    if c2.button(_("Import folder"), key="import_local"):
        with ui.guard(_("Import")):
            with st.spinner(_("Importing…")):
                rep = views.import_local(arc, path)
            show_report(rep)


@ui.page(N_("Archive"), "🗄️")
def archive_page() -> None:
    arc = ui.archive()
    st.caption(_("archive file `{path}`").format(path=arc.path))
    browse, charts_tab, ratings_tab, sql_tab, import_tab = st.tabs([_(t) for t in TABS], key="archive_tab",
                                                                   on_change="rerun")
    # Charts first and on every run (cached figures: cheap); of the others, only the open tab's section
    with charts_tab, ui.guard(_("Charts")):
        charts(arc)
    if browse.open:
        with browse:
            st.caption(_("Every filter below applies to this table; the other tabs cover the whole archive."))
            f = filters(arc)
            with ui.guard(_("Filter")):
                table(arc, f)
    elif ratings_tab.open:
        with ratings_tab:
            ratings_and_judges(arc)
    elif sql_tab.open:
        with sql_tab:
            sql_box(arc)
    elif import_tab.open:
        with import_tab:
            importer(arc)


archive_page()
