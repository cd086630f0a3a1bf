"""Streamlit building blocks shared by the workbench pages (layout only, no business logic).

* :data:`PAGES` — the page files (pages/1_Setup.py, …), their titles and icons;
* :func:`archive` / :func:`jobs` — the archive and its job manager, one per process
  through ``st.cache_resource``; :func:`cached` — a view over the whole archive through
  ``st.cache_data``, until the archive changes;
* :func:`page` — page set-up and the error guard: any exception becomes an
  ``st.error`` with the one-line cause and what to do, never a traceback;
* :func:`speech_card` — one speech: text as Markdown with raw HTML off, speaker,
  role, ammo, citations (verified / unknown), checks, retries, tokens, latency.

Speeches are only ever rendered through ``st.markdown`` with its default
``unsafe_allow_html=False``; nothing here uses ``st.html`` or unsafe HTML.  Every
untrusted value (debate content, names, ids, error causes) goes through
:func:`webapp.views.safe_markdown` / ``safe_inline`` / ``safe_code`` / ``safe_format``
(:mod:`debate_core.render.safe`): no image, link or bare URL in it can fetch or link.
Our own links are ``st.page_link`` widgets, outside the neutralised text.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import streamlit as st

from webapp import i18n, views
from webapp.i18n import N_, _
from webapp.views import present as _present  # noqa: F401 - views.present, the view of pages/6_Present.py
from webapp.views import compare as _compare  # noqa: F401 - views.compare, the view of pages/7_Compare.py
from webapp.views import vote as _vote  # noqa: F401 - views.vote, the view of pages/8_Vote.py and the vote on Present

PAGES = {
    "setup": ("pages/1_Setup.py", N_("Setup"), "🛠️"),
    "live": ("pages/2_Live.py", N_("Live"), "📡"),
    "outcome": ("pages/3_Outcome.py", N_("Outcome"), "🏁"),
    "archive": ("pages/4_Archive.py", N_("Archive"), "🗄️"),
    "coverage": ("pages/5_Coverage.py", N_("Coverage"), "🧭"),
    "present": ("pages/6_Present.py", N_("Present"), "📽️"),
}
# Compare is registered beside the list (not inside it), with its Home blurb in nav_links
PAGES["compare"] = ("pages/7_Compare.py", N_("Compare"), "⚖️")
PAGES["vote"] = ("pages/8_Vote.py", N_("Vote"), "🗳️")  # the room's page of Present's audience vote


def pack_picker(key: str, help_text: str = ""):
    """Default pack or a folder: returns (the loaded pack, the folder or None for the default)."""
    c1, c2 = st.columns([1, 2])
    with c1:
        src = st.radio(_("Pack"), ["default", "folder"], horizontal=True, key=f"{key}_src",
                       format_func=lambda s: _("default pack") if s == "default" else _("a folder"))
    folder = ""
    with c2:
        if src == "folder":
            folder = st.text_input(_("Pack folder"), key=f"{key}_folder",
                                   help=help_text or _("A Master-skill pack folder (master-<slug>/meta.json)"))
    chosen = folder if src == "folder" else None
    return views.load_pack(chosen), chosen


def load_secrets() -> None:
    """Provider keys may come from Streamlit secrets (.streamlit/secrets.toml) as well as
    the environment; they are put where litellm reads them and nowhere else."""
    from debate_core.settings import apply_secrets

    try:
        secrets = {k: st.secrets[k] for k in st.secrets.keys()}
    except Exception:  # noqa: BLE001 - no secrets file is the normal case
        return
    apply_secrets(secrets)


def navigation(home: Callable[[], None]):
    """The app's pages: ``home`` (app.py) first, then the numbered files in pages/."""
    _leave_pages_folder_mode()  # the home page reached through Streamlit's pages/ folder mode (AppTest)
    load_secrets()
    i18n.init()
    i18n.selector()
    pages = [st.Page(home, title=_("Home"), icon="🏠", default=True)]
    for _key, (path, label, icon) in PAGES.items():
        pages.append(st.Page(path, title=_(label), icon=icon, url_path=label))
    return st.navigation(pages)


# ------------------------------------------------------------------ resources


@st.cache_resource(show_spinner=False)
def _archive(path: str):
    from debate_core.archive import open_archive

    return open_archive(path)


def archive():
    """The archive of this process (``$DEBATE_ARCHIVE`` or data/archive.duckdb), opened once."""
    from debate_core.archive import default_archive_path

    return _archive(str(default_archive_path()))


