"""Streamlit building blocks shared by the workbench pages (layout only, no business logic).

* :func:`archive` / :func:`jobs` — the archive and its job manager, one per process
  through ``st.cache_resource``;
* :func:`page` — page set-up and the error guard: any exception becomes an
  ``st.error`` with the one-line cause and what to do, never a traceback;
* :func:`speech_card` — one speech: text as Markdown with raw HTML off, speaker,
  role, ammo, citations (verified / unknown), checks, retries, tokens, latency.

Speeches are only ever rendered through ``st.markdown`` with its default
``unsafe_allow_html=False`` (and :func:`debate_core.views.safe_markdown`); nothing
here uses ``st.html`` or unsafe HTML.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import streamlit as st

from . import views

PAGES = {
    "setup": ("pages/1_Setup.py", "Setup", "🛠️"),
    "live": ("pages/2_Live.py", "Live", "📡"),
    "outcome": ("pages/3_Outcome.py", "Outcome", "🏁"),
    "archive": ("pages/4_Archive.py", "Archive", "🗄️"),
    "coverage": ("pages/5_Coverage.py", "Coverage", "🧭"),
}


def pack_picker(key: str, help_text: str = "A Master-skill pack folder (master-<slug>/meta.json)"):
    """Default pack or a folder: returns (the loaded pack, the folder or None for the default)."""
    c1, c2 = st.columns([1, 2])
    with c1:
        src = st.radio("Pack", ["default", "folder"], horizontal=True, key=f"{key}_src",
                       format_func=lambda s: "default pack" if s == "default" else "a folder")
    folder = ""
    with c2:
        if src == "folder":
            folder = st.text_input("Pack folder", key=f"{key}_folder", help=help_text)
    chosen = folder if src == "folder" else None
    return views.load_pack(chosen), chosen


def load_secrets() -> None:
    """Provider keys may come from Streamlit secrets (.streamlit/secrets.toml) as well as
    the environment; they are put where litellm reads them and nowhere else."""
    from .api import apply_secrets

    try:
        secrets = {k: st.secrets[k] for k in st.secrets.keys()}
    except Exception:  # noqa: BLE001 - no secrets file is the normal case
        return
    apply_secrets(secrets)


def navigation(home: Callable[[], None]):
    """The app's pages: ``home`` (app.py) first, then the numbered files in pages/."""
    load_secrets()
    pages = [st.Page(home, title="Home", icon="🏠", default=True)]
    for _key, (path, label, icon) in PAGES.items():
        pages.append(st.Page(path, title=label, icon=icon, url_path=label))
    return st.navigation(pages)


# ------------------------------------------------------------------ resources


@st.cache_resource(show_spinner=False)
def _archive(path: str):
    from .archive import open_archive

    return open_archive(path)


def archive():
    """The archive of this process (``$DEBATE_ARCHIVE`` or data/archive.duckdb), opened once."""
    from .archive import default_archive_path

    return _archive(str(default_archive_path()))


@st.cache_resource(show_spinner=False)
def _jobs(path: str):
    from .jobs import manager_for

    return manager_for(_archive(path))


def jobs():
    from .archive import default_archive_path

    return _jobs(str(default_archive_path()))


# ---------------------------------------------------------------------- pages


def _is_control_flow(exc: BaseException) -> bool:
    """Streamlit's rerun / stop / switch_page exceptions must pass through the guard."""
    mod = type(exc).__module__ or ""
    return mod.startswith("streamlit.") and type(exc).__name__ in (
        "RerunException", "StopException", "ScriptControlException")


def show_error(exc: BaseException, where: str = "") -> None:
    cause, todo = views.explain(exc)
    st.error(f"**{where + ': ' if where else ''}{cause}**  \n{todo}", icon="⚠️")


