"""Outcome, in reading order: the debate's speeches, then its neutral observation or judged verdict, then
the analysis (checks per round, argument map, ledger), then downloads.  ?id=…  (?present=1 opens the
projector view, /Present?id=…)"""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _, ngettext


def observation(ov: views.OutcomeView) -> None:
    """The seed's closing section: its heading and its three bullets' keys in the reader's language
    (``### 教内余争 — 中立观察`` in Chinese), the observation itself in the debate's (a ``content-…`` container)."""
    st.markdown(f"### {views.safe_inline(ov.heading)}")
    with st.container(key="content-observation"):  # the debate's own words
        st.markdown("\n".join(f"- {views.safe_inline(k)}{_(': ')}{views.safe_inline(v)}"
                               for k, v in ov.observation.items()))
    st.caption(_(views.NO_WINNER_NOTE))


def verdict(ov: views.OutcomeView) -> None:
    st.subheader(_("Verdict"))
    if not ov.parsed:
        st.warning(_("The judge's verdict could not be parsed: there is no winner (this is not a draw). Raw text:"))
        st.code(ov.raw or _("(empty)"), language=None)
        return
    st.success("**" + views.safe_format(_("Winner: {winner}"), winner=ov.winner_text) + "**")
    if ov.winner_stance:  # the winner's stance: the debate's own words, in its language
        with st.container(key="content-verdict-stance"):
            st.markdown(f"**{views.safe_inline(ov.winner_stance)}**")
    if ov.summary:  # the judge's own words, in the debate's language
        with st.container(key="content-verdict-summary"):
            st.markdown(views.safe_inline(ov.summary))
    if ov.incomplete:  # the judge left something out, even after being asked once more
        st.warning(views.safe_inline(ov.incomplete))
    if ov.judge and ov.judge_own:  # an imported verdict's line about its judge: its own words
        st.caption(_("The judge, in the verdict's own words:"))
        with st.container(key="content-verdict-judge"):
            st.caption(views.safe_inline(ov.judge))
    elif ov.judge:
        st.caption(views.safe_format(_("judge: `{model}`"), model=ov.judge))
    if ov.reasons:
        st.markdown(_("**Reasons**"))
        with st.container(key="content-verdict-reasons"):  # the judge's own words
            for k, v in ov.reasons.items():
                st.markdown(f"- **{views.safe_inline(k)}**：{views.safe_inline(v)}")
    if ov.per_round is not None and len(ov.per_round):
        st.markdown(_("**Per-round commentary**"))
        ui.table(ov.per_round, hide_index=True, width="stretch")
    if ov.panel is not None and len(ov.panel):
        judge_panel(ov)
    st.markdown(_("**Per debater**"))
    ui.table(ov.debaters, hide_index=True, width="stretch")
    fig = ov.scores_figure()
    if fig is not None:
        st.plotly_chart(fig, key="scores")
    if ov.note and not ov.note_own:  # the app's own note (an imported panel's majority): the reader's language
        st.markdown(_("**To the reader**") + _(": ") + views.safe_inline(ov.note))
    elif ov.note:  # the judge's note to readers, in the debate's language
        st.markdown(_("**To the reader**"))
        with st.container(key="content-verdict-note"):
            st.markdown(views.safe_inline(ov.note))


def judge_panel(ov: views.OutcomeView) -> None:
    """An imported debate's judge panel: one row per judge, then each judge's notes."""
    st.markdown(_("**Judge panel**"))
    ui.table(ov.panel, hide_index=True, width="stretch", key="judge-panel")
    st.caption(_("Margins are signed: positive favours PRO, negative CON."))
    if ov.side_legend:  # the judges wrote Side A / Side B: which is PRO and which CON
        st.caption(views.safe_inline(ov.side_legend))
    if ov.twin:  # the same page with the twin's id (a page link to the page itself would not move)
        if st.button(_("Open the side-swapped twin (same motion and models, sides swapped)"), key="twin-link",
                     icon="🔁"):
            st.query_params["id"] = ov.twin
            st.rerun()
    for i, n in enumerate(ov.panel_notes):  # the judge and the winner (app's words), then the notes (the judge's)
        st.markdown(f"- **{views.safe_inline(n['judge'])}** ({views.safe_inline(n['winner'])})"
                    + (_(": ") if n["notes"] else ""))
        if n["notes"]:  # long: the first words, then all of it on request (never cut mid-word)
            with st.container(key=f"content-judge-notes-{i}"):
                st.markdown(views.safe_inline(n["preview"] or n["notes"]))
        if n["preview"]:
            with st.expander(_("Read all of {judge}'s notes").format(judge=views.safe_inline(n["judge"])),
                             expanded=False, key=f"judge-notes-{i}"):
                with st.container(key=f"content-judge-all-{i}"):
                    st.markdown(views.safe_markdown(n["notes"]))
        if n["decisive"]:
            st.caption(_("Most decisive:"))
            with st.container(key=f"content-judge-decisive-{i}"):
                st.caption(views.safe_inline(n["decisive"]))