@st.cache_data(show_spinner=False, max_entries=64)
def _cached_view(name: str, path: str, marker: tuple, args: tuple):
    return getattr(views, name)(_archive(path), **dict(args))


def cached(name: str, **kwargs):
    """``views.<name>(archive, **kwargs)`` for a view computed over the whole archive (filter
    options, judges and matchups): computed once per archive file until the archive changes
    (:func:`webapp.views.archive_marker`, one cheap query per run).  The result must not depend on
    the app's language."""
    from debate_core.archive import default_archive_path

    path = str(default_archive_path())
    return _cached_view(name, path, views.archive_marker(_archive(path)), tuple(sorted(kwargs.items())))


@st.cache_resource(show_spinner=False)
def _jobs(path: str):
    from debate_core.jobs import manager_for

    return manager_for(_archive(path))


def jobs():
    from debate_core.archive import default_archive_path

    return _jobs(str(default_archive_path()))


# ---------------------------------------------------------------------- pages


def _is_control_flow(exc: BaseException) -> bool:
    """Streamlit's rerun / stop / switch_page exceptions must pass through the guard."""
    mod = type(exc).__module__ or ""
    return mod.startswith("streamlit.") and type(exc).__name__ in (
        "RerunException", "StopException", "ScriptControlException")


ERROR_CHARS = 300  # an error's cause is shown up to this many characters (an echoed ?id= can be any length)


def show_error(exc: BaseException, where: str = "") -> None:
    """The one-line cause (neutralised: it may echo ``?id=``, a file name or imported text) and what to do."""
    cause, todo = views.explain(exc)
    cause = cause if len(cause) <= ERROR_CHARS else cause[:ERROR_CHARS - 1] + "…"
    st.error(f"**{where + ': ' if where else ''}{views.safe_inline(cause)}**  \n{todo}", icon="⚠️")


