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


def seat_label(label: str, lang: str | None) -> str:
    """A topic debater's label (辩手甲 / Debater A …) as a debate in ``lang`` names the same seat (辩手甲 is
    Debater A in English, Debater B is 辩手乙 in Chinese); any other label (a side, a master, a model) as it is."""
    for prompts in _PROMPTS.values():
        if label in prompts.LABELS:
            return for_lang(lang).LABELS[prompts.LABELS.index(label)]
    return label


__all__ = ["Prompts", "for_lang", "seat_label"]
