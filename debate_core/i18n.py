"""The library's one translation path: what a debate shows, in the debate's language.

Every content string the library writes into a debate or about one (the Markdown and HTML
renderings' headings and notes, the protocols' warnings and stop reasons, the research tools'
answers, envelope errors, the CLI's lines) is an English msgid looked up in a gettext catalog
shipped inside the package:

    debate_core/locales/<lang>/LC_MESSAGES/debate.po      (lang: en, zh; template debate.pot)

* :func:`tr` ``(lang, msgid, **kw)`` gives the msgid in ``lang``, formatted with ``kw``
  (``str.format``; no ``kw``, no formatting, so a template can be formatted later);
  :func:`trp` ``(lang, context, msgid, **kw)`` the same for a msgid that needs a context
  (the same English in two senses); :func:`translator` binds a language (``_ = translator(lang)``).
* :func:`N_` marks a msgid kept in a constant (a table keyed by status, a note's key) without
  translating it; it is translated where it is shown, with :func:`tr`.
* :func:`read_back` ``(text, msgids)`` reads a text the library wrote (a stop reason, a warning) back to its
  msgid and values, in either language, so a reader's app can say it again in its own.
* A msgid missing from a catalog falls back to the English msgid, visibly: it is added to
  :data:`MISSING` and logged once (``debate_core.i18n``).  ``tests/test_content_i18n.py`` fails
  when a msgid the code uses is missing from either catalog.

The catalogs are read directly with Babel's ``read_po`` (once per process, on first use), as
:mod:`webapp.i18n` reads the app's: there is no compile step, and ``pip install .`` ships the
``.po`` files (``pyproject.toml``'s package-data).  The English catalog's msgstr is its msgid;
the Chinese one holds the text Chinese debates have always shown.

Prompts are not here: :mod:`debate_core.engines.judged_prompts` keeps each language's prompt
prose in its own module, built by shared builders.  A master debate's own text (the seed's
headings, the checks' findings) is Chinese only and written once, in Chinese.

Adding or changing a string: docs/architecture.md, "Languages of a debate's content".
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

LOCALES = Path(__file__).resolve().parent / "locales"
DOMAIN = "debate"
# Babel's keyword specs for extraction (beside its defaults: _, N_, gettext, pgettext, …)
# (not ``t``: the library uses ``t`` as a local name, and Babel's tokenizer would take ``t["x"](…)`` for a call)
KEYWORDS: dict[str, Any] = {"tr": (2,), "trp": ((2, "c"), 3), "_": None, "N_": None}

MISSING: set[tuple[str, str]] = set()  # (lang, msgid) asked for but absent from a catalog
_log = logging.getLogger(__name__)
_lock = threading.Lock()


def _key(msgid: str, context: str | None) -> str:
    return f"{context}\x04{msgid}" if context else msgid


@functools.cache
def catalog(lang: str) -> dict[str, str]:
    """msgid (``context\\x04msgid`` with a context) -> msgstr, read from ``<lang>/LC_MESSAGES/debate.po``
    once per process; empty for a language without a catalog."""
    from babel.messages.pofile import read_po

    path = LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return {}
    with path.open("rb") as fh:
        cat = read_po(fh, locale=lang)
    out: dict[str, str] = {}
    for m in cat:
        if not m.id or m.fuzzy:
            continue
        msgid = m.id[0] if isinstance(m.id, (tuple, list)) else m.id
        msgstr = m.string[0] if isinstance(m.string, (tuple, list)) else m.string
        if msgstr:
            out[_key(msgid, m.context)] = msgstr
    return out


def _lookup(lang: str, msgid: str, context: str | None) -> str:
    value = catalog(lang).get(_key(msgid, context))
    if value:
        return value
    with _lock:
        first = (lang, msgid) not in MISSING
        MISSING.add((lang, msgid))
    if first:
        _log.warning("msgid missing from the %s catalog (shown in English): %r", lang, msgid)
    return msgid


def tr(lang: str, msgid: str, /, **kw: Any) -> str:
    """``msgid`` (English) in ``lang`` (``zh`` / ``en``), ``str.format``-ed with ``kw`` when given."""
    text = _lookup(lang, msgid, None) if msgid else msgid
    return text.format(**kw) if kw else text


def trp(lang: str, context: str, msgid: str, /, **kw: Any) -> str:
    """:func:`tr` for a msgid that needs a context (``trp(lang, "list", ", ")`` joins a list of names)."""
    text = _lookup(lang, msgid, context) if msgid else msgid
    return text.format(**kw) if kw else text


def translator(lang: str) -> Callable[..., str]:
    """``_ = translator(lang)``; ``_("Topic")``, ``_("Round {r}", r=2)``."""
    return functools.partial(tr, lang)


def N_(msgid: str) -> str:
    """Marks ``msgid`` for extraction and returns it untranslated (translated where it is shown)."""
    return msgid


_FIELD = re.compile(r"\{([a-z_]+)\}")


def read_back(
    text: str, msgids: Iterable[str], langs: Iterable[str] = ("zh", "en")
) -> tuple[str, dict[str, str]] | None:
    """The msgid (one of ``msgids``) and the values a stored text was written from, in any of ``langs``: the
    text ``tr(lang, msgid, **values)`` gave, read back (a debate's stop reason or warning, which the library
    wrote in the debate's language, for a reader in another); None when it is none of them."""
    text = (text or "").strip()
    if not text:
        return None
    for lang in langs:  # the most specific template first: the one with the most words of its own
        templates = sorted(((_lookup(lang, m, None), m) for m in msgids), key=lambda t: -len(_FIELD.sub("", t[0])))
        for template, msgid in templates:
            parts, names, pattern = _FIELD.split(template), set(), ""
            for i, part in enumerate(parts):
                if i % 2 == 0:
                    pattern += re.escape(part)
                elif part in names:
                    pattern += f"(?P={part})"
                else:
                    names.add(part)
                    pattern += f"(?P<{part}>.+?)"
            m = re.fullmatch(pattern, text, re.S)
            if m:
                return msgid, m.groupdict()
    return None
