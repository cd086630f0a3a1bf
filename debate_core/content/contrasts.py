"""The round's own objection at the other side (a plan's ``contrast``), and the objection at his claim as a whole.

Split out of :mod:`debate_core.content.plan`: which of the bank's objections a round raises, never one the same
speaker has spoken in the debate, one at a point the other side has put when the debate is on a case.
"""

from __future__ import annotations

from debate_core.content.text import bigrams_of, cjk_len
from debate_core.plans import ArgumentBank, Objection, PlanPoint


def ordered_objections(bank: ArgumentBank, speaker: str, opponent: str, theme: str) -> list[Objection]:
    """The speaker's objections on the theme: those at the opponent's claim (#0) first."""
    return sorted(bank.objections(speaker, opponent, theme), key=lambda o: (0 if o.target.endswith("#0") else 1, o.id))


def claim_objection(bank: ArgumentBank, speaker: str, opponent: str, theme: str) -> Objection | None:
    """The objection a 反驳 spends on the opponent's claim as a whole: only when the speaker has none
    aimed at the opponent's reasons on the theme (else it answers them point by point).  A pure
    function of the bank, so the same speaker's 综合 knows which one is spent without seeing R2."""
    objs = ordered_objections(bank, speaker, opponent, theme)
    if not objs and bank.derived:
        objs = sorted(bank.objections(speaker, opponent), key=lambda o: o.id)
    if any(not o.target.endswith("#0") and o.target_theme == theme for o in objs):
        return None
    return objs[0] if objs else None


def point_gist(bank: ArgumentBank, target: str) -> str:
    """The opponent's point an objection is aimed at, in a few words (his claim's short form or a reason's gist)."""
    who, _, rest = target.partition(":")
    theme, _, n = rest.partition("#")
    pos = bank.position(who, theme)
    if pos is None:
        return ""
    i = int(n) if n.isdigit() else 0
    if 0 < i <= len(pos.reasons):
        return pos.reasons[i - 1].gist or ""
    return pos.short or pos.claim


def as_contrast(bank: ArgumentBank, o: Objection, heard: set[str] | None = None) -> PlanPoint:
    return PlanPoint(
        kind="contrast",
        text=o.text,
        ref=o.id,
        target=o.target,
        target_text=point_gist(bank, o.target),
        gist=o.gist,
        source=o.source,
        quote=o.quote,
        heard=heard is not None and o.target in heard,
    )


def round_contrast(
    bank: ArgumentBank,
    speaker: str,
    opponent: str,
    theme: str,
    role: str,
    spoken: frozenset[str] = frozenset(),
    heard: set[str] | None = None,
    room: int | None = None,
    case_id: str = "",
    near: set[str] | None = None,
) -> PlanPoint | None:
    """The round's own objection, never one the same speaker has spoken in this debate (``spoken``): 立论
    takes the first (one at the claim when there is one); 回应 the next; 综合 one at the claim (a 反驳
    has already spent those aimed at the reasons, and the one at the claim when it had nothing else)."""
    objs = ordered_objections(bank, speaker, opponent, theme)
    case = bank.case(case_id) if case_id else None
    if case is not None and role == "立论" and case.answer(opponent) is not None:
        # his objection at the other's answer to this question, one the other has a reply to, which the 反驳 answers
        # (r16: 我料X会讲… on the other's general doctrine took half of every rebuttal off the question)
        own = [o for o in case.objections_at(speaker, opponent) if o.id not in spoken and case.reply_to(o.id)]
        if own:
            point = as_case_contrast(bank, case, own[0], opponent)
            point.heard = False  # he has not spoken yet: what he is expected to answer
            return point
    if case is not None and role in ("回应", "综合"):  # the other's answer to this very question comes first
        own = [o for o in case.objections_at(speaker, opponent) if o.id not in spoken]
        if own:
            return as_case_contrast(bank, case, own[0], opponent)
    if not objs and bank.derived:  # a pack's cross_critique is aimed at the opponent, not at one theme
        objs = sorted(bank.objections(speaker, opponent), key=lambda o: o.id)
    objs = [o for o in objs if o.id not in spoken]
    if role != "立论":  # a point the other side has put in this debate first; else one his school is known
        # to teach (rendered X所传的…一说, never as something he said here) — but not in a debate on a case, where
        # r14's readers found the 综合 arguing against views nobody had taken on the question
        put = [o for o in objs if heard and o.target in heard]
        objs = put if case is not None else put or objs
    if not objs:
        return None
    if role == "立论":
        # one at a reason of his: the one at his claim waits for the 回应, once he has put that claim; among
        # them the one nearest the question (``near``: r10 found openings objecting on a side issue, 昏沉 on
        # a question about reciting with a wandering mind)
        # one the other side has a reply to first: his 反驳 restates it and answers it with that reply, where one
        # without a reply is restated only to be left unanswered (r15: 这一点我暂不辩驳); then the nearest
        pick = sorted(
            objs,
            key=lambda o: (
                o.target.endswith("#0"),
                not bank.replies_to(o.id, opponent),
                -len(bigrams_of(o.text + o.gist) & (near or set())),
            ),
        )[:1]
    elif role == "回应":
        pick = objs[:1] if spoken else objs[1:2]  # without a record of R1, skip the one a 立论 takes
        if room is not None and pick and cjk_len(pick[0].text) + 10 > room:
            # the replies already fill the speech: the first objection that still fits, else the shortest
            pool = objs if spoken else objs[1:]
            pick = [next((o for o in pool if cjk_len(o.text) + 10 <= room), min(pool, key=lambda o: cjk_len(o.text)))]
    else:
        spent = claim_objection(bank, speaker, opponent, theme)
        pick = [o for o in objs if o.target.endswith("#0") and (spent is None or o.id != spent.id)][:1]
        if not pick:  # none left at his claim: one at a point of his he has put, when there is one
            pick = [o for o in objs if spent is None or o.id != spent.id][:1]
    return as_contrast(bank, pick[0], heard) if pick else None


def contrast_target(bank: ArgumentBank, o: Objection, case=None, opponent: str = "") -> str:
    """The words a contrast names the point it answers by: on a case, the opponent's answer's gist (what he
    said in his first speech); else, or when that answer has none, the gist of the point the objection targets.
    The plan's ``target_text`` and the observation's reading of a grant (``认同…一层``) both name it so."""
    ans = case.answer(opponent) if case is not None else None
    return ans.gist if ans is not None and ans.gist else point_gist(bank, o.target)


def as_case_contrast(bank: ArgumentBank, case, o: Objection, opponent: str) -> PlanPoint:
    """An objection at the opponent's answer to the case: he gave it in his first speech (heard)."""
    return PlanPoint(
        kind="contrast",
        text=o.text,
        ref=o.id,
        target=o.target,
        target_text=contrast_target(bank, o, case, opponent),
        gist=o.gist,
        source=o.source,
        quote=o.quote,
        heard=True,
    )
