"""Outcome: the neutral observation or the judged verdict, the checks, the transcript, downloads.  ?id=…"""

import streamlit as st

from webapp import ui, views
from webapp.i18n import N_, _, ngettext


def pick_debate() -> str:
    recent = views.recent_debates(ui.archive(), limit=50)
    if recent.empty:
        st.info(_("The archive has no debate yet: start one in Setup."))
        ui.page_link("setup", _("Start a debate"))
        return ""
    labels = {row.id: f"{row.id} · {row.protocol} · {views.status_text(row.status)} · {row.topic[:60]}"
              for row in recent.itertuples(index=False)}
    chosen = st.selectbox(_("Debate"), list(labels), format_func=labels.get, index=None,
                          placeholder=_("choose a debate (or open one from the Archive page)"), key="pick")
    if chosen:
        st.query_params["id"] = chosen
    return chosen or ""


def observation(ov: views.OutcomeView) -> None:
    """The seed's closing section, exactly: its heading (``### 教内余争 — 中立观察``) and its three bullets."""
    st.markdown(f"### {ov.heading}")
    st.markdown("\n".join(f"- {k}：{views.safe_inline(v)}" for k, v in ov.observation.items()))
    st.caption("祖师辩论不判胜负，只陈述分歧所在。")


def verdict(ov: views.OutcomeView) -> None:
    st.subheader(_("Verdict"))
    if not ov.parsed:
        st.warning(_("The judge's verdict could not be parsed: there is no winner (this is not a draw). Raw text:"))
        st.code(ov.raw or _("(empty)"), language=None)
        return
    st.success("**" + views.safe_format(_("Winner: {winner}"), winner=ov.winner_text) + "**"
               + (f" — {views.safe_inline(ov.summary)}" if ov.summary else ""))
    if ov.incomplete:  # the judge left something out, even after being asked once more
        st.warning(ov.incomplete)
    if ov.judge:
        st.caption(views.safe_format(_("judge: `{model}`"), model=ov.judge))
    if ov.reasons:
        st.markdown(_("**Reasons**"))
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
    if ov.note:
        st.markdown(_("**To the reader**") + f"：{views.safe_inline(ov.note)}")


def judge_panel(ov: views.OutcomeView) -> None:
    """An imported debate's judge panel: one row per judge, then each judge's notes."""
    st.markdown(_("**Judge panel**"))
    ui.table(ov.panel, hide_index=True, width="stretch", key="judge-panel")
    st.caption(_("Margins are signed: positive favours PRO, negative CON."))
    for n in ov.panel_notes:
        line = f"- **{views.safe_inline(n['judge'])}** ({views.safe_inline(n['winner'])})"
        if n["notes"]:
            line += f": {views.safe_inline(n['notes'])}"
        st.markdown(line)
        if n["decisive"]:
            st.caption(views.safe_format(_("Most decisive: {text}"), text=n["decisive"]))


def argument_map(debate) -> None:
    """The ledger as a map (claims by round and speaker, attacks, dropped claims), its counts and table."""
    lv = views.ledger_view(debate)
    if lv is None:
        return
    zh = lv.chinese
    st.subheader("论证图" if zh else _("Argument map"))
    st.plotly_chart(lv.figure(), key="argument-map")
    c = st.columns(3)
    c[0].metric("论点" if zh else _("Claims"), lv.claims)
    c[1].metric("回应" if zh else _("Attacks"), lv.attacks)
    c[2].metric("未被回应" if zh else _("Dropped"), lv.dropped)
    if zh:
        st.caption(f"回应关系读自{lv.basis}；未被回应：对方之后发过言却没有回应的论点。")
    else:
        st.caption(_("Attacks are read from {basis}. A claim is dropped when another speaker spoke after it and "
                     "nobody answered it.").format(basis=lv.basis))
    if lv.ledger.unresolved:
        st.caption(("引用了但找不到：" if zh else _("Cited but not found: "))
                   + ", ".join(views.safe_inline(u) for u in lv.ledger.unresolved))
    with st.expander("论点表" if zh else _("Ledger table"), expanded=False):
        ui.table(lv.table, hide_index=True, width="stretch", key="ledger-table")


@ui.page(N_("Outcome"), "🏁")
def outcome() -> None:
    arc = ui.archive()
    debate_id = ui.current_id() or pick_debate()
    if not debate_id:
        return
    debate = arc.get_debate(debate_id)
    ov = views.outcome_view(debate, arc)
    zh = views.is_chinese(debate)
    ui.debate_header(debate)
    st.caption(views.safe_inline(ov.headline))
    if ov.kind == "observation":
        observation(ov)
    elif ov.kind == "verdict":
        verdict(ov)
    elif ov.panel is not None and len(ov.panel):  # a judge panel without a majority verdict stored
        st.subheader(_("Verdict"))
        judge_panel(ov)
    elif zh:
        st.info(f"尚无中立观察：本场辩论{views.status_zh(debate.status)}。可在 Live 页查看进度。")
        ui.link_to("live", debate.id, _("Open Live"))
    else:
        st.info(_("No outcome yet: the debate is {status}. Follow it on the Live page.")
                .format(status=views.status_text(debate.status)))
        ui.link_to("live", debate.id, _("Open Live"))
    if ov.wrap_up:  # topic debate: the seed's wrap-up (未成辩论 says why; a verdict is a reference conclusion);
        st.markdown(ov.wrap_up)  # our Markdown around the debate's neutralised values (views.outcome_view)
    if ov.checks is not None and len(ov.checks):
        st.subheader("各轮检查" if zh else _("Checks per round"))
        if zh:
            st.caption("✓ 仅在一篇发言的全部检查都通过时出现；✗ 未通过，? 未能判定。模型审核一栏是可选的模型复核，"
                       "与确定性规则分列。")
        ui.table(ov.checks, hide_index=True, width="stretch")
    with ui.guard("论证图" if zh else _("Argument map")):
        argument_map(debate)

    st.subheader(_("Downloads"))
    offered = views.downloads(debate)
    cols = st.columns(max(len(offered), 1))
    for i, d in enumerate(offered):
        with cols[i]:
            st.download_button(d.label, data=lambda fmt=d.fmt: views.export_bytes(arc, debate.id, fmt),
                               file_name=d.file_name, mime=d.mime, key=f"dl-{d.fmt}", on_click="ignore")

    label = (f"全文（{len(ov.speeches)} 篇发言）" if zh
             else ngettext("Transcript ({n} speech)", "Transcript ({n} speeches)", len(ov.speeches))
             .format(n=len(ov.speeches)))
    with st.expander(label, expanded=False):
        for i, sv in enumerate(ov.speeches):
            ui.speech_card(sv, key=f"o{i}")
    ui.link_to("live", debate.id, _("Open in Live"))


outcome()
