"""Coverage: which masters of a persona pack have critiques (ammo) against which, and which gaps the archive
ran into."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _


@ui.page(N_("Coverage"), "🧭")
def coverage() -> None:
    st.caption(_(views.COVERAGE_HELP))  # what coverage is, where the word first appears
    pack, _folder = ui.pack_picker("cov")
    cv = views.coverage_view(pack, ui.archive())
    st.caption(views.pack_summary(pack))

    m = st.columns(5)
    m[0].metric(_("Masters"), cv.gaps["masters"])
    m[1].metric(_("Critiques"), cv.gaps["critiques"])
    m[2].metric(_("Complete pairs (both ways)"), cv.complete_pairs)
    m[3].metric(_("One-way entries"), cv.one_way_entries)
    done = sum(1 for c in cv.gaps["canonical"] if c["status"] == "complete")
    m[4].metric(_("Canonical pairs complete"), f"{done}/{len(cv.gaps['canonical'])}")

    st.plotly_chart(cv.heatmap(), key="heatmap")

    c1, c2 = st.columns(2)
    with c1:
        st.subheader(_("Canonical pairs"))
        ui.table(cv.canonical, hide_index=True, width="stretch")
    with c2:
        st.subheader(_("One-way entries ({n})").format(n=cv.one_way_entries))
        if len(cv.one_way):
            ui.table(cv.one_way, hide_index=True, width="stretch")
        else:
            st.caption(_("none: every critique is answered"))
    st.subheader(_("Masters with no critique at all"))
    if cv.no_critique:
        st.markdown(", ".join(views.safe_inline(n) for n in cv.no_critique))
    else:
        st.caption(_("none: every master writes or receives at least one critique"))
    if cv.gaps["unknown_targets"]:
        st.warning(_("Critiques aimed at masters not in the pack: ")
                   + ", ".join(views.safe_inline(t) for t in cv.gaps["unknown_targets"]))
    st.subheader(_("Pairs most debated with the degraded warning"))
    if len(cv.degraded):
        ui.table(cv.degraded, hide_index=True, width="stretch")
    else:
        st.caption(_("no archived debate ran with the coverage warning"))


coverage()
