"""Present: a projector view of one debate, revealed round by round in large type, with Previous / Next
(← / → on the keyboard) and a step counter, and no metadata; the observation or the verdict is the last
step.  A debate still running shows the rounds that exist so far, read again on every step.  ?id=…&step=…

The audience vote (Oxford style) sits behind the "Audience vote" switch below the debate: the presenter
opens the vote before the debate and the one after it, each with its short link and QR code to the Vote
page (pages/8_Vote.py); the last step shows the opinion shift as a chart once anyone has voted."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _


def pick_debate() -> str:
    st.title("📽️ " + _("Present"))
    recent = views.recent_debates(ui.archive(), limit=50)
    if recent.empty:
        st.info(_("The archive has no debate yet: start one in Setup."))
        ui.page_link("setup", _("Start a debate"))
        return ""
    labels = {row.id: f"{row.id} · {views.status_text(row.status)} · {row.topic[:60]}"
              for row in recent.itertuples(index=False)}
    chosen = st.selectbox(_("Debate"), list(labels), format_func=labels.get, index=None,
                          placeholder=_("choose a debate to present"), key="present-pick")
    if chosen:
        st.query_params["id"] = chosen
        st.query_params["step"] = "1"
    return chosen or ""


def move(delta: int) -> None:
    """Previous / Next: the step in the URL, so a reload or a shared link stays on it."""
    value = st.query_params.get("step", "1")
    step = int(value) if str(value).isdigit() else 1
    st.query_params["step"] = str(max(1, step + delta))


def big(markdown: str) -> None:
    """A paragraph in large type (a level-4 heading without an anchor); Markdown of its own (a list, a
    table) as it is."""
    if "\n" in markdown.strip():
        st.markdown(markdown)
    else:
        st.markdown("#### " + markdown.strip(), anchors=False)


def show_round(step) -> None:
    """Each speech of the round: its heading (an imported turn's own in a ``content-…`` region), then its
    paragraphs, the debate's words, in a ``content-…`` region."""
    for i, sl in enumerate(step.slides):
        if sl.own_title:
            with st.container(key=f"content-slide-title-{i}"):
                st.header(views.safe_inline(sl.title), anchor=False)
        else:
            st.header(views.safe_inline(sl.title), anchor=False)
        if sl.failed:
            st.error(_("This round failed: ") + _("no reply"), icon="⛔")
        with st.container(key=f"content-slide-{i}"):
            for p in sl.paragraphs:
                big(p)


def show_outcome(ov: views.OutcomeView) -> None:
    if ov.kind == "observation":  # the keys are the app's words, the observation the debate's
        st.header(views.safe_inline(ov.heading), anchor=False)
        for i, (k, v) in enumerate((ov.observation or {}).items()):
            big(f"**{views.safe_inline(k)}**")
            with st.container(key=f"content-observation-{i}"):
                big(views.safe_inline(v))
        return
    st.header(_("Verdict"), anchor=False)
    if ov.kind != "verdict":  # an imported panel without a majority verdict
        ui.table(ov.panel, hide_index=True, width="stretch", key="present-panel")
        return
    if not ov.parsed:
        st.warning(_("The judge's verdict could not be parsed: there is no winner (this is not a draw). Raw text:"))
        st.code(ov.raw or _("(empty)"), language=None)
        return
    st.markdown("## " + views.safe_format(_("Winner: {winner}"), winner=ov.winner_text), anchors=False)
    with st.container(key="content-verdict"):  # the winner's stance and the judge's words: the debate's own
        if ov.winner_stance:
            big(f"**{views.safe_inline(ov.winner_stance)}**")
        if ov.summary:
            big(views.safe_inline(ov.summary))
        for k, v in ov.reasons.items():
            big(f"**{views.safe_inline(k)}**：{views.safe_inline(v)}")


def controls(view, step: int) -> None:
    last = step >= view.total
    c1, c2, c3 = st.columns([1, 3, 1], vertical_alignment="center")
    c1.button(_("← Previous"), key="present-prev", on_click=move, args=(-1,), disabled=step <= 1,
              shortcut="Left", width="stretch")
    c2.markdown("### " + _("Step {step} of {total}").format(step=step, total=view.total or 1), anchors=False,
                text_alignment="center")
    # while the debate runs, Next at the last round reads the archive again for the rounds since
    c3.button(_("Next →"), key="present-next", on_click=move, args=(1,), disabled=last and not view.running,
              shortcut="Right", type="primary", width="stretch")


def vote_action(debate_id: str, phase: str, what: str, sides: list[str]) -> None:
    if what == "close":
        ui.archive().close_vote(debate_id, phase)
    else:  # opening one phase closes the other
        ui.archive().open_vote(debate_id, phase, sides)


def browser_url() -> str | None:
    try:
        return st.context.url
    except Exception:  # noqa: BLE001 - no browser (AppTest)
        return None


def vote_panel(view) -> None:
    """The presenter's vote controls behind a switch (off, the projector shows the debate alone; on by
    itself while a phase is open): per phase its state, Open / Close, and while open its link and QR code."""
    state = ui.archive().vote_state(view.debate.id)
    if not st.toggle(_("Audience vote"), value=any(s.is_open for s in state.values()), key="present-vote"):
        return
    base = views.vote.base_url(browser_url(), [label for _p, label, _i in ui.PAGES.values()])
    sides = [k for k, _n in views.vote.side_options(view.debate)]
    for phase, col in zip(views.vote.PHASES, st.columns(2)):
        s = state[phase]
        with col:
            st.subheader(_(views.vote.PHASE_TITLES[phase]), anchor=False)
            st.caption(views.vote.status_line(s))
            what, label = views.vote.action(s)
            col.button(label, key=f"present-vote-{phase}", on_click=vote_action,
                       args=(view.debate.id, phase, what, sides), type="primary" if what == "open" else "secondary")
            if s.is_open:
                link = views.vote.vote_link(base, view.debate.id, phase)
                st.image(views.vote.qr_svg(link), width=300)
                st.code(link, language=None, wrap_lines=True)
    st.button(_("Refresh the count"), key="present-vote-refresh")


def shift_chart(view) -> None:
    """The opinion shift (each side's share before and after), once anyone has voted."""
    state = ui.archive().vote_state(view.debate.id)
    if not views.vote.has_votes(state):
        return
    st.subheader(_("Opinion shift"), anchor=False)
    st.plotly_chart(views.vote.shift_figure(view.debate, state), key="present-shift",
                    config={"displayModeBar": False})
    for line in views.vote.shift_lines(view.debate, state):
        big(views.safe_inline(line))


@ui.page(N_("Present"), "📽️", show_title=False, sidebar="collapsed")
def present() -> None:
    debate_id = ui.current_id() or pick_debate()
    if not debate_id:
        return
    view = views.present.present_view(ui.archive(), debate_id)
    step = view.clamp(st.query_params.get("step"))
    if st.query_params.get("step") != str(step):
        st.query_params["step"] = str(step)
    with st.container(key="content-topic"):  # the debate's own words
        st.title(views.safe_inline(view.debate.topic), anchor=False)
    for w in view.notices:  # a notice on distress stays on screen for the room (its own language)
        with st.container(key="content-distress"):
            st.warning(views.safe_markdown(w))
    controls(view, step)
    st.divider()
    if not view.steps:
        st.info(_("No round yet: the debate is {status}.").format(status=views.status_text(view.debate.status)))
    else:
        current = view.steps[step - 1]
        if current.kind == "outcome":
            show_outcome(view.outcome)
        else:
            show_round(current)
        if step == view.total:
            shift_chart(view)
    st.divider()
    vote_panel(view)
    if view.running:
        st.caption(_("The debate is still running: Next shows the rounds that have arrived since."))
    ui.link_to("outcome", view.debate.id, _("Back to the outcome"))


present()
