"""Prompts and words of the judged protocols (topic debate, trial).

:mod:`.zh` and :mod:`.en` hold each language's prompt prose (templates and constants, the same
names in both); :class:`.layout.Prompts` builds every message from them with one set of builders
(stance split, debater opening / rebuttal / envelope repair, judge and judge repair, trial speaker
and judge) and gives the words a debate shows (``NOTES``, side names, separators) from the
library's catalogs (:mod:`debate_core.i18n`).  :func:`for_lang` picks one language's.
"""

from __future__ import annotations

from debate_core.engines.judged_prompts import en, zh
from debate_core.engines.judged_prompts.layout import Prompts

_PROMPTS = {"en": Prompts(en), "zh": Prompts(zh)}


def for_lang(lang: str | None) -> Prompts:
    """The prompts of a debate language: English for ``en``, else Chinese."""
    return _PROMPTS["en" if lang == "en" else "zh"]


__all__ = ["Prompts", "for_lang"]
