"""A master's own material on the case the topic is: his answer and advice (``case``, ``case_then``) and his
further grounds on the question (``case_more``), as plan points (docs/arguments.md, "Cases")."""

from __future__ import annotations

from debate_core.content.text import cjk_len
from debate_core.plans import ArgumentBank, CaseAnswer, PlanPoint, SpeechPlan

__all__ = ["advice", "case_points", "case_room", "grounds", "press"]


def case_points(bank: ArgumentBank, plan: SpeechPlan, speaker: str, spoken: frozenset[str]) -> list[PlanPoint]:
    """The speaker's answer to the case the topic is, in his first speech; what he would have the asker
    do about it, in his next one."""
    case = bank.case(plan.case) if plan.case else None
    ans = case.answer(speaker) if case is not None else None
    if case is None or ans is None:
        return []
    ref = f"case:{case.id}:{speaker}"
    if ref not in spoken:
        out = [PlanPoint(kind="case", text=ans.text, ref=ref, gist=ans.gist, source=ans.source, quote=ans.quote)]
        if plan.role in ("立论", "反驳") and ans.then:
            # what he would have the asker do, with his answer: the other side's objections and replies take up
            # the whole answer, and r9's readers caught one answering advice not yet given (a 反驳 that runs
            # over the ceiling drops it first, and says it in his next speech)
            out.append(advice(ans, ref))
        return out
    if ans.then and ref + ":then" not in spoken:
        return [advice(ans, ref)]
    return []


def grounds(bank: ArgumentBank, plan: SpeechPlan, speaker: str, spoken: frozenset[str]) -> list[PlanPoint]:
    """His further grounds on this very question (the case answer's ``more``) not yet spoken in this debate:
    what his speeches take before any general reason on the theme (r13, r14: the same stock paragraph on a
    theme in debate after debate of one pair, saying nothing of the asker's situation)."""
    case = bank.case(plan.case) if plan.case else None
    ans = case.answer(speaker) if case is not None else None
    if case is None or ans is None:
        return []
    ref = f"case:{case.id}:{speaker}:more#"
    return [
        PlanPoint(kind="case_more", text=g.text, ref=f"{ref}{k}", gist=g.gist, source=g.source, quote=g.quote)
        for k, g in enumerate(ans.more)
        if f"{ref}{k}" not in spoken
    ]


def advice(ans: CaseAnswer, ref: str) -> PlanPoint:
    """What he would have the asker do: his own practical word, never cited (r10: advice to talk it over,
    or to see a doctor, carried a sutta's mark; the text says nothing of the kind).  The bank's
    ``then_source`` names what the advice draws on; it is not a citation of the advice."""
    return PlanPoint(kind="case_then", text=ans.then, ref=ref + ":then")


def case_room(bank: ArgumentBank, plan: SpeechPlan, speaker: str, spoken: frozenset[str]) -> int:
    """The 汉字 the speaker's case points will take in this speech (0 without a case)."""
    return sum(cjk_len(p.text) + 10 for p in case_points(bank, plan, speaker, spoken) if p.kind == "case")


def press(bank: ArgumentBank, plan: SpeechPlan, speaker: str, spoken: frozenset[str], summary: str) -> PlanPoint | None:
    """A 回应's further word on the case objection his opening raised in advance, once the other side has
    replied to it (the reply's gist is in that side's summary): the ``press`` written under it. Without it the
    回应's own objection fell back on the other's general doctrine, off the asker's question (r17)."""
    case = bank.case(plan.case) if plan.case else None
    if case is None or plan.role != "回应":
        return None
    for at in dict.fromkeys(o.at for o in case.objections if o.by == speaker):
        for o in case.objections_at(speaker, at):
            raw = case.raw(o.id)
            if o.id not in spoken or raw is None or raw.reply is None or raw.press is None:
                continue
            if f"{o.id}:press" in spoken or not raw.reply.gist or raw.reply.gist not in summary:
                continue  # said already, or he has not heard the reply in this debate
            return press_point(o.id, raw, "press", o.gist)
    return None


def press_point(objection_id: str, raw, kind: str, gist: str) -> PlanPoint:
    """The press written under a case objection (``raw``: :meth:`Case.raw`, with its reply and press), as a plan
    point of ``kind`` aimed at that objection, after the other's reply (its gist, the point's target_text):
    a 回应's ``press``, or a later 反驳's ``answer`` to the reply it follows."""
    p = raw.press
    return PlanPoint(
        kind=kind,
        text=p.text,
        ref=f"{objection_id}:press",
        target=objection_id,
        target_text=raw.reply.gist,
        gist=p.gist or gist,
        source=p.source,
        quote=p.quote,
    )
