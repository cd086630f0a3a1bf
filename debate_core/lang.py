"""A debate's language: ``zh`` or ``en``.

A debate speaks one language in every line it shows or sends.  It is chosen explicitly
(``--lang``, a batch spec's ``lang``, Setup's field) or follows the topic: a topic with CJK
characters is Chinese, anything else English.  Master debates are always Chinese (the
packs are Chinese); an English topic for one is refused by the protocol's check.
"""

from __future__ import annotations

import re
from typing import Literal

from debate_core.errors import InputError

Lang = Literal["zh", "en"]
LANGS: tuple[str, ...] = ("zh", "en")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def detect(text: str) -> Lang:
    """``zh`` when the text holds a CJK character, else ``en``."""
    return "zh" if has_cjk(text) else "en"


def check_lang(value: str | None, *, where: str = "lang") -> Lang | None:
    """A valid language code (lower-cased) or None; anything else is an :class:`InputError`."""
    if value is None or str(value).strip() == "":
        return None
    v = str(value).strip().lower()
    if v not in LANGS:
        raise InputError(f"{where}: {value!r} is not a debate language (use zh or en)")
    return v  # type: ignore[return-value]


def resolve(topic: str, lang: str | None = None) -> Lang:
    """The debate's language: the one asked for, else the topic's."""
    return check_lang(lang) or detect(topic)