@contextmanager
def guard(where: str = "") -> Iterator[None]:
    """Show any error inside as a one-line ``st.error`` with what to do; never a traceback."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - the point of the guard
        if _is_control_flow(exc):
            raise
        show_error(exc, where)


def page(title: str, icon: str = "", *, layout: str = "wide") -> Callable:
    """Decorator for a page body: page config, title, navigation and the error guard."""

    def wrap(body: Callable[[], Any]) -> Callable[[], None]:
        @functools.wraps(body)
        def run() -> None:
            st.set_page_config(page_title=f"{title} · Debate Workbench", page_icon=icon or "💬", layout=layout)
            st.title(f"{icon} {title}".strip())
            with guard():
                body()

        return run

    return wrap


def nav_links() -> None:
    blurbs = {"setup": "protocol, topic, masters or stances, rounds, models, pack",
              "live": "rounds as they are produced; stop, retry, resume",
              "outcome": "observation or verdict, checks, downloads",
              "archive": "filters, charts, read-only SQL, import",
              "coverage": "who has ammunition against whom"}
    cols = st.columns(len(PAGES))
    for col, (key, (path, label, icon)) in zip(cols, PAGES.items()):
        with col:
            st.page_link(path, label=label, icon=icon)
            st.caption(blurbs[key])


def link_to(key: str, debate_id: str, label: str, icon: str = "") -> None:
    path = PAGES[key][0]
    st.page_link(path, label=label, icon=icon or PAGES[key][2], query_params={"id": debate_id})


def goto(key: str, debate_id: str | None = None) -> None:
    st.switch_page(PAGES[key][0], query_params={"id": debate_id} if debate_id else None)


def current_id() -> str:
    value = st.query_params.get("id", "")
    return (value or "").strip()


# -------------------------------------------------------------------- speeches


STATUS_BADGE = {"ok": "🟢 ok", "flagged": "🟠 flagged", "failed": "🔴 failed", "empty": "⚪ empty"}


def speech_card(sv: views.SpeechView, *, key: str = "") -> None:
    """One speech, as Markdown with raw HTML off."""
    with st.container(border=True):
        head, badge = st.columns([5, 1])
        head.markdown(f"#### {views.safe_markdown(sv.title)}")
        badge.markdown(STATUS_BADGE.get(sv.status, sv.status))
        if sv.status == "failed":
            st.error("This round failed: " + ("; ".join(sv.warnings) or "no reply"), icon="⛔")
        if sv.text:
            st.markdown(views.safe_markdown(sv.text))
        meta = [f"**speaker** {views.safe_markdown(sv.speaker_name)} (`{sv.speaker}`)", f"**role** {sv.role}",
                f"**retries** {sv.retries}",
                f"**tokens** {sv.prompt_tokens} in / {sv.completion_tokens} out",
                f"**latency** {sv.latency_ms:,.0f} ms", f"**engine** `{sv.engine or '—'}`"]
        if sv.cost:
            meta.append(f"**cost** ${sv.cost:.4f}")
        if sv.truncated:
            meta.append("✂️ **truncated**")
        st.caption(" · ".join(meta))
        c1, c2, c3 = st.columns(3)
        with c1:
            st.markdown("**Ammo used**")
            if sv.ammo_used:
                for a in sv.ammo_used:
                    st.markdown(f"- {views.safe_markdown(a)}")
            else:
                st.caption("none")
        with c2:
            st.markdown("**Citations**")
            if sv.citations:
                for c in sv.citations:
                    mark = "✅ verified" if c.verified else "❔ unknown"
                    title = f" — {views.safe_markdown(c.title)}" if c.title else ""
                    st.markdown(f"- `{c.id}` {mark}{title}")
            else:
                st.caption("none")
        with c3:
            st.markdown("**Checks**")
            if sv.findings:
                passed = [f["rule"] for f in sv.findings if f["passed"]]
                if passed:
                    st.markdown("✓ " + " · ".join(f"`{r}`" for r in passed))
                for f in sv.findings:
                    if not f["passed"]:
                        st.markdown(f"✗ `{f['rule']}` — {views.safe_markdown(f['message'])}")
            else:
                st.caption("no checks for this protocol")
        if sv.tool_calls:
            st.caption("research: " + "; ".join(views.safe_markdown(t) for t in sv.tool_calls))
        for w in sv.warnings if sv.status != "failed" else []:
            st.caption(f"⚠️ {views.safe_markdown(w)}")


def debate_header(debate) -> None:
    who = " vs ".join(views.safe_markdown(p.name or p.label) + (f" ({views.safe_markdown(p.stance)})" if p.stance
                                                               else "") for p in debate.participants)
    st.markdown(f"### {views.safe_markdown(debate.topic)}")
    pack = f" · pack {debate.pack_name} {debate.pack_version}".rstrip() if debate.pack_name else ""
    st.caption(f"`{debate.id}` · {debate.protocol} · {who} · models: {', '.join(debate.models) or '—'}{pack}")
    for w in debate.warnings:
        st.warning(views.safe_markdown(w))
