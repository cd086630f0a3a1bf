"""A rebuttal's answers to what the opening raised in advance.

An opening on a case answers the question and, for the seed's ammo, objects in advance to a point of the
other side's known teaching (若说X…, compose.ANTICIPATE); its summary names those objections (并议…).  The
side they aim at takes them up in its 反驳 with its reply from the argument bank.
"""

from __future__ import annotations

from debate_core.content.arguments import ArgumentBank
from debate_core.content.summaries import carried
from debate_core.plans import Case, PlanPoint

__all__ = ["anticipated"]


def anticipated(
    bank: ArgumentBank, theme: str, speaker: str, opponent: str, summary: str, case: Case | None = None
) -> list[PlanPoint]:
    """The objections an opening on a case raised in advance against the speaker's answer to it (X就此大概会主张…)
    or his own teaching (若说X…),
    as its summary names them, each restated and answered with the speaker's reply from the bank.  r11 and
    r12's readers found that anticipation never taken up by the side it was aimed at.  One without a reply
    in the bank is restated and said to be left unanswered: the seed's 反驳 restates the other's points first."""
    out: list[PlanPoint] = []
    # an objection at the speaker's own answer to the case first (the opening raises one the speaker has a reply
    # to), then those at his general teaching on the theme
    objs = (case.objections_at(opponent, speaker) if case is not None else []) + bank.objections(
        opponent, speaker, theme
    )
    # the gists the summary carries verbatim first, a near match only in what those leave: 法亦无自性 named in the
    # summary is not also 赖耶亦无自性
    named = set(carried([o.gist for o in objs], summary))
    taken: set[str] = set()
    for i, o in enumerate(objs):
        # one objection per gist: an objection at his answer to the case comes first, and a general one worded
        # with the same gist (三报只宜照自己, on the case and on the theme) is the same point, raised once
        if i not in named or o.gist in taken:
            continue
        taken.add(o.gist)
        raw = case.reply_to(o.id) if case is not None and "/case:" in o.id else None
        reply = raw or next(iter(bank.replies_to(o.id, speaker)), None)
        out.append(PlanPoint(kind="restate", text=o.text, target=o.id, target_text=o.gist))
        if reply is None:  # restated, and said to be left unanswered (这一点我暂不辩驳)
            out.append(PlanPoint(kind="no_answer", target=o.id, target_text=o.gist))
            continue
        out.append(
            PlanPoint(
                kind="answer",
                text=reply.text,
                ref=f"{o.id}:reply",
                target=o.id,
                target_text=o.gist,
                gist=reply.gist,
                source=reply.source,
                quote=reply.quote,
            )
        )
    return out[:4]
