"""The benchmark protocol: pro/con debates imported from a public debate benchmark.

They are not run here (no ``start``): an importer (:mod:`debate_core.io.importers.benchmark`)
creates them, with a panel of per-judge :class:`~debate_core.models.Judgment` rows each.  Each
side speaks five times (opening, rebuttal, pressure questions, answers, closing); a speech's
round is the side's n-th turn.
"""

from __future__ import annotations

from debate_core.models import Debate
from debate_core.protocols.base import ProtocolSpec, Role
from debate_core.render.benchmark import render_benchmark

SIDES = ("pro", "con")


def rounds_done(debate: Debate) -> int:
    return max((s.round for s in debate.rounds), default=0)


def turn(debate: Debate, round_no: int) -> str:
    return "PRO / CON"


SPEC = ProtocolSpec(
    name="benchmark",
    title="Benchmark debate",
    summary="an imported pro/con debate from a public benchmark, judged by a panel of models",
    roles=(Role("sides", "pro, con", "models", many=True),),
    min_rounds=1,
    max_rounds=5,
    default_rounds=5,
    languages=("en",),
    panel=True,
    render=render_benchmark,
    first_labels=("pro",),
    seats=SIDES,
    rounds_done=rounds_done,
    turn=turn,
    export_formats=("md", "json"),
    app_title="Benchmark debate",
    app_summary="Imported from a public debate benchmark: pro and con, five turns each, a panel of judges.",
)
