"""Speech plans: what each round of a master debate will say, built over the argument bank.

A plan is built from what an isolated round may see (the topic, its role, the opponent's
<=80-character summary) and from the pack's argument layer, which is public material of both
sides.  It never reads an earlier speech.  Both engines render it: the offline engine writes its
text from the plan alone, and the model prompt passes it as grounding.

- 立论: the speaker's position on the debate's theme: the claim, three reasons with their sources,
  and one objection aimed at the opponent's claim (the round's ammo).
- 反驳: the opponent's points as the summary carries them (the gists of his reasons), each answered
  by an objection aimed at that point, or marked unanswered when the bank holds none.
- 回应: the objections the summary carries, each met by a reply (accept / partly / hold) or held
  plainly when the bank has no reply; then one objection of the speaker's own.
- 综合: the pair's common ground and differences on the theme as the bank states them (no common
  ground is asserted when it states none), the speaker's remaining objection, a word to the reader.

A topic that is one of the bank's cases (a concrete question under a theme) adds the speaker's own
answer to it in his first speech and what he would have the asker do in his next; the 回应 and the
综合 take up the other master's answer first (docs/arguments.md, "Cases").

The debate's theme is the same for both speakers: the best-matching theme of the topic on which
both masters hold a position, else one that either holds, else the table row's theme, else the
core path (``debate_theme``, in :mod:`debate_core.content.theme_choice`).  What an opponent's summary
carries, and the summaries the offline engine writes from plans, are in
:mod:`debate_core.content.summaries`.  The names those modules define that callers import from here
(``debate_theme``, ``material_note``, ``summary_of``, …) stay importable from this module.
"""

from __future__ import annotations

import re

from debate_core.content.anticipation import anticipated
from debate_core.content.case_points import case_points, case_room, grounds, press, press_point
from debate_core.content.contrasts import (
    as_contrast,
    claim_objection,
    ordered_objections,
    round_contrast,
)
from debate_core.content.summaries import gist_in, raised_objections, restated_points, summary_of
from debate_core.content.text import bigrams_of, cjk_len, without_cited_tail
from debate_core.content.theme_choice import CORE_THEME, ThemeChoice, debate_theme, material_note
from debate_core.plans import ArgumentBank, PlanPoint, Position, SpeechPlan

# (the theme choice and the summaries live in their own modules; their names stay importable from here)
__all__ = ["CORE_THEME", "ThemeChoice", "debate_theme", "plan_speech", "summary_of", "material_note"]


# ------------------------------------------------------------------ plans


def _cite(points: list[PlanPoint]) -> list[str]:
    return list(dict.fromkeys(p.source for p in points if p.source))


