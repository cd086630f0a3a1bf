"""Debate Workbench — the home page and the app's navigation.  Run with `make run` (streamlit run app.py).

The pages are the numbered files in pages/; ``ui.navigation`` registers them (with
their titles and URL paths: /Setup, /Live?id=…, /Outcome?id=…, /Archive, /Coverage).
"""

import streamlit as st

from webapp import ui, views


@ui.page("Debate Workbench", "💬")
def home() -> None:
    st.markdown(
        "Set up a debate, watch it live round by round, inspect its outcome, and explore the archive and the "
        "ammunition coverage of a persona pack. Three protocols: **master debates** between Buddhist masters "
        "of a persona pack (offline by default), **topic debates** between anonymous debaters with an independent "
        "judge, and **trials** (pro / con over the full transcript, then a judge).")
    eng = views.engine_summary()
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Engine / model in use**")
        st.markdown(f"`{eng['model']}` — {eng['label']}")
        if eng["api_base"]:
            st.caption(f"API base: {eng['api_base']}")
        st.caption(eng["note"])
    with c2:
        arc = ui.archive()
        st.markdown("**Archive file**")
        st.code(str(arc.path), language=None)
        st.caption("Set DEBATE_ARCHIVE to use another file.")

    st.subheader("Pages")
    ui.nav_links()

    st.subheader("Recent debates")
    recent = views.recent_debates(arc, limit=10)
    if recent.empty:
        st.info("No debate in the archive yet: start one in Setup (the offline engine needs no key).")
        st.page_link("pages/1_Setup.py", label="Start a debate", icon="🛠️")
        return
    st.dataframe(recent, hide_index=True, width="stretch",
                 column_config={"cost": st.column_config.NumberColumn(format="$%.4f")})
    for row in recent.head(5).itertuples(index=False):
        c1, c2, c3 = st.columns([6, 1, 1])
        c1.markdown(f"`{row.id}` · {row.status} · {views.safe_markdown(str(row.topic))}")
        with c2:
            ui.link_to("live", row.id, "Live")
        with c3:
            ui.link_to("outcome", row.id, "Outcome")


ui.navigation(home).run()
