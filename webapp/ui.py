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
import re
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
        src = st.radio(_("Persona pack"), ["default", "folder"], horizontal=True, key=f"{key}_src",
                       format_func=lambda s: _("default pack") if s == "default" else _("a folder"))
    folder = ""
    with c2:
        if src == "folder":
            folder = st.text_input(_("Pack folder"), key=f"{key}_folder",
                                   help=help_text or _("A persona pack folder in the Master-skill layout (a master-… "
                                                       "folder per master)"))
    st.caption(_(views.PACK_HELP))  # what a persona pack is, where the word first appears
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
              "coverage": _("which masters have ammo (critiques) against which"),
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
    """``st.dataframe`` with its column names in the app's language, field-like ones (``created_at``) by their
    labels (``views.column_label``; the frame keeps its own)."""
    shown = df.rename(columns=views.column_label) if hasattr(df, "rename") else df
    config = kwargs.pop("column_config", None)
    if config:
        kwargs["column_config"] = {views.column_label(k): v for k, v in config.items()}
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


def speech_card(sv: views.SpeechView, *, key: str = "") -> None:
    """One speech, as Markdown with raw HTML off: the debate's words (its text, ammo, the titles it
    cites) in a ``content-…`` container in the debate's language, every label in the reader's."""
    with st.container(border=True):
        head, badge = st.columns([5, 1])
        speech_heading(head, sv, key)
        if sv.status == "ok" and sv.findings and not sv.clean:
            badge.markdown("🟠 " + views.safe_inline(sv.verdict))
        else:
            badge.markdown(_(STATUS_BADGE[sv.status]) if sv.status in STATUS_BADGE else sv.status)
        if sv.status == "failed":
            failure(sv, key)
        if sv.text:
            with st.container(key=f"content-live-{key}" if key else None):
                st.markdown(views.safe_markdown(sv.text))
        no_new_points(sv)
        if sv.findings:
            st.markdown(_("**Check result** {badge}").format(badge=views.safe_inline(sv.verdict)))
        meta = [_speaker(sv), views.safe_format(_("**role** {role}"), role=views.role_text(sv.role))]
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
                with st.container(key=f"content-ammo-{key}" if key else None):
                    st.markdown("\n".join(f"- {views.safe_inline(a)}" for a in sv.ammo_used))
            else:
                st.caption(_("none"))
        with c2:
            st.markdown(_("**Citations**"))
            if sv.citations:
                with st.container(key=f"content-cites-{key}" if key else None):
                    for c in sv.citations:
                        title = c.title.strip("《》") if c.title else ""
                        shown = views.safe_inline(title)
                        title = (f"《{shown}》" if sv.chinese else f" — {shown}") if title else ""
                        quote = f"「{views.safe_inline(c.quote)}」" if c.quote else ""
                        st.markdown(f"- {views.safe_code(c.id)}{title} {views.safe_inline(c.label)}{quote}")
            elif not sv.cited:
                st.caption(_("none"))
            if sv.cited:
                st.markdown(_("cites the claims {ids}").format(ids=", ".join(views.safe_code(c) for c in sv.cited)))
        with c3:
            st.markdown(_("**Checks**"))
            if sv.findings:
                for layer, title in (("rules", ""), ("model", _("**Model audit**"))):
                    found = sv.model_findings if layer == "model" else sv.rule_findings
                    if found:
                        findings_block(found, sv, f"{key}-{layer}", title)
            else:
                st.caption(_("no checks for this protocol"))
        if sv.tool_calls:
            st.caption(_("research: ") + "; ".join(views.safe_inline(t) for t in sv.tool_calls))
        speech_warnings(sv, key)


def no_new_points(sv: views.SpeechView) -> None:
    """A topic debater's stop flag (its envelope's ``no_new_points``), said by the app in the reader's language."""
    if sv.no_new_points:
        st.caption(_("No new points: the debater had nothing new to add this round."))


def speech_heading(where, sv: views.SpeechView, key: str = "") -> None:
    """A speech's heading: the app's (R1｜慧能大师 Opening: its role in the reader's language), or an imported
    turn's own (Turn 3: PRO Rebuttal 1), which is the debate's words: in a ``content-…`` region."""
    line = ("### " if sv.chinese else "#### ") + views.safe_inline(sv.title)
    if sv.heading and key:
        with where.container(key=f"content-heading-{key}"):
            st.markdown(line)
    else:
        where.markdown(line)


