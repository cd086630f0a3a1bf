"""The embedded default engine: offline, deterministic, written from speech plans (no LLM).

The orchestrator builds each round's :class:`~debate_core.plans.SpeechPlan` over the pack's argument
layer (``content.plan``); this engine renders it (``compose``): bank content in the master's voice,
and frames that each announce one plan point.  Round summaries come from the plan (the stance and
the texts cited), and the observation from the pair's differences, common ground and word to the
reader in the bank.  A thin plan gives a short speech; nothing is padded.
"""

from debate_core.engines.offline.engine import ENGINE_NAME, OfflineEngine, plan_for

__all__ = ["ENGINE_NAME", "OfflineEngine", "plan_for"]
