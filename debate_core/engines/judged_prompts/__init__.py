"""Prompts and texts of the judged protocols (topic debate, trial), one module per debate language.

:mod:`.zh` and :mod:`.en` expose the same names: the prompt builders (stance split, debater
opening / rebuttal / envelope repair, judge and judge repair, trial speaker and judge), the
neutral labels (``LABELS``, ``STANCE_LABELS``, ``SIDE_NAMES``), the tool-budget note and the
``NOTES`` the protocols show (warnings, stop reasons).  :func:`for_lang` picks one.
"""

from __future__ import annotations

from types import ModuleType

from debate_core.engines.judged_prompts import en, zh


def for_lang(lang: str | None) -> ModuleType:
    """The prompt module of a debate language: :mod:`.en` for ``en``, else :mod:`.zh`."""
    return en if lang == "en" else zh


__all__ = ["en", "zh", "for_lang"]