def _rebuttal_index(round_no: int) -> int:
    return max(0, round_no // 2 - 1)  # R2 -> 0, R4 -> 1, R6 -> 2


def _heard(opp: Position | None, summary: str, restated: frozenset[str]) -> set[str]:
    """The opponent's points the speaker has heard him put: his claim once the summary carries it (a
    反驳 that only answers has not put it), the points the speaker restated in his own earlier rounds,
    and those the summary he has now carries.  An
    objection at any other point is framed as aimed at a view some hold, never at something he said."""
    if opp is None:
        return set()
    out = {t for t in restated if t.startswith(opp.id + "#")}
    if any(not t.endswith("#case") for t in out):  # he stated his claim with the reasons restated (a case
        out.add(opp.point_id(0))  # opening with no reason of his meeting the question states none)
    if summary and (opp.short and opp.short in summary or gist_in(opp.claim, summary)):
        out.add(opp.point_id(0))  # he has put his claim (a 反驳 that only answers does not: r7)
        out |= {opp.point_id(n) for n, r in enumerate(opp.reasons, start=1) if r.gist and gist_in(r.gist, summary)}
    return out


def plan_speech(
    bank: ArgumentBank,
    *,
    topic: str,
    role: str,
    round_no: int,
    speaker: str,
    opponent: str,
    opponent_summary: str,
    row_theme: str = "",
    spoken: frozenset[str] = frozenset(),
    restated: frozenset[str] = frozenset(),
) -> SpeechPlan:
    """The plan of one round.  ``spoken``: the bank entries (refs) the same speaker's earlier plans in
    this debate spoke — his own record, never the opponent's speech — so that no entry is said twice;
    ``restated``: the opponent's points those plans restated (what he has heard of the other side)."""
    choice = debate_theme(bank, topic, speaker, opponent, row_theme)
    pos = bank.position(speaker, choice.theme)
    opp = bank.position(opponent, choice.theme)
    case = bank.case(choice.case) if choice.case else None
    plan = SpeechPlan(
        role=role,
        round=round_no,
        theme=choice.theme,
        theme_title=choice.title,
        theme_terms=choice.terms,
        derived=bank.derived,
        case=choice.case,
        case_question=case.question if case else "",
    )
    heard = _heard(opp, opponent_summary, restated)
    # the question's own words: among material of equal standing, what shares most of them is taken first
    # (r11: 坐久了膝盖痛 as a 综合's extra reason on a question about caring for a mother with dementia)
    asked = bigrams_of(" ".join([topic, case.question if case else ""]))
    if pos is None:
        plan.material = "none"
        plan.points.append(PlanPoint(kind="thin", text=choice.title))
        if role in ("反驳", "回应") and opponent_summary:
            target = f"{opponent}:{choice.theme}#0"
            plan.points.insert(0, PlanPoint(kind="restate", text=opponent_summary, target=target))
            plan.points.insert(1, PlanPoint(kind="no_answer", target=target))
        return plan
    plan.stance, plan.short = pos.claim, pos.short or pos.claim[:10]
    plan.material = "full" if len(pos.reasons) >= 3 else "thin"
    if role == "立论":
        plan.points.append(PlanPoint(kind="stance", text=pos.claim, ref=pos.point_id(0)))
        on_case = case_points(bank, plan, speaker, spoken)
        plan.points += on_case
        picked = [1, 2, 3][: len(pos.reasons)]
        near = asked | bigrams_of(" ".join(p.text for p in on_case))
        if on_case:  # his answer carries its own ground: those of his reasons that meet this question
            ranked = sorted(picked, key=lambda i: -len(bigrams_of(pos.reasons[i - 1].text) & near))[:2]
            # a reason that shares (almost) nothing with the question turns the opening into his general
            # doctrine (r10, r11: 我一向主张…理由有二 read as a pasted block, off the asker's situation); with
            # none left, the opening is his answer, his advice and his objection, and never states the claim.
            # The question's own words decide, not his answer's: an answer's common words (父母, 孩子) let
            # r12's 讲经资助亡亲 into a debate on a teenager who games all day
            picked = sorted(i for i in ranked if len(bigrams_of(pos.reasons[i - 1].text) & asked) >= 2)
            if not picked:
                plan.points = [p for p in plan.points if p.kind != "stance"]
        # his first further ground on this very question comes before any general reason of his (a second is
        # kept for a later round, where his general material would otherwise fill)
        plan.points += grounds(bank, plan, speaker, spoken)[:1] if on_case else []
        for i in picked:
            r = pos.reasons[i - 1]
            plan.points.append(
                PlanPoint(kind="reason", text=r.text, ref=pos.point_id(i), gist=r.gist, source=r.source, quote=r.quote)
            )
        # the seed's ammo (至少引用 1 条): one objection at a point of the other side's known teaching,
        # taken up in advance as a view (若说X…: compose.ANTICIPATE), never as something he has said
        c = round_contrast(bank, speaker, opponent, choice.theme, role, spoken, case_id=plan.case, near=near)
        if c is not None:
            plan.points.append(c)
        # within the ceiling: a general reason goes first (the answer, the advice, the ground and the round's
        # objection stay); with no reason left, no claim is stated
        while estimated_length(plan) > CEILING:
            extra = [i for i, p in enumerate(plan.points) if p.kind == "reason"]
            if not extra:
                break
            del plan.points[extra[-1]]
        if on_case and not plan.of("reason"):
            plan.points = [p for p in plan.points if p.kind != "stance"]
    elif role == "反驳":
        _plan_rebuttal(
            bank, plan, pos, opp, speaker, opponent, opponent_summary, _rebuttal_index(round_no), spoken, heard
        )
        plan.points += case_points(bank, plan, speaker, spoken)
    elif role == "回应":
        _plan_response(bank, plan, pos, opp, speaker, opponent, opponent_summary, spoken, heard)
        plan.points += case_points(bank, plan, speaker, spoken)
    else:
        _plan_synthesis(bank, plan, pos, opp, speaker, opponent, spoken, heard, opponent_summary, asked)
    _fill(bank, plan, pos, speaker, opponent, spoken, heard, asked)
    if role == "综合" and plan.case and estimated_length(plan) < AIM:
        # a long debate on a case that has spent its own material: what the two teachings share on the theme
        # (said as their teachings, never as agreed here) rather than a speech below the floor
        pb = bank.pair(speaker, opponent)
        common = [c for c in (pb.common_ground if pb else []) if c.theme == plan.theme][:2]
        at = next((i for i, p in enumerate(plan.points) if p.kind not in ("outcome",)), len(plan.points))
        plan.points[at:at] = [PlanPoint(kind="common", text=c.text) for c in common]
    plan.cited = _cite(plan.points)
    return plan


# A speech is 300-500 汉字 (the seed's length rule).  The plan aims above the floor from the bank's own
# texts: it knows their lengths before a word is written, so a speech whose points fall short takes
# more of the speaker's own material, never a filler sentence.
AIM, CEILING = 325, 470
_FRAME_CHARS = {"restate": 3, "restate_summary": 8, "difference": 12, "thin": 60, "to_reader": 5}


def estimated_length(plan: SpeechPlan) -> int:
    """The 汉字 a plan's rendering will hold, give or take its frames (about a dozen a point)."""
    n = 8
    for p in plan.points:
        if p.kind == "restate":
            n += cjk_len(p.target_text) + 3
        elif p.kind == "restate_summary":  # spoken without its list of cited books
            n += cjk_len(without_cited_tail(p.text)) + _FRAME_CHARS["restate_summary"]
        elif p.kind == "difference":
            n += 12
        else:
            n += cjk_len(p.text) + _FRAME_CHARS.get(p.kind, 10)
    if plan.role == "反驳" and plan.of("support") and not plan.of("reason"):
        n += cjk_len(plan.stance)  # its support is led by his claim (我自己的主张是…)
    return n


def _fill(
    bank: ArgumentBank,
    plan: SpeechPlan,
    pos: Position,
    speaker: str,
    opponent: str,
    spoken: frozenset[str] = frozenset(),
    heard: set[str] | None = None,
    asked: set[str] | None = None,
) -> None:
    """Supporting points for a plan that would fall short of the length floor: for a 立论 another
    objection at the opponent's points; for the other roles the speaker's own reasons on the theme
    (kind ``support``) that the plan does not yet speak.  Each is added only while it keeps the plan
    under the ceiling; a plan with nothing left stays short, and its speech says only what it has."""
    if plan.material == "none":
        return
    used = {p.ref for p in plan.points} | {p.text for p in plan.points} | set(spoken)
    # (those at points he has put first; any other is rendered as what he teaches, not what he said;
    # a 立论 leaves the one at his claim for the 回应)
    objections = [
        as_contrast(bank, o, heard)
        for o in ordered_objections(bank, speaker, opponent, plan.theme)
        if not (plan.role == "立论" and o.target.endswith("#0"))
    ]

    def near(p: PlanPoint) -> int:  # the question's words it shares: the nearest first, at equal standing
        return -len(bigrams_of(p.text) & (asked or set()))

    objections.sort(key=lambda p: (not p.heard, near(p)))
    reasons = [
        PlanPoint(kind="support", text=r.text, ref=pos.point_id(i), gist=r.gist, source=r.source, quote=r.quote)
        for i, r in enumerate(pos.reasons, start=1)
        if plan.role != "立论" or i > 3
    ]
    reasons.sort(key=near)
    late: list[PlanPoint] = []
    if plan.case:  # a debate on a case: his general reasons that meet the question first, the others only when
        # the speech would fall short without them (r12: 讲经资助亡亲 as support on a teenager who games all day)
        late = [p for p in reasons if near(p) > -2]
        reasons = [p for p in reasons if near(p) <= -2]
    # on a case, his further grounds on this very question before anything else
    own = grounds(bank, plan, speaker, spoken) if plan.case else []
    # a 立论 takes more objections first; a later round its own reasons it has not yet spoken, then objections
    # (a 反驳's speech answers the points it restated and has no frame for another objection of his)
    if own and plan.role != "立论":
        reasons = own + reasons
        if plan.role != "反驳" and not plan.of("contrast", "answer", "press"):
            # the seed's ammo, one objection a round, before his grounds take the room it would need: one at a
            # point the other side has put, else (as the last resort it was before) one at what he teaches
            reasons = [p for p in objections if p.ref not in used and p.text not in used][:1] + reasons
    if plan.role == "立论":
        pool = objections + reasons + late
    elif plan.role == "反驳":
        pool = reasons + late
    elif plan.case:  # one more objection at a point the other has put, then his other reasons, and an objection
        # at a view nobody has taken in this debate last (a long debate's 综合 needs one left; r14: 综合s arguing
        # against views the other side never took)
        put = [p for p in objections if p.heard]
        pool = reasons + put[:1] + late + put[1:] + [p for p in objections if not p.heard]
    else:
        pool = reasons + objections + late
    for cand in pool:
        n = estimated_length(plan)
        # a later 反驳 (R4 of five rounds) is the second speaker's last speech: his first further ground on the
        # question goes in while it fits under the ceiling, or a debate on the case never gives it
        last_ground = plan.role == "反驳" and plan.round >= 4 and bool(own) and cand is own[0]
        if n >= AIM and not last_ground:
            return
        if cand.ref in used or cand.text in used:
            continue
        if n + cjk_len(cand.text) + 10 > CEILING:
            continue
        plan.points.append(cand)
        used |= {cand.ref, cand.text}


def _plan_rebuttal(
    bank: ArgumentBank,
    plan: SpeechPlan,
    pos: Position,
    opp: Position | None,
    speaker: str,
    opponent: str,
    summary: str,
    nth: int,
    spoken: frozenset[str] = frozenset(),
    heard: set[str] | None = None,
) -> None:
    objs = bank.objections(speaker, opponent, plan.theme)
    case = bank.case(plan.case) if plan.case else None
    if nth and case is not None and case.answer(opponent) is not None:
        # a later 反驳 on a case follows the other's 回应: how he took the speaker's objections (his summary's
        # 答：部分接受…), then a further objection of the speaker's at his answer to this question, which he
        # gave in his opening. r20: a second 反驳 restated the other's general claim, never said in that
        # debate (「就这一主张说，至诚礼忏能净业障，我完全同意」 on a question about burning paper money)
        taken = _outcome(bank, plan, speaker, opponent, summary)
        plan.points += taken
        for t in taken:  # what he did not wholly accept: his reply restated, then the speaker's press on it
            raw = case.raw(t.ref)
            if t.target_text == "accept" or raw is None or raw.reply is None:
                continue
            plan.points.append(
                PlanPoint(kind="restate", text=raw.reply.text, ref=t.ref, target=t.ref, target_text=raw.reply.gist)
            )
            if raw.press is not None and f"{t.ref}:press" not in spoken:
                plan.points.append(press_point(t.ref, raw, "answer", t.text))
            else:
                plan.points.append(PlanPoint(kind="no_answer", target=t.ref, target_text=raw.reply.gist))
        c = round_contrast(bank, speaker, opponent, plan.theme, "回应", spoken, heard, case_id=plan.case)
        # none left at his answer: one at what he has put, else at what his school is known to teach (said as
        # X所传的…一说): the seed's ammo, at least one a 反驳
        c = c or round_contrast(bank, speaker, opponent, plan.theme, "回应", spoken, heard)
        if c is not None:
            plan.points.append(c)
        return
    if opp is None:
        plan.points.append(PlanPoint(kind="restate", text=summary, target=f"{opponent}:{plan.theme}#0"))
        plan.points.append(PlanPoint(kind="no_answer", target=f"{opponent}:{plan.theme}#0"))
        return
    idx = restated_points(opp, summary) if nth == 0 else [0]
    said_case = _case_said(bank, plan, opponent, summary) if nth == 0 else None
    if said_case is not None:  # his answer to the question is the first of the three points
        # only the reasons the summary names: an opening on a case often states none, and the summary's list
        # of cited books alone (梵网经) aligned r12's rebuttals with reasons nobody had put
        # (and not by the words of his answer's own gist: 迷悟在心不在门 is not the reason 迷悟不在门头)
        rest = summary.replace(said_case[1].gist, "")
        rest = rest.split("并议")[0]  # what it raised in advance is no reason (悲须有次第可走 read as 对象须有次第)
        idx = [n for n, r in enumerate(opp.reasons, start=1) if r.gist and gist_in(r.gist, rest)][:2]
    if summary and not all(n and gist_in(opp.reasons[n - 1].gist, summary) for n in idx):
        # a summary that does not carry the points' gists (a model's): restate it as it stands first
        plan.points.append(PlanPoint(kind="restate_summary", text=summary, target=opp.point_id(0)))
    if said_case is not None:
        case, ans, target = said_case
        plan.points.append(PlanPoint(kind="restate", text=ans.text, target=target, target_text=ans.gist))
        own = case.objections_at(speaker, opponent)
        if own:
            o = own[0]
            plan.points.append(
                PlanPoint(
                    kind="answer",
                    text=o.text,
                    ref=o.id,
                    target=target,
                    target_text=ans.gist,
                    gist=o.gist,
                    source=o.source,
                    quote=o.quote,
                )
            )
        else:
            plan.points.append(PlanPoint(kind="no_answer", target=target, target_text=ans.gist))
        if not idx:
            ahead = summary.split("并议", 1)[-1]  # what it raised in advance (his answer 回光看念… is not 回光问念…)
            plan.points += anticipated(bank, plan.theme, speaker, opponent, ahead, case)
    used: set[str] = set()
    for n in idx:
        gist = opp.reasons[n - 1].gist if n else (opp.short or opp.claim)
        plan.points.append(
            PlanPoint(
                kind="restate",
                text=opp.reasons[n - 1].text if n else opp.claim,
                target=opp.point_id(n),
                target_text=gist,
            )
        )
    later = [o for o in objs if o.target.endswith("#0")] if nth else []
    for n in idx:
        aimed = [o for o in objs if o.target == opp.point_id(n) and o.id not in used]
        if nth:
            aimed = later[nth - 1 : nth] if len(later) >= nth else []
        point = next((p for p in plan.points if p.kind == "restate" and p.target == opp.point_id(n)), None)
        tt = point.target_text if point else ""
        if aimed:
            o = aimed[0]
            used.add(o.id)
            plan.points.append(
                PlanPoint(
                    kind="answer",
                    text=o.text,
                    ref=o.id,
                    target=o.target,
                    target_text=tt,
                    gist=o.gist,
                    source=o.source,
                    quote=o.quote,
                )
            )
        else:
            plan.points.append(PlanPoint(kind="no_answer", target=opp.point_id(n), target_text=tt))
    whole = claim_objection(bank, speaker, opponent, plan.theme) if nth == 0 and idx != [0] else None
    if whole is not None and not plan.of("answer"):
        # none of the restated points has an objection of its own: the one aimed at his claim as a whole
        plan.points.append(
            PlanPoint(
                kind="answer",
                text=whole.text,
                ref=whole.id,
                target=opp.point_id(0),
                target_text=opp.short or opp.claim,
                gist=whole.gist,
                source=whole.source,
                quote=whole.quote,
            )
        )
    # mostly unanswered: say so, then state one's own view (his points only: an advance objection left
    # unanswered is no point of his teaching)
    if len([p for p in plan.of("no_answer") if p.target.startswith(opp.id + "#")]) * 2 > len(idx):
        plan.points.append(PlanPoint(kind="stance", text=pos.claim, ref=pos.point_id(0)))
        for i, r in enumerate(pos.reasons[:3], start=1):
            plan.points.append(
                PlanPoint(kind="reason", text=r.text, ref=pos.point_id(i), gist=r.gist, source=r.source, quote=r.quote)
            )


def case_target(opponent: str, theme: str) -> str:
    """The point id a plan gives the opponent's answer to the case (``<slug>:<theme>#case``)."""
    return f"{opponent}:{theme}#case"


def _case_said(bank: ArgumentBank, plan: SpeechPlan, opponent: str, summary: str):
    """(case, the opponent's answer, its point id) when the topic is a case he answers and his summary
    carries that answer's gist: a 反驳 restates and answers it first."""
    case = bank.case(plan.case) if plan.case else None
    ans = case.answer(opponent) if case is not None else None
    if case is None or ans is None or not ans.gist or not summary or not gist_in(ans.gist, summary):
        return None
    return case, ans, case_target(opponent, plan.theme)


def _first_sentence(text: str) -> str:
    """The first sentence of a bank text: a hold names the ground it keeps, it does not repeat the whole."""
    return re.split(r"(?<=[。！？])", (text or "").strip())[0]


def _plan_response(
    bank: ArgumentBank,
    plan: SpeechPlan,
    pos: Position,
    opp: Position | None,
    speaker: str,
    opponent: str,
    summary: str,
    spoken: frozenset[str] = frozenset(),
    heard: set[str] | None = None,
) -> None:
    aimed = bank.objections(opponent, speaker, plan.theme)
    case = bank.case(plan.case) if plan.case else None
    mine = case.answer(speaker) if case is not None else None
    at_case = case.objections_at(opponent, speaker) if case is not None and mine is not None else []
    aimed = at_case + aimed
    # (at most three: the seed's reply takes up the objections one by one within 500 字)
    raised = (raised_objections(aimed, summary) if summary else [])[:3]
    if raised and not all(gist_in(o.gist, summary) for o in raised):
        plan.points.append(PlanPoint(kind="restate_summary", text=summary, target=f"{opponent}:{plan.theme}"))
    if not raised:
        plan.points.append(PlanPoint(kind="restate", text=summary, target=f"{opponent}:{plan.theme}"))
    for o in raised:
        plan.points.append(PlanPoint(kind="restate", text=o.text, ref=o.id, target=o.id, target_text=o.gist))
    for o in raised:
        replies = bank.replies_to(o.id, speaker)
        cr = case.reply_to(o.id) if case is not None and o in at_case else None  # his reply to it, on a case
        if replies:
            r = replies[0]
            plan.points.append(
                PlanPoint(
                    kind=r.stance,
                    text=r.text,
                    ref=o.id,
                    target=o.id,
                    target_text=o.gist,
                    gist=r.gist,
                    source=r.source,
                    quote=r.quote,
                )
            )
        elif cr is not None:
            plan.points.append(
                PlanPoint(
                    kind=cr.stance,
                    text=cr.text,
                    ref=o.id,
                    target=o.id,
                    target_text=o.gist,
                    gist=cr.gist,
                    source=cr.source,
                    quote=cr.quote,
                )
            )
        elif o in at_case and case is not None and mine is not None:  # (an answer is only read from a case)
            # an objection at his answer to the question, with no reply written: he keeps that answer on a further
            # ground of his on this question not yet spoken (r25: 「我仍持原说，所据的就是前面讲过的…这一层，不再
            # 重复」 read as stonewalling); with none left, he names the answer he keeps
            more = [g for g in grounds(bank, plan, speaker, spoken) if g.ref not in {x.ref for x in plan.points}]
            plan.points.append(
                more[0].model_copy(update={"kind": "hold", "target": o.id, "target_text": o.gist})
                if more
                else PlanPoint(
                    kind="hold",
                    text=mine.gist or _first_sentence(mine.text),
                    ref=f"case:{case.id}:{speaker}",
                    target=o.id,
                    target_text=o.gist,
                )
            )
        else:
            # no reply in the bank: he holds the point the objection is aimed at, and says on what ground
            n = int(o.target.rsplit("#", 1)[1]) if "#" in o.target else 0
            held = pos.reasons[n - 1] if 0 < n <= len(pos.reasons) else None
            # (its gist, not its sentence again: r5's readers found the repeated sentence answered nothing)
            plan.points.append(
                PlanPoint(
                    kind="hold", text=pos.short or pos.claim, ref=pos.point_id(0), target=o.id, target_text=o.gist
                )
                if held is None
                else PlanPoint(
                    kind="hold",
                    text=held.gist or _first_sentence(held.text),
                    ref=pos.point_id(n),
                    target=o.id,
                    target_text=o.gist,
                )
            )
    room = CEILING + 25 - estimated_length(plan) - case_room(bank, plan, speaker, spoken)
    c = press(bank, plan, speaker, spoken, summary)  # his further word on the case objection he raised, first
    c = c or round_contrast(bank, speaker, opponent, plan.theme, "回应", spoken, heard, room, plan.case)
    if c is not None:
        plan.points.append(c)


_STANCES = {"接受": "accept", "部分接受": "partly", "坚持": "hold"}
_OUTCOME = re.compile(r"^(部分接受|接受|坚持)(.+)$")


def _outcome(bank: ArgumentBank, plan: SpeechPlan, speaker: str, opponent: str, summary: str) -> list[PlanPoint]:
    """How the other side took the speaker's objections in his last round, as his summary carries it
    (``X答：接受A；部分接受B；坚持C``): one ``outcome`` point per objection of the speaker's own that the
    summary names with a stance.  A summary in any other form (a model's) gives none: the 综合 then
    says nothing of how its objections were taken."""
    head, sep, body = summary.partition("答：")
    if not sep:
        return []
    case = bank.case(plan.case) if plan.case else None
    mine = bank.objections(speaker, opponent, plan.theme) + (case.objections_at(speaker, opponent) if case else [])
    gists = {bare_gist(o.gist): o for o in mine if o.gist}
    out = []
    for item in re.split(r"[；。]", body):
        m = _OUTCOME.match(item.strip())
        o = gists.get(bare_gist(m.group(2))) if m else None
        if m and o is not None:
            out.append(PlanPoint(kind="outcome", text=o.gist, ref=o.id, target=o.id, target_text=_STANCES[m.group(1)]))
    return out


def bare_gist(text: str) -> str:
    return re.sub(r"[，。；、\s…]+", "", text or "")


def _plan_synthesis(
    bank: ArgumentBank,
    plan: SpeechPlan,
    pos: Position,
    opp: Position | None,
    speaker: str,
    opponent: str,
    spoken: frozenset[str] = frozenset(),
    heard: set[str] | None = None,
    summary: str = "",
    asked: set[str] | None = None,
) -> None:
    # the pair's word to the reader is the observation's (留给读者), never a line of the master's speech
    pb = bank.pair(speaker, opponent)
    case = bank.case(plan.case) if plan.case else None
    mine, theirs = (case.answer(speaker), case.answer(opponent)) if case is not None else (None, None)
    # on a case both answered, what stays different is their two answers to it, both given in their first
    # speeches; the theme's stock common ground and difference stay out (r10: three debates on one theme
    # closed on the same recited block, and named ground nobody had stated in that debate)
    on_case = case is not None and mine is not None and theirs is not None and bool(mine.gist and theirs.gist)
    ground = [c for c in (pb.common_ground if pb else []) if c.theme == plan.theme and not on_case]
    diffs = [c for c in (pb.differences if pb else []) if c.theme == plan.theme and not on_case]
    plan.points += _outcome(bank, plan, speaker, opponent, summary)
    if not on_case:  # (on a case it closes on the two answers, and states no general claim: r16)
        plan.points.append(PlanPoint(kind="stance", text=pos.claim, ref=pos.point_id(0)))
        if opp is not None:
            plan.points.append(PlanPoint(kind="opponent_stance", text=opp.claim, ref=opp.point_id(0)))
    for g in ground[:2]:
        plan.points.append(PlanPoint(kind="common", text=g.text))
    # what the speaker grants, in his own words, never presented as shared; and only a grant that
    # meets something the other side has said in this debate (its summary), never one nobody asked for
    for grant in pos.concedes[:1]:
        if summary and len(bigrams_of(grant) & bigrams_of(summary)) >= 2:
            plan.points.append(PlanPoint(kind="concede", text=grant, ref=pos.point_id(0)))
    for d in diffs[:1]:
        plan.points.append(PlanPoint(kind="difference", text=d.text, target_text=d.level))
    if on_case and case is not None and mine is not None and theirs is not None:
        plan.points.append(
            PlanPoint(
                kind="case_difference", text=mine.gist, target_text=theirs.gist, ref=f"case:{case.id}:{speaker}:both"
            )
        )
    plan.points += case_points(bank, plan, speaker, spoken)
    c = round_contrast(bank, speaker, opponent, plan.theme, "综合", spoken, heard, case_id=plan.case)
    if c is not None:
        plan.points.append(c)
    # a speech that cites nothing takes a cited point: on a case, a ground of his on the question first
    cited_ground = [g for g in grounds(bank, plan, speaker, spoken) if g.source]
    if cited_ground and not any(p.source for p in plan.points):
        plan.points.append(cited_ground[0])
    fresh = [(i, r) for i, r in enumerate(pos.reasons, start=1) if r.source and pos.point_id(i) not in spoken]
    fresh.sort(key=lambda x: -len(bigrams_of(x[1].text) & (asked or set())))
    if fresh and not any(p.source for p in plan.points):
        i, best = fresh[0]
        plan.points.append(
            PlanPoint(kind="support", text=best.text, ref=pos.point_id(i), source=best.source, quote=best.quote)
        )
