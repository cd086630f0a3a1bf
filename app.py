"""Debate Workbench — the home page and the app's navigation.  Run with `make run` (streamlit run app.py).

The pages are the numbered files in pages/; ``ui.navigation`` registers them (with
their titles and URL paths: /Setup, /Live?id=…, /Outcome?id=…, /Archive, /Coverage,
/Present?id=…, /Compare?a=…&b=…).
"""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _


@ui.page(N_("Debate Workbench"), "💬")
def home() -> None:
    st.markdown(_(
        "Set up a debate, watch it live round by round, inspect its outcome, and explore the archive and the "
        "ammunition coverage of a persona pack. Three protocols: **master debates** between Buddhist masters "
        "of a persona pack (offline by default), **topic debates** between anonymous debaters with an independent "
        "judge, and **trials** (pro / con over the full transcript, then a judge)."))
    eng = views.engine_summary()
    c1, c2 = st.columns(2)
    with c1:
        st.markdown(_("**Engine / model in use**"))
        st.markdown(f"{views.safe_code(eng['model'])} — {views.safe_inline(eng['label'])}")
        if eng["api_base"]:
            st.caption(views.safe_format(_("API base: {url}"), url=eng["api_base"]))
        st.caption(eng["note"])
    with c2:
        arc = ui.archive()
        st.markdown(_("**Archive file**"))
        st.code(str(arc.path), language=None)
        st.caption(_("Set DEBATE_ARCHIVE to use another file."))

    start, hint = st.columns([1, 3], vertical_alignment="center")
    with start:  # the way in, whatever the archive holds
        ui.page_link("setup", _("Start a debate"), icon="▶️")
    hint.caption(_("Choose a protocol, a topic and who speaks; the offline engine needs no key and runs in seconds."))

    st.subheader(_("Recent debates"))
    recent = views.recent_debates(arc, limit=10)
    if recent.empty:
        st.info(_("No debate in the archive yet: start one in Setup (the offline engine needs no key)."))
    else:
        recent_list(recent)

    st.subheader(_("Pages"))
    ui.nav_links()


def recent_list(recent) -> None:
    """The newest debates once, as a table; below it, the links of the ticked row (else of the newest)."""
    st.caption(_("Tick a row to open another debate below."))
    shown = recent.assign(protocol=[views.protocol_text(p) for p in recent["protocol"]],  # the app's words
                          status=[views.status_text(x) for x in recent["status"]])
    picked = ui.table(shown, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                      key="home-recent", column_config={"cost": st.column_config.NumberColumn(format="$%.4f")})
    rows = [r for r in (getattr(getattr(picked, "selection", None), "rows", None) or []) if 0 <= r < len(recent)]
    row = recent.iloc[rows[0] if rows else 0]
    which = _("Ticked") if rows else _("Newest")
    with st.container(border=True, key="home-open"):
        st.markdown(f"**{which}** · {views.safe_code(row['id'])} · {views.status_text(row['status'])}")
        with st.container(key="content-home-topic"):  # the debate's own words, in its language
            st.markdown(views.safe_inline(str(row["topic"])))
        cols = st.columns(4)
        with cols[0]:
            ui.link_to("outcome", row["id"], _("Outcome"))
        with cols[1]:
            ui.link_to("live", row["id"], _("Live"))
        with cols[2]:
            ui.link_to("present", row["id"], _("Present"))
        with cols[3]:
            ui.link_with("compare", _("Compare with…"), a=row["id"])


ui.navigation(home).run()
