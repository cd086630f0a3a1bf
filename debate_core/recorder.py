"""Where a running debate reports what it produces.

Protocols call a :class:`Recorder` as they go; the archive implements it so each
finished speech is committed before the next round starts.  The base class keeps
nothing (the :class:`~debate_core.models.Debate` object itself holds the record).
"""

from __future__ import annotations

from debate_core.models import Debate, LLMCall, RoundSummary, Speech


class Recorder:
    def start(self, debate: Debate) -> None:
        """A debate was created (status running)."""

    def speech(self, debate: Debate, speech: Speech) -> None:
        """One speech finished (or failed); must be durable when this returns."""

    def summary(self, debate: Debate, summary: RoundSummary) -> None:
        """The orchestrator's round summary."""

    def call(self, debate: Debate, call: LLMCall) -> None:
        """One model call, successful or not."""

    def update(self, debate: Debate) -> None:
        """Status, stop reason, warnings, observation or verdict changed."""


NULL_RECORDER = Recorder()
