"""Compare: two debates side by side, aligned by round — the same topic on two models, or a benchmark pair
with the sides swapped.  ?a=<debate id>&b=<debate id>; a missing id gets a picker (the debates on the other's
topic first); "Swap sides" exchanges the columns."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _


def param(name: str) -> str:
    """``?a=`` / ``?b=`` as typed (anyone's text: shown only through safe_inline / safe_code)."""
    return (st.query_params.get(name, "") or "").strip()


def swap() -> None:
    a, b = param("a"), param("b")
    st.query_params["a"], st.query_params["b"] = b, a


def picker(side: str, other: str) -> str:
    """The debate of one side, chosen from the archive; its id goes into the URL."""
    labels = views.compare.compare_choices(ui.archive(), other or None)
    if not labels:
        st.info(_("The archive has no other debate to compare with: start one in Setup."))
        ui.page_link("setup", _("Start a debate"))
        return ""
    title = _("Debate A") if side == "a" else _("Debate B")
    hint = _("debates on the same topic come first") if other else _("choose a debate")
    chosen = st.selectbox(title, list(labels), format_func=labels.get, index=None, placeholder=hint,
                          key=f"compare-pick-{side}")
    if chosen:
        st.query_params[side] = chosen
    return chosen or ""


def head(label: str, sv: views.compare.SideView) -> None:
    d = sv.debate
    st.markdown(f"#### {label}")
    with st.container(key=f"content-topic-{label.lower()}"):  # the debate's own words
        st.markdown(f"#### {views.safe_inline(d.topic)}")
    models = _("models: {models}").format(models=", ".join(views.safe_code(m) for m in d.models) or "—")
    st.caption(" · ".join([views.safe_code(d.id), views.safe_inline(sv.protocol), views.safe_inline(sv.who), models,
                           views.safe_inline(sv.status)]))
    st.markdown(views.safe_format(_("**Result:** {result}"), result=sv.result))
    ui.link_to("outcome", d.id, _("Open the outcome"))


def side(speeches, key: str) -> None:
    if not speeches:
        st.caption(_("no speech in this round"))
    for i, sv in enumerate(speeches):
        ui.reading_card(sv, key=f"{key}{i}")


def closing(sv: views.compare.SideView) -> None:
    ov = sv.outcome
    if ov.kind == "observation" and ov.observation:
        st.markdown(f"**{views.safe_inline(ov.heading)}**")
        with st.container(key=f"content-observation-{ov.debate.id}"):  # the debate's own words
            st.markdown("\n".join(f"- {views.safe_inline(k)}{_(': ')}{views.safe_inline(v)}"
                                   for k, v in ov.observation.items()))
    elif ov.kind == "verdict" and ov.parsed:
        st.success("**" + views.safe_format(_("Winner: {winner}"), winner=ov.winner_text) + "**")
        if ov.winner_stance or ov.summary:  # the winner's stance and the judge's words: the debate's own
            with st.container(key=f"content-summary-{ov.debate.id}"):
                if ov.winner_stance:
                    st.markdown(f"**{views.safe_inline(ov.winner_stance)}**")
                if ov.summary:
                    st.markdown(views.safe_inline(ov.summary))
    else:
        st.caption(views.safe_inline(sv.result))


def show(cv: views.compare.CompareView) -> None:
    c1, c2 = st.columns(2, gap="medium")
    with c1:
        head("A", cv.a)
    with c2:
        head("B", cv.b)
    if cv.same_topic:
        st.caption(_("Both debates are on the same topic."))
    for row in cv.rows:
        st.subheader(row.label, anchor=False, divider="gray")
        c1, c2 = st.columns(2, gap="medium")
        with c1:
            side(row.a, f"cmp-a{row.round}-")
        with c2:
            side(row.b, f"cmp-b{row.round}-")
    if not cv.rows:
        st.caption(_("Neither debate has a speech yet."))
    st.subheader(_("Outcome"), anchor=False, divider="gray")
    c1, c2 = st.columns(2, gap="medium")
    with c1:
        closing(cv.a)
    with c2:
        closing(cv.b)


@ui.page(N_("Compare"), "⚖️")
def compare_page() -> None:
    a, b = param("a"), param("b")
    if not (a and b):
        st.caption(_("Two debates side by side, aligned by round: the same topic on two models, or a pair with "
                     "the sides swapped."))
        c1, c2 = st.columns(2, gap="medium")
        with c1:
            if a:  # from the URL (Outcome's "Compare with…"): named with its topic when the archive has it
                try:
                    topic = ui.archive().get_debate(a).topic
                except KeyError:  # shown as an error once both sides are chosen
                    topic = ""
                st.markdown(views.safe_format(_("**Debate A:** `{id}`"), id=a)
                            + (f" · {views.safe_inline(topic)}" if topic else ""))
            a = a or picker("a", b)
        with c2:
            b = b or (picker("b", a) if a else "")
            if not a:
                st.caption(_("Choose debate A first: debates on its topic are offered first here."))
        if not (a and b):
            return
    top = st.columns([1, 1, 4], vertical_alignment="center")
    top[0].button(_("⇄ Swap sides"), key="compare-swap", on_click=swap,
                  help=_("Puts debate B on the left and debate A on the right."))
    with top[1]:
        ui.link_with("compare", _("Choose others"), icon="🔄")
    with top[2]:
        ui.copy_link("compare", a=a, b=b)
    view = views.compare.compare_view(ui.archive(), a, b)
    show(view)


compare_page()