def argument_map(lv) -> None:
    """The ledger as a map (claims by round and speaker, attacks, dropped claims), its counts and table."""
    st.subheader(_("Argument map"))
    st.plotly_chart(lv.figure(), key="argument-map")
    c = st.columns(3)
    c[0].metric(_("Claims"), lv.claims)
    c[1].metric(_("Attacks"), lv.attacks)
    c[2].metric(_("Dropped"), lv.dropped)
    st.caption(_("Attacks are read from {basis}. A claim is dropped when another speaker spoke after it and "
                 "nobody answered it.").format(basis=lv.basis))
    if lv.ledger.unresolved:
        st.caption(_("Cited but not found: ")
                   + ", ".join(views.safe_inline(u) for u in lv.ledger.unresolved))
    with st.expander(_("Ledger table"), expanded=False):
        ui.table(lv.table, hide_index=True, width="stretch", key="ledger-table")


def speeches(ov: views.OutcomeView) -> None:
    """The debate itself first: every speech as a card to read."""
    st.subheader(ngettext("Transcript ({n} speech)", "Transcript ({n} speeches)", len(ov.speeches))
                 .format(n=len(ov.speeches)))
    if not ov.speeches:
        st.caption(_("No speech yet."))
    for i, sv in enumerate(ov.speeches):
        ui.reading_card(sv, key=f"o{i}")


def closing(ov: views.OutcomeView, debate) -> None:
    """The observation or the verdict (or why there is none yet), and a topic debate's wrap-up."""
    if ov.kind == "observation":
        observation(ov)
    elif ov.kind == "verdict":
        verdict(ov)
    elif ov.panel is not None and len(ov.panel):  # a judge panel without a majority verdict stored
        st.subheader(_("Verdict"))
        judge_panel(ov)
    else:
        st.info(_("No outcome yet: the debate is {status}. Follow it on the Live page.")
                .format(status=views.status_text(debate.status)))
        ui.link_to("live", debate.id, _("Open Live"))
    if ov.wrap_up is not None:  # topic debate: the seed's wrap-up (未成辩论 says why; a verdict is a reference
        wrap_up(ov.wrap_up)      # conclusion)


def wrap_up(wu) -> None:
    """The seed's wrap-up: each line's name and the library's words in the reader's language, the debate's own
    words (its topic, its stances, the judge's summary: neutralised by the view) in ``content-…`` regions."""
    st.markdown("### " + views.safe_inline(wu.heading))
    for i, line in enumerate(wu.lines):
        key, value = st.columns([1, 5])
        key.markdown(f"**{views.safe_inline(line.key)}**")
        with value:
            if line.text:  # the library's Markdown (ids and paths as code) around neutralised values
                st.markdown(line.text)
            if line.own:
                with st.container(key=f"content-wrap-up-{i}"):
                    st.markdown("\n".join(("- " if len(line.own) > 1 else "") + own for own in line.own))
    st.markdown("> " + wu.closing)


def analysis(ov: views.OutcomeView, debate) -> None:
    """Checks per round, the argument map and its ledger."""
    st.divider()
    st.subheader(_("Analysis"))
    lv = None
    with ui.guard(_("Argument map")):
        lv = views.ledger_view(debate)
    has_checks = ov.checks is not None and len(ov.checks) > 0
    if not has_checks and lv is None:
        st.caption(_("Nothing to analyse here: this debate has no checks per round and no argument ledger."))
    if has_checks:
        st.markdown("**" + _("Checks per round") + "**")
        st.caption(_("✓ only when every check of a speech passed; ✗ failed, ? undecided. The model audit column "
                     "is the optional review by a model, beside the deterministic rules."))
        ui.table(ov.checks, hide_index=True, width="stretch")
    if lv is not None:
        with ui.guard(_("Argument map")):
            argument_map(lv)


def downloads(arc, debate) -> None:
    st.subheader(_("Downloads"))
    offered = views.downloads(debate)
    cols = st.columns(max(len(offered), 1))
    for i, d in enumerate(offered):
        with cols[i]:
            st.download_button(d.label, data=lambda fmt=d.fmt: views.export_bytes(arc, debate.id, fmt),
                               file_name=d.file_name, mime=d.mime, key=f"dl-{d.fmt}", on_click="ignore")


@ui.page(N_("Outcome"), "🏁")
def outcome() -> None:
    arc = ui.archive()
    debate_id = ui.current_id() or ui.choose_debate("outcome")  # the same picker as Live's
    if not debate_id:
        return
    debate = arc.get_debate(debate_id)
    if st.query_params.get("present") in ("1", "true", "yes"):
        ui.goto("present", debate.id)  # ?present=1: the projector view of the same debate
    ov = views.outcome_view(debate, arc)
    ui.debate_header(debate)
    c1, c2, c3, c4, c5 = st.columns([3, 1, 1, 1, 1], vertical_alignment="center")
    c1.caption(views.safe_inline(ov.headline))
    if ov.own_reason:  # the debate's own stop reason (an imported or a topic debate's), in its language
        with c1.container(key="content-stop-reason"):
            st.caption(views.safe_inline(ov.own_reason))
    with c2:
        ui.link_to("present", debate.id, _("Present"))
    with c3:
        ui.link_to("live", debate.id, _("Open in Live"))
    with c4:
        ui.link_with("compare", _("Compare with…"), a=debate.id)
    with c5:
        ui.copy_link("outcome", id=debate.id)
    speeches(ov)
    st.divider()
    closing(ov, debate)
    analysis(ov, debate)
    st.divider()
    downloads(arc, debate)


outcome()
