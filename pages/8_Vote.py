"""Vote: the room's page of the audience vote (issue 25), opened from the short link or the QR code the
Present page shows: /Vote?id=…&phase=before|after.  Read-only apart from the vote: the debate's topic and
its sides, nothing else.  A device (a random token this page keeps in its URL, &device=…, so a reload
keeps it) holds one vote per phase: voting again replaces its vote.  A closed vote refuses votes."""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _


def device() -> str:
    """This browser tab's device token: from the URL, else this session's, else a new one (put in the URL)."""
    token = (views.vote.valid_device(st.query_params.get("device"))
             or views.vote.valid_device(st.session_state.get("vote-device")) or views.vote.new_device())
    st.session_state["vote-device"] = token
    if st.query_params.get("device") != token:
        st.query_params["device"] = token
    return token


def cast(page, token: str) -> None:
    """The Vote button: the vote goes in before the page runs again; the line it gets is shown once."""
    choice = st.session_state.get(f"vote-choice-{page.phase}")
    if choice is not None:
        st.session_state["vote-said"] = views.vote.cast(ui.archive(), page, token, choice)


@ui.page(N_("Vote"), "🗳️", show_title=False, sidebar="collapsed", layout="centered")
def vote() -> None:
    debate_id = ui.current_id()
    if not debate_id:
        st.title("🗳️ " + _("Vote"), anchor=False)
        st.info(_("Open the link or scan the QR code the presenter shows."))
        return
    token = device()
    page = views.vote.vote_page(ui.archive(), debate_id, st.query_params.get("phase"), token)
    with st.container(key="content-topic"):  # the debate's own words
        st.title(views.safe_inline(page.debate.topic), anchor=False)
    st.subheader(page.title, anchor=False)
    said = st.session_state.pop("vote-said", None)  # what the Vote button got, once
    if not page.state.is_open:  # closed meanwhile too: this one line, no form
        st.info(views.vote.refusal_text("not_open" if page.state.status == "none" else "closed"))
        return
    keys = [k for k, _n in page.sides]
    choice = st.radio(_("Your view"), keys, format_func=lambda k: views.safe_inline(page.name(k)),
                      index=keys.index(page.mine) if page.mine in keys else None, key=f"vote-choice-{page.phase}")
    st.button(_("Vote"), type="primary", disabled=choice is None, key="vote-cast", width="stretch",
              on_click=cast, args=(page, token))
    if said:
        (st.success if said[0] else st.warning)(views.safe_inline(said[1]))
    elif page.mine:
        st.caption(views.safe_format(_("You voted: {side}. Voting again replaces it."), side=page.name(page.mine)))


vote()