def _note_line(n: int, c: views.CitationView, chinese: bool) -> str:
    """One numbered note: the source's title, its id, and its verification mark (with the quote)."""
    title = c.title.strip("《》") if c.title else ""
    title = (f"《{views.safe_inline(title)}》" if chinese else views.safe_inline(title)) if title else ""
    quote = f"「{views.safe_inline(c.quote)}」" if c.quote else ""
    mark = views.safe_inline(c.label)
    return f"{n}. {title} {views.safe_code(c.id)} {mark}{quote}".replace("  ", " ")


def _shown_message(f: dict) -> bool:
    return bool(f["message"]) and f.get("applies", True) and (not f["passed"] or f.get("undecided"))


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _quotes_inline(sv: views.SpeechView) -> bool:
    """The debate's words a finding quotes go inline when the debate speaks the reader's language, else as
    numbered notes in a content region."""
    return (i18n.current() == "zh") == bool(sv.chinese)


def _in_readers_language(text: str) -> bool:
    """Whether stored words (a finding's message without details) are in the reader's language: Chinese
    words under the Chinese UI, words without Chinese under the English one."""
    return bool(_CJK.search(text or "")) == (i18n.current() == "zh")


def _finding_line(f: dict, sv: views.SpeechView, notes: list[str]) -> str:
    """One finding in the reader's language: its state, the rule's name (from the rule registry) and, for a
    failed or undecided one, what the check found, said from the finding's details (the words it quotes from
    the debate go on ``notes`` when the debate speaks another language).  A finding without details (stored
    before they existed, imported, the model audit's own words) has its stored message here when it is in the
    reader's language, else apart, in the checker's own words (:func:`_checker_words`)."""
    if not f.get("applies", True):  # not applicable is never a pass
        return f"- {views.safe_inline(f['label'])}{_(': ')}{_('not applicable')}"
    sign = views.finding_state(f, sv.clean)
    said = views.finding_said(f, inline=_quotes_inline(sv), notes=notes) if _shown_message(f) else None
    msg = said.text if said is not None else ""
    if said is None and _shown_message(f) and _in_readers_language(f["message"]):
        msg = f["message"]
    return f"- {sign} {views.safe_inline(f['label'])}" + (_(": ") + views.safe_inline(msg) if msg else "")


def findings_block(findings: list[dict], sv: views.SpeechView, key: str, title: str = "") -> None:
    """A speech's findings of one layer, in the reader's language; then the debate's words they quote (by note
    number) and the messages the app cannot say, each in a ``content-…`` region."""
    notes: list[str] = []
    st.markdown((title + "\n\n" if title else "") + "\n".join(_finding_line(f, sv, notes) for f in findings))
    if notes:
        st.caption(_("The words the checks quote:"))
        with st.container(key=f"content-quoted-{key}"):
            st.markdown("\n".join(f"{n}. {views.safe_inline(q)}" for n, q in enumerate(notes, 1)))
    _checker_words(findings, key)


def _checker_words(findings: list[dict], key: str) -> None:
    """The messages the app cannot say in the reader's language (a finding without details: stored before
    they existed, imported, or the model audit's own words): the checker's own words, quoted in a
    ``content-…`` container."""
    raw = [f for f in findings if _shown_message(f) and views.finding_said(f) is None
           and not _in_readers_language(f["message"])]
    if raw:
        st.caption(_("In the checker's own words:"))
        with st.container(key=f"content-checker-{key}"):
            st.markdown("\n".join(f"- {views.safe_inline(f['label'])}: {views.safe_inline(f['message'])}"
                                   for f in raw))


def failure(sv: views.SpeechView, key: str = "") -> None:
    """A failed round's line: its cause in the reader's language (a model failure's cause, from its code); a
    cause the app cannot say, in the engine's own words in a ``content-…`` region."""
    causes = [views.cause_text(w) for w in sv.warnings]
    if all(c is not None for c in causes):
        st.error(_("This round failed: ") + (views.safe_inline(_("; ").join(c or "" for c in causes))
                                              or _("no reply")), icon="⛔")
        return
    st.error(_("This round failed; the engine's own words:"), icon="⛔")
    with st.container(key=f"content-failure-{key}" if key else None):
        st.markdown(views.safe_inline(("；" if sv.chinese else "; ").join(sv.warnings)))


def speech_warnings(sv: views.SpeechView, key: str = "") -> None:
    """A speech's warnings (not a failed one's: its line says them): the library's notes (a cut speech, a resent
    reply …) in the reader's language; any other, the debate's own, in a ``content-…`` region."""
    shown = sv.warnings if sv.status != "failed" else []
    said = [views.app_warning(w) for w in shown]  # a note the library wrote: in the reader's language
    for text in said:
        if text is not None:
            st.caption(f"⚠️ {views.safe_inline(text)}")
    own = [w for w, text in zip(shown, said) if text is None]
    if own:
        with st.container(key=f"content-warnings-{key}" if key else None):
            for w in own:
                st.caption(f"⚠️ {views.safe_inline(w)}")


