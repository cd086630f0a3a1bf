"""The embedded default engine: offline, deterministic, built on a pack's teachings (no LLM).

What it may speak from
    Only ``Master.teachings`` (the pack reader's sentences: what the master taught,
    never a pack's editorial notes, reading lists, URLs, headings or fragments), the
    speaker's own ammo (``cross_critique`` aimed at the opponent, cited with its own
    source) and the opponent's <=80-character summary.  It reads no earlier speech.

Relevance (explainable, deterministic)
    Each teaching unit is scored against the topic::

        score = 3 x (topic bigrams in the unit)
              + 2 x (pair-table terms of this pair in the unit)
              + 2 x (the master's keywords that the topic names and the unit holds)
              + 1 x (topic bigrams in the unit's section heading)

    ties broken by a hash of (topic, unit), so two topics order even equal units
    differently.  :meth:`OfflineEngine.ranked` returns the scores with their parts.

No repetition without memory
    The engine sees no earlier speech, so it relies on determinism: a speaker's
    n-th speech (n = (round-1)//2) draws from the n-th disjoint slice of his ranked
    units; the 综合 speaker reads the opponent's units from past every slice the
    opponent has used; ammo is split into clauses and speech n takes its own; each
    template is chosen by role and n, so no template sentence returns for one speaker.

Roles
    立论: a stance on the topic and three reasons.  反驳: the opponent's last point
    restated first (from the summary), then answered with the units that bear on it
    and the ammo.  回应: what it accepts of the opponent's point and what it keeps.
    综合: common ground both sides' units support, and the difference naming both.

Layout
    ``units`` (safety, ranking, slices, ammo, common ground: the engine's base), ``clauses``
    (picking a clause to name), ``speech`` (the four roles' speeches) with ``templates`` (their
    frames), ``synthesis`` (summaries and the observation), ``text`` (shared text helpers) and
    ``engine`` (:class:`OfflineEngine`, all of them together).
"""

from debate_core.engines.offline.engine import OfflineEngine
from debate_core.engines.offline.synthesis import LEVELS
from debate_core.engines.offline.templates import (T_AMMO, T_BRIDGE, T_BRIDGE_LOOSE, T_CLOSE, T_DIFF, T_KEEP, T_OPEN,
                                                   T_OPP_UNIT, T_THIN)
from debate_core.engines.offline.text import sentences_of
from debate_core.engines.offline.units import ENGINE_NAME

__all__ = ["ENGINE_NAME", "LEVELS", "OfflineEngine", "T_AMMO", "T_BRIDGE", "T_BRIDGE_LOOSE", "T_CLOSE", "T_DIFF",
           "T_KEEP", "T_OPEN", "T_OPP_UNIT", "T_THIN", "sentences_of"]