@contextmanager
def guard(where: str = "") -> Iterator[None]:
    """Show any error inside as a one-line ``st.error`` with what to do; never a traceback."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the point of the guard
        if _is_control_flow(exc):
            raise
        show_error(exc, where)


def _leave_pages_folder_mode() -> bool:
    """Whether this run came through Streamlit's pages/ folder mode (and leaves it for good).

    Until app.py has called ``st.navigation`` once in the server's process, Streamlit treats pages/
    as a multipage folder: a first visit through a deep link (/Outcome?id=…) runs the page file alone,
    with the folder's raw sidebar (its home named "app") and no language selector.  The flag is the
    process's; once off, every run goes through app.py and its navigation.  AppTest sets it again before
    each of its runs (its switch_page runs the page file alone): left as it is there, or every run would
    restart and lose its clicks."""
    from streamlit import config
    from streamlit.runtime.pages_manager import PagesManager

    if not PagesManager.uses_pages_directory or config.get_option("global.appTest"):
        return False
    PagesManager.uses_pages_directory = False
    return True


def page(title: str, icon: str = "", *, layout: str = "wide", show_title: bool = True,
         sidebar: str = "auto") -> Callable:
    """Decorator for a page body: page config, title (unless ``show_title`` is off: the projector view
    shows the debate's topic instead), navigation and the error guard."""

    def wrap(body: Callable[[], Any]) -> Callable[[], None]:
        @functools.wraps(body)
        def run() -> None:
            if _leave_pages_folder_mode():  # a first visit through a deep link: the same URL through app.py,
                st.rerun()  # so the sidebar is ours (Home, the language selector), as on every other run
            i18n.init()
            shown = _(title)
            st.set_page_config(page_title=f"{shown} · {_('Debate Workbench')}", page_icon=icon or "💬",
                               layout=layout, initial_sidebar_state=sidebar)
            if show_title:
                st.title(f"{icon} {shown}".strip())
            with guard():
                body()

        return run

    return wrap


def nav_links() -> None:
    blurbs = {"setup": _("protocol, topic, masters or stances, rounds, models, pack"),
              "live": _("rounds as they are produced; stop, retry, resume"),
              "outcome": _("observation or verdict, checks, downloads"),
              "archive": _("filters, charts, read-only SQL, import"),
              "coverage": _("who has ammunition against whom"),
              "present": _("a debate round by round on a projector, in large type"),
              "compare": _("two debates side by side, round by round")}
    cols = st.columns(len(PAGES))
    for col, (key, (path, label, icon)) in zip(cols, PAGES.items()):
        with col:
            st.page_link(path, label=_(label), icon=icon, query_params=i18n.params())
            if blurbs.get(key):
                st.caption(blurbs[key])


def page_link(key: str, label: str, icon: str = "") -> None:
    """A link to a page with no debate chosen (keeps the language)."""
    path = PAGES[key][0]
    st.page_link(path, label=label, icon=icon or PAGES[key][2], query_params=i18n.params())


def link_to(key: str, debate_id: str, label: str, icon: str = "") -> None:
    path = PAGES[key][0]
    st.page_link(path, label=label, icon=icon or PAGES[key][2], query_params=i18n.params(id=debate_id))


def link_with(key: str, label: str, icon: str = "", **params: str | None) -> None:
    """A link to a page with the given query params (None dropped) and the language."""
    path = PAGES[key][0]
    st.page_link(path, label=label, icon=icon or PAGES[key][2], query_params=i18n.params(**params))


def share_url(key: str, **params: str | None) -> str:
    """The shareable address of a page with ``params`` and the language: the browser's own address
    (``st.context.url``, its scheme, host and port) with the page's path, else the path alone."""
    from urllib.parse import urlencode, urlsplit, urlunsplit

    path = "/" + PAGES[key][1]
    query = urlencode(i18n.params(**params))
    try:
        base = st.context.url or ""
    except Exception:  # noqa: BLE001 - no browser (AppTest, bare mode)
        base = ""
    if not base:
        return f"{path}?{query}"
    parts = urlsplit(base)
    root = parts.path.rstrip("/")
    for known in (v[1] for v in PAGES.values()):  # the app may sit under a prefix: keep it, replace the page
        if root.endswith("/" + known):
            root = root[: -len(known) - 1]
            break
    return urlunsplit((parts.scheme, parts.netloc, root + path, query, ""))


def copy_link(key: str, **params: str | None) -> None:
    """"Copy link": a popover with the page's shareable address in a code block (its copy button
    puts it on the clipboard); no script of ours, only Streamlit widgets."""
    with st.popover(_("🔗 Copy link")):
        st.caption(_("The address of this page, to share: the copy button at the right of the box copies it."))
        st.code(share_url(key, **params), language=None, wrap_lines=True)


def choose_debate(key: str, limit: int = 50) -> str:
    """What a one-debate page (Live, Outcome) shows without ``?id=``, the same on each: what is missing,
    a picker of the newest debates and the way to start one; the chosen id goes into the URL."""
    from webapp.views.compare import choice_label

    st.info(_("No debate chosen: pick one below, open one from the Archive page, or start one in Setup."))
    recent = views.recent_debates(archive(), limit=limit)
    chosen = None
    if not recent.empty:
        labels = {row.id: choice_label(row) for row in recent.itertuples(index=False)}
        chosen = st.selectbox(_("Debate"), list(labels), format_func=labels.get, index=None,
                              placeholder=_("choose a debate (or open one from the Archive page)"), key=f"{key}-pick")
    page_link("setup", _("Start a debate"))
    if chosen:
        st.query_params["id"] = chosen
    return chosen or ""


def goto(key: str, debate_id: str | None = None) -> None:
    st.switch_page(PAGES[key][0], query_params=i18n.params(id=debate_id))


def table(df, **kwargs):
    """``st.dataframe`` with its column names in the app's language (the frame keeps its own)."""
    shown = df.rename(columns=lambda c: i18n.maybe(c)) if hasattr(df, "rename") else df
    config = kwargs.pop("column_config", None)
    if config:
        kwargs["column_config"] = {i18n.maybe(k): v for k, v in config.items()}
    return st.dataframe(shown, **kwargs)


def current_id() -> str:
    """The ``?id=`` of the URL, as typed: only for looking the debate up.  It is anyone's text (a
    link can carry any value), so a page shows it only through ``views.safe_inline`` / ``safe_code``;
    an unknown id reaches the page as the archive's KeyError, which :func:`show_error` neutralises."""
    value = st.query_params.get("id", "")
    return (value or "").strip()


# -------------------------------------------------------------------- speeches


STATUS_BADGE = {"ok": N_("🟢 ok"), "flagged": N_("🟠 flagged"), "failed": N_("🔴 failed"),
                "empty": N_("⚪ empty")}
STATUS_BADGE_ZH = {"ok": "🟢 通过", "flagged": "🟠 已标记", "failed": "🔴 失败", "empty": "⚪ 空"}


def speech_card(sv: views.SpeechView, *, key: str = "") -> None:
    """One speech, as Markdown with raw HTML off (a master debate's card is Chinese throughout)."""
    if sv.chinese:
        _speech_card_zh(sv)
        return
    with st.container(border=True):
        head, badge = st.columns([5, 1])
        head.markdown(f"#### {views.safe_inline(sv.title)}")
        badge.markdown(_(STATUS_BADGE[sv.status]) if sv.status in STATUS_BADGE else sv.status)
        if sv.status == "failed":
            st.error(_("This round failed: ") + (views.safe_inline("; ".join(sv.warnings)) or _("no reply")), icon="⛔")
        if sv.text:
            st.markdown(views.safe_markdown(sv.text))
        meta = [views.safe_format(_("**speaker** {name} (`{label}`)"), name=sv.speaker_name, label=sv.speaker),
                views.safe_format(_("**role** {role}"), role=sv.role)]
        if sv.model and not sv.engine:  # an imported turn: its model, and no run of ours to account for
            meta.append(views.safe_format(_("**model** `{model}`"), model=sv.model))
        else:
            meta += [_("**retries** {n}").format(n=sv.retries),
                     _("**tokens** {i} in / {o} out").format(i=sv.prompt_tokens, o=sv.completion_tokens),
                     _("**latency** {ms} ms").format(ms=f"{sv.latency_ms:,.0f}"),
                     views.safe_format(_("**engine** `{engine}`"), engine=sv.engine or "—")]
        if sv.cost:
            meta.append(_("**cost** ${cost}").format(cost=f"{sv.cost:.4f}"))
        if sv.truncated:
            meta.append(_("✂️ **truncated**"))
        st.caption(" · ".join(meta))
        c1, c2, c3 = st.columns(3)
        with c1:
            st.markdown(_("**Ammo used**"))
            if sv.ammo_used:
                for a in sv.ammo_used:
                    st.markdown(f"- {views.safe_inline(a)}")
            else:
                st.caption(_("none"))
        with c2:
            st.markdown(_("**Citations**"))
            if sv.citations:
                for c in sv.citations:
                    title = f" — {views.safe_inline(c.title)}" if c.title else ""
                    st.markdown(f"- {views.safe_code(c.id)} {views.safe_inline(i18n.maybe(c.label))}{title}")
            elif not sv.cited:
                st.caption(_("none"))
            if sv.cited:
                st.markdown(_("cites the claims {ids}").format(ids=", ".join(views.safe_code(c) for c in sv.cited)))
        with c3:
            st.markdown(_("**Checks**"))
            if sv.findings:
                passed = [f["rule"] for f in sv.findings if f["passed"] and not f.get("undecided")]
                if passed:
                    st.markdown(("✓ " if sv.clean else _("passed: ")) + " · ".join(views.safe_code(r) for r in passed))
                for f in sv.findings:
                    if not f["passed"] or f.get("undecided"):
                        sign = "?" if f.get("undecided") else "✗"
                        layer = _(" (model audit)") if f.get("layer") == "model" else ""
                        st.markdown(f"{sign} {views.safe_code(f['rule'])}{layer} — {views.safe_inline(f['message'])}")
            else:
                st.caption(_("no checks for this protocol"))
        if sv.tool_calls:
            st.caption(_("research: ") + "; ".join(views.safe_inline(t) for t in sv.tool_calls))
        for w in sv.warnings if sv.status != "failed" else []:
            st.caption(f"⚠️ {views.safe_inline(w)}")


def _finding_md(f: dict, clean: bool) -> str:
    if f.get("undecided"):
        sign = "?"
    elif not f["passed"]:
        sign = "✗"
    else:
        sign = "✓" if clean else "通过"
    msg = f"：{views.safe_inline(f['message'])}" if f["message"] and (not f["passed"] or f.get("undecided")) else ""
    return f"- {sign} {views.safe_inline(f['label'])}{msg}"


def _speech_card_zh(sv: views.SpeechView) -> None:
    """A master-debate speech: the seed's heading ``### R1｜慧能大师 立论``, then the text, the checks
    (deterministic rules, and the model audit in its own column), the citation marks and the ammo."""
    with st.container(border=True):
        head, badge = st.columns([5, 1])
        head.markdown(f"### {views.safe_inline(sv.title)}")
        badge.markdown(STATUS_BADGE_ZH.get(sv.status, sv.status) if sv.status != "ok" or sv.clean
                       else "🟠 " + views.safe_inline(sv.verdict))
        if sv.status == "failed":
            st.error("本轮未完成：" + (views.safe_inline("；".join(sv.warnings)) or "没有回复"), icon="⛔")
        if sv.text:
            st.markdown(views.safe_markdown(sv.text))
        st.markdown(f"**检查结果** {views.safe_inline(sv.verdict)}")
        engine = "离线引擎" if sv.engine == "offline" else views.safe_code(sv.engine or "—")  # a model string is a name
        meta = [f"发言者 {views.safe_inline(sv.speaker_name)}", f"角色 {views.safe_inline(sv.role)}",
                f"重试 {sv.retries} 次", f"用量 输入 {sv.prompt_tokens} / 输出 {sv.completion_tokens}",
                f"耗时 {sv.latency_ms:,.0f} 毫秒", f"引擎 {engine}"]
        if sv.cost:
            meta.append(f"费用 ${sv.cost:.4f}")
        if sv.truncated:
            meta.append("✂️ 已截断")
        st.caption(" · ".join(meta))
        model = sv.model_findings
        cols = st.columns(4 if model else 3)
        with cols[0]:
            st.markdown("**引证核对**")
            if sv.citations:
                for c in sv.citations:
                    title = f"《{views.safe_inline(c.title.strip('《》'))}》" if c.title else ""
                    quote = f"「{views.safe_inline(c.quote)}」" if c.quote else ""
                    st.markdown(f"- {views.safe_code(c.id)}{title} {views.safe_inline(c.label)}{quote}")
            else:
                st.caption("无引证")
        with cols[1]:
            st.markdown("**规则检查**")
            rules = sv.rule_findings
            if rules:
                st.markdown("\n".join(_finding_md(f, sv.clean) for f in rules))
            else:
                st.caption("无检查")
        if model:
            with cols[2]:
                st.markdown("**模型审核**")
                st.markdown("\n".join(_finding_md(f, sv.clean) for f in model))
        with cols[-1]:
            st.markdown("**所用弹药**")
            if sv.ammo_used:
                for a in sv.ammo_used:
                    st.markdown(f"- {views.safe_inline(a)}")
            else:
                st.caption("无")
        if sv.tool_calls:
            st.caption("检索：" + "；".join(views.safe_inline(t) for t in sv.tool_calls))
        for w in sv.warnings if sv.status != "failed" else []:
            st.caption(f"⚠️ {views.safe_inline(w)}")


def _note_line(n: int, c: views.CitationView, chinese: bool) -> str:
    """One numbered note: the source's title, its id, and its verification mark (with the quote)."""
    title = c.title.strip("《》") if c.title else ""
    title = (f"《{views.safe_inline(title)}》" if chinese else views.safe_inline(title)) if title else ""
    quote = f"「{views.safe_inline(c.quote)}」" if c.quote else ""
    mark = views.safe_inline(c.label if chinese else i18n.maybe(c.label))
    return f"{n}. {title} {views.safe_code(c.id)} {mark}{quote}".replace("  ", " ")


def _finding_line(f: dict, sv: views.SpeechView) -> str:
    if f.get("undecided"):
        sign = "?"
    elif not f["passed"]:
        sign = "✗"
    else:
        sign = "✓" if sv.clean else ("通过" if sv.chinese else _("passed"))
    name = views.safe_inline(f["label"]) if sv.chinese else views.safe_code(f["rule"])
    msg = views.safe_inline(f["message"]) if f["message"] and (not f["passed"] or f.get("undecided")) else ""
    return f"- {sign} {name}" + (("：" if sv.chinese else " — ") + msg if msg else "")


def _speech_meta(sv: views.SpeechView) -> str:
    """Who spoke and what the run cost; no token usage for the offline engine (it has none)."""
    from webapp.views.outcome import shows_usage

    meta = [views.safe_format(_("**speaker** {name} (`{label}`)"), name=sv.speaker_name, label=sv.speaker),
            views.safe_format(_("**role** {role}"), role=sv.role)]
    if sv.model and not sv.engine:  # an imported turn: its model, and no run of ours to account for
        meta.append(views.safe_format(_("**model** `{model}`"), model=sv.model))
    else:
        meta.append(_("**retries** {n}").format(n=sv.retries))
        if shows_usage(sv):
            meta.append(_("**tokens** {i} in / {o} out").format(i=sv.prompt_tokens, o=sv.completion_tokens))
        meta += [_("**latency** {ms} ms").format(ms=f"{sv.latency_ms:,.0f}"),
                 views.safe_format(_("**engine** `{engine}`"), engine=sv.engine or "—")]
    if sv.cost:
        meta.append(_("**cost** ${cost}").format(cost=f"{sv.cost:.4f}"))
    if sv.truncated:
        meta.append(_("✂️ **truncated**"))
    return " · ".join(meta)


def reading_card(sv: views.SpeechView, *, key: str = "") -> None:
    """One speech for reading (Outcome): its heading, its text in paragraphs with each citation a
    numbered note (the source's title and its verification mark), then one check badge that opens on
    the findings, the ammo and the run's details.  The labels follow the app's language; the speech,
    its heading and its checks' names stay in the debate's own."""
    from webapp.views.outcome import check_badge, reading_markdown

    with st.container(border=True, key=f"speech-{key}" if key else None):
        head, badge = st.columns([5, 1])
        head.markdown(("### " if sv.chinese else "#### ") + views.safe_inline(sv.title))
        if sv.status != "ok" and sv.status in STATUS_BADGE:
            badge.markdown(_(STATUS_BADGE[sv.status]))
        if sv.status == "failed":
            sep = "；" if sv.chinese else "; "
            st.error(_("This round failed: ") + (views.safe_inline(sep.join(sv.warnings)) or _("no reply")), icon="⛔")
        if sv.text:
            st.markdown(reading_markdown(sv))
        if sv.citations:
            st.markdown(_("**Notes**") + "\n\n" + "\n".join(_note_line(n, c, sv.chinese)
                                                              for n, c in enumerate(sv.citations, 1)))
        if sv.cited:
            st.caption(_("cites the claims {ids}").format(ids=", ".join(views.safe_code(c) for c in sv.cited)))
        result = check_badge(sv)
        label = _("Checks: {result}").format(result=views.safe_inline(result)) if result else _("Details")
        with st.expander(label, expanded=False):
            rules, model = sv.rule_findings, sv.model_findings
            if rules:
                st.markdown(_("**Rule checks**") + "\n\n" + "\n".join(_finding_line(f, sv) for f in rules))
            if model:
                st.markdown(_("**Model audit**") + "\n\n" + "\n".join(_finding_line(f, sv) for f in model))
            if not sv.findings:
                st.caption(_("no checks for this protocol"))
            if sv.ammo_used:
                st.markdown(_("**Ammo used**") + "\n\n" + "\n".join(f"- {views.safe_inline(a)}" for a in sv.ammo_used))
            if sv.tool_calls:
                st.caption(_("research: ") + "; ".join(views.safe_inline(t) for t in sv.tool_calls))
            st.caption(_speech_meta(sv))
        for w in sv.warnings if sv.status != "failed" else []:
            st.caption(f"⚠️ {views.safe_inline(w)}")


def debate_header(debate) -> None:
    if views.is_chinese(debate):
        _debate_header_zh(debate)
        return
    who = " vs ".join(views.safe_inline(p.name or p.label) + (f" ({views.safe_inline(p.stance)})" if p.stance
                                                             else "") for p in debate.participants)
    st.markdown(f"### {views.safe_inline(debate.topic)}")
    pack = (" · " + views.safe_format(_("pack {name} {version}"), name=debate.pack_name,
                                      version=debate.pack_version).rstrip() if debate.pack_name else "")
    models = views.safe_format(_("models: {models}"), models=", ".join(debate.models) or "—")
    st.caption(f"{views.safe_code(debate.id)} · {views.safe_inline(debate.protocol)} · {who} · {models}{pack}")
    for w in debate.warnings:
        st.warning(views.safe_markdown(w))


def _debate_header_zh(debate) -> None:
    """A master debate's header: the seed's disclaimer and ``## 议题：…``, then who, models and pack."""
    from debate_core.render.master import DISCLAIMER

    st.markdown(DISCLAIMER)
    st.markdown(f"## 议题：{views.safe_inline(debate.topic)}")
    who = " 对 ".join(views.safe_inline(p.name or p.label) for p in debate.participants)
    pack_id = f"{debate.pack_name} {debate.pack_version}".strip()
    pack = f" · 人物包 {views.safe_code(pack_id)}" if debate.pack_name else ""
    check = f" · 审核模型 {views.safe_code(debate.config.check_model)}" if debate.config.check_model else ""
    models = ", ".join(views.safe_code(m) for m in debate.models) or "—"
    st.caption(f"{views.safe_code(debate.id)} · 祖师辩论 · {who} · 模型 {models}{check}{pack}")
    for w in debate.warnings:
        st.warning(views.safe_markdown(w))
