"""Live: a debate round by round as it is produced; Stop, Retry round, Resume.  ?id=<debate id>."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _

POLL_SECONDS = 0.7


def controls(view: views.LiveView, debate_id: str) -> None:
    mgr = ui.jobs()
    c1, c2, c3, c4 = st.columns(4)
    if view.can_stop and c1.button(_("⏹ Stop"), key="stop",
                                   help=_("Keeps the rounds done; the status becomes stopped.")):
        st.toast(views.safe_inline(mgr.stop(debate_id)))
        st.rerun()
    if view.can_retry and c2.button(_("🔁 Retry round {n}").format(n=view.failed_round or "").strip(), key="retry",
                                     help=_("Reruns the failed round alone.")):
        mgr.retry(debate_id)
        st.rerun()
    if view.can_resume and c3.button(_("▶ Resume"), key="resume",
                                      help=_("Continues from the first round not done.")):
        mgr.resume(debate_id)
        st.rerun()
    with c4:
        ui.link_to("outcome", debate_id, _("Open the outcome"))


def body(debate_id: str, polling: bool) -> None:
    view = views.live_view(ui.archive(), ui.jobs(), debate_id)
    d = view.debate
    st.progress(view.progress, text=_("Progress: {text}").format(text=view.progress_text))
    line = views.safe_markdown(view.message)
    if d.status == "completed":
        st.success(line)
    elif d.status == "failed":
        st.error(line)
    else:
        st.info(line)
    if view.own_reason:  # the debate's own stop reason (an imported or a topic debate's), in its language
        with st.container(key="content-stop-reason"):
            st.caption(views.safe_inline(view.own_reason))
    with ui.guard(_("Action")):
        controls(view, debate_id)
    for i, sv in enumerate(view.speeches):
        ui.speech_card(sv, key=f"s{i}")
    if view.running_here or d.status == "running":
        with st.container(border=True):
            st.markdown(f"#### ✍️ {views.safe_inline(view.next_turn)} — " + _("writing…"))
            if view.live_text:
                st.markdown(views.safe_markdown(view.live_text))
            else:
                st.caption(_("waiting for the first tokens…"))
    if polling and view.finished:
        st.rerun()  # the whole page once more, without polling


@ui.page(N_("Live"), "📡")
def live() -> None:
    debate_id = ui.current_id() or ui.choose_debate("live")  # the same picker as Outcome's
    if not debate_id:
        return
    first = views.live_view(ui.archive(), ui.jobs(), debate_id)
    ui.debate_header(first.debate)
    polling = not first.finished

    @st.fragment(run_every=POLL_SECONDS if polling else None)
    def live_body() -> None:
        with ui.guard():
            body(debate_id, polling)

    live_body()


live()