def _speaker(sv: views.SpeechView) -> str:
    """**speaker** 慧能大师 (`huineng`); the label only where it says more than the name (not 辩手甲 (`辩手甲`))."""
    label = views.side_text(sv.speaker)
    if label in ("", sv.speaker_name):
        return views.safe_format(_("**speaker** {name}"), name=sv.speaker_name)
    return views.safe_format(_("**speaker** {name} (`{label}`)"), name=sv.speaker_name, label=label)


def _speech_meta(sv: views.SpeechView) -> str:
    """Who spoke and what the run cost; no token usage for the offline engine (it has none)."""
    from webapp.views.outcome import shows_usage

    meta = [_speaker(sv), views.safe_format(_("**role** {role}"), role=views.role_text(sv.role))]
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
        speech_heading(head, sv, key)
        if sv.status != "ok" and sv.status in STATUS_BADGE:
            badge.markdown(_(STATUS_BADGE[sv.status]))
        if sv.status == "failed":
            failure(sv, key)
        if sv.text:
            with st.container(key=f"content-text-{key}" if key else None):  # the debate's own words
                st.markdown(reading_markdown(sv))
        no_new_points(sv)
        if sv.citations:
            st.markdown(_("**Notes**"))
            with st.container(key=f"content-notes-{key}" if key else None):  # the cited titles and quotes
                st.markdown("\n".join(_note_line(n, c, sv.chinese) for n, c in enumerate(sv.citations, 1)))
        if sv.cited:
            st.caption(_("cites the claims {ids}").format(ids=", ".join(views.safe_code(c) for c in sv.cited)))
        result = check_badge(sv)
        label = _("Checks: {result}").format(result=views.safe_inline(result)) if result else _("Details")
        with st.expander(label, expanded=False):
            rules, model = sv.rule_findings, sv.model_findings
            if rules:
                findings_block(rules, sv, f"{key}-rules", _("**Rule checks**"))
            if model:
                findings_block(model, sv, f"{key}-model", _("**Model audit**"))
            if not sv.findings:
                st.caption(_("no checks for this protocol"))
            if sv.ammo_used:
                st.markdown(_("**Ammo used**"))
                with st.container(key=f"content-ammo-{key}" if key else None):  # the pack's own words
                    st.markdown("\n".join(f"- {views.safe_inline(a)}" for a in sv.ammo_used))
            if sv.tool_calls:
                st.caption(_("research: ") + "; ".join(views.safe_inline(t) for t in sv.tool_calls))
            st.caption(_speech_meta(sv))
        speech_warnings(sv, key)


def debate_header(debate) -> None:
    """A debate's header: (a master debate's: the seed's disclaimer, in the reader's language) the topic —
    the debate's own words, in a ``content-topic`` container — then the app's line about it (id, protocol,
    who, models, pack) and its warnings, in the reader's language."""
    if views.is_chinese(debate):
        st.markdown("> " + _(views.DISCLAIMER))
    label = _("Topic: ") if views.is_chinese(debate) else ""
    with st.container(key="content-topic"):
        st.markdown(("## " if views.is_chinese(debate) else "### ") + label + views.safe_inline(debate.topic))
    pack_id = f"{debate.pack_name} {debate.pack_version or ''}".strip()
    pack = " · " + views.safe_format(_("pack `{pack}`"), pack=pack_id) if debate.pack_name else ""
    check = (" · " + views.safe_format(_("check model `{model}`"), model=debate.config.check_model)
             if debate.config.check_model else "")
    models = _("models: {models}").format(models=", ".join(views.safe_code(m) for m in debate.models) or "—")
    st.caption(f"{views.safe_code(debate.id)} · {views.safe_inline(views.protocol_text(debate.protocol))} · "
               f"{views.safe_inline(views.who_text(debate))} · {models}{check}{pack}")
    stances = views.own_stances(debate)
    if stances:  # a topic debate's stances: its own words, in its language
        with st.container(key="content-stances"):
            st.markdown("\n".join(f"- **{views.safe_inline(name)}** — {views.safe_inline(stance)}"
                                   for name, stance in stances))
    for i, w in enumerate(debate.warnings):
        said = views.app_warning(w)
        if said is not None:  # the app's own warning: in the reader's language
            st.warning(views.safe_markdown(said))
        else:  # a debate's own note (an imported debate's, a protocol's in the debate's language)
            with st.container(key=f"content-warning-{i}"):
                st.warning(views.safe_markdown(w))
