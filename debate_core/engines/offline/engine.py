"""The offline engine itself: the speeches, the summaries and the observation over one pack's units."""

from __future__ import annotations

from debate_core.engines.offline.speech import Speeches
from debate_core.engines.offline.synthesis import Synthesis
from debate_core.engines.offline.units import ENGINE_NAME


class OfflineEngine(Speeches, Synthesis):
    """Implements the master-debate engine interface: speech, summarize, observe."""

    name = ENGINE_NAME
