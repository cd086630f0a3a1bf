"""Debate Workbench — the home page and the app's navigation.  Run with `make run` (streamlit run app.py).

The pages are the numbered files in pages/; ``ui.navigation`` registers them (with
their titles and URL paths: /Setup, /Live?id=…, /Outcome?id=…, /Archive, /Coverage).
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

    st.subheader(_("Pages"))
    ui.nav_links()

    st.subheader(_("Recent debates"))
    recent = views.recent_debates(arc, limit=10)
    if recent.empty:
        st.info(_("No debate in the archive yet: start one in Setup (the offline engine needs no key)."))
        ui.page_link("setup", _("Start a debate"))
        return
    ui.table(recent, hide_index=True, width="stretch",
             column_config={"cost": st.column_config.NumberColumn(format="$%.4f")})
    for row in recent.head(5).itertuples(index=False):
        c1, c2, c3 = st.columns([6, 1, 1])
        c1.markdown(f"{views.safe_code(row.id)} · {views.status_text(row.status)} · "
                    f"{views.safe_inline(str(row.topic))}")
        with c2:
            ui.link_to("live", row.id, _("Live"))
        with c3:
            ui.link_to("outcome", row.id, _("Outcome"))


ui.navigation(home).run()
