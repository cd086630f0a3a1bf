"""The app's language (zh / en): message catalogs, ``_()`` / ``ngettext``, the sidebar selector
and links that keep ``?lang=``.

* The strings live in gettext catalogs, ``webapp/locales/<lang>/LC_MESSAGES/messages.po``,
  with the English source strings as msgids.  They are read directly at run time with
  Babel's ``read_po`` (cached per process): no compile step.
* The language of a script run comes from ``?lang=zh|en`` in the URL, else the session (a
  page switch keeps it), else the browser's locale (``st.context.locale``), else English.
  :func:`init` settles it on every run (``ui.navigation`` calls it) and writes it back into
  the URL; page links and switches carry it (:func:`params`).
* Outside a Streamlit run (views in plain tests, the CLI) the language is English, or the one
  set by :func:`use`.
* A debate's own content (speeches, a master debate's Chinese headings) is never translated.

Extraction (see docs/app.md "Languages"), from the repository root:
``python -m babel.messages.frontend extract -F babel.cfg --no-location --sort-output -o webapp/locales/messages.pot .``
then ``python -m babel.messages.frontend update -i webapp/locales/messages.pot -d webapp/locales --ignore-obsolete -w 100``.  ``babel.cfg``
also runs :func:`extract_specs`, which collects the protocol specs' app strings (``app_title``,
``app_summary``, ``app_fields``, ``rounds_note``): they are msgids too.

Nothing here imports streamlit at module level, so :mod:`webapp.views` may use ``_``.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import threading
from pathlib import Path
from typing import Iterator, Optional

LANGS: tuple[str, ...] = ("en", "zh")
DEFAULT = "en"
NAMES = {"en": "English", "zh": "中文"}
LOCALES = Path(__file__).resolve().parent / "locales"
STATE_KEY = "_app_lang"
WIDGET_KEY = "app_lang_choice"

MISSING: set[str] = set()  # msgids asked for but absent from a catalog (the tests read it)
_local = threading.local()


# ------------------------------------------------------------------ catalogs


@functools.lru_cache(maxsize=None)
def catalog(lang: str) -> dict[str, object]:
    """msgid -> msgstr (a str, or a tuple of plural forms), read from the .po once per process."""
    from babel.messages.pofile import read_po

    path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        cat = read_po(fh, locale=lang)
    out: dict[str, object] = {}
    for m in cat:
        if not m.id:
            continue
        key = m.id[0] if isinstance(m.id, (tuple, list)) else m.id
        out[key] = tuple(m.string) if isinstance(m.string, (tuple, list)) else m.string
    return out


def normalize(value: Optional[str]) -> Optional[str]:
    """'zh-CN' / 'zh_TW' / 'ZH' -> 'zh'; 'en-US' -> 'en'; anything else None."""
    if not value:
        return None
    head = str(value).strip().lower().replace("_", "-").split("-")[0]
    return head if head in LANGS else None


# -------------------------------------------------------- the current language


def _streamlit_lang() -> Optional[str]:
    """The session's language when called inside a Streamlit script run, else None."""
    if "streamlit" not in sys.modules:
        return None
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        if get_script_run_ctx(suppress_warning=True) is None:
            return None
        import streamlit as st

        return normalize(st.session_state.get(STATE_KEY))
    except Exception:  # noqa: BLE001 - no session (bare mode): English
        return None


def current() -> str:
    """The language of what is being rendered now."""
    forced = getattr(_local, "lang", None)
    return forced or _streamlit_lang() or DEFAULT


@contextlib.contextmanager
def use(lang: str) -> Iterator[None]:
    """Render in ``lang`` in this thread (tests, exports of app strings)."""
    old = getattr(_local, "lang", None)
    _local.lang = normalize(lang) or DEFAULT
    try:
        yield
    finally:
        _local.lang = old


def gettext(message: str) -> str:
    """``message`` (an English msgid) in the current language; a msgid missing from the
    catalog is recorded in :data:`MISSING` and shown in English."""
    if not message:
        return message
    value = catalog(current()).get(message)
    if isinstance(value, tuple):
        value = value[0]
    if not value:
        MISSING.add(message)
        return message
    return value  # type: ignore[return-value]


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n`` (Chinese has one form)."""
    value = catalog(current()).get(singular)
    if isinstance(value, tuple) and value and all(value):
        return value[0] if len(value) == 1 else value[0 if n == 1 else 1]
    if value is None:
        MISSING.add(singular)
    return singular if n == 1 else plural


def N_(message: str) -> str:
    """Marks a string for extraction without translating it (translated where it is shown)."""
    return message


def maybe(text: object) -> str:
    """A value that may be a msgid (a column name, a spec field): translated when the catalog
    has it, else unchanged (never recorded as missing)."""
    s = str(text)
    value = catalog(current()).get(s)
    if isinstance(value, tuple):
        value = value[0]
    return value or s  # type: ignore[return-value]


# ----------------------------------------------------------- streamlit glue


def browser_lang() -> Optional[str]:
    import streamlit as st

    try:
        return normalize(getattr(st.context, "locale", None))
    except Exception:  # noqa: BLE001 - no browser (AppTest, bare mode)
        return None


def init() -> str:
    """Settle this run's language (URL, then session, then browser, then English) and put it
    into the URL, so a reload or a shared link keeps it."""
    import streamlit as st

    ss = st.session_state
    asked = normalize(st.query_params.get("lang"))
    lang = asked or normalize(ss.get(STATE_KEY)) or browser_lang() or DEFAULT
    ss[STATE_KEY] = lang
    if st.query_params.get("lang") != lang:
        st.query_params["lang"] = lang
    return lang


def _picked() -> None:
    import streamlit as st

    lang = normalize(st.session_state.get(WIDGET_KEY)) or DEFAULT
    st.session_state[STATE_KEY] = lang
    st.query_params["lang"] = lang


def selector() -> str:
    """The sidebar's language picker (its label in both languages)."""
    import streamlit as st

    lang = current()
    st.session_state[WIDGET_KEY] = lang
    st.sidebar.radio("Language · 语言", list(LANGS), key=WIDGET_KEY, horizontal=True,
                     format_func=NAMES.get, on_change=_picked)
    return lang


def params(**extra: Optional[str]) -> dict[str, str]:
    """Query params for a page link or a switch: ``lang`` plus the given ones (None dropped)."""
    out = {k: v for k, v in extra.items() if v}
    out["lang"] = current()
    return out


# ----------------------------------------------------------------- extraction


def spec_messages() -> list[str]:
    """The app strings of every protocol spec (msgids of the catalogs)."""
    from debate_core.protocols import registry

    out: list[str] = []
    for spec in registry.specs():
        out += [spec.app_title, spec.app_summary, spec.rounds_note]
        for label, help_text in spec.app_fields.values():
            out += [label, help_text]
    return list(dict.fromkeys(m for m in out if m))


def extract_specs(fileobj, keywords, comment_tags, options):
    """Babel extractor (babel.cfg: ``[extractors] specs = webapp.i18n:extract_specs`` and
    ``[specs: debate_core/protocols/registry.py]``): yields every protocol spec's app strings,
    which are plain values in the specs, not ``_()`` calls (the file itself is not read)."""
    for message in spec_messages():
        yield 0, None, message, ["protocol spec app string"]
