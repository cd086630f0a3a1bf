"""The offline engine: speech plans rendered to text, summaries and the observation from the bank."""

from __future__ import annotations

import re
import time

from debate_core.content.arguments import ArgumentBank, bank_of
from debate_core.content.contrasts import contrast_target
from debate_core.content.pairing import row_theme
from debate_core.content.plan import debate_theme, plan_speech, summary_of
from debate_core.content.text import GRANT_THEN_TURN, bigrams_of, cjk_only, says_own_stance
from debate_core.content.titles import chinese_title
from debate_core.engines.gateway import Generation
from debate_core.engines.offline.compose import bare, fit, taught_common
from debate_core.models import Observation, ObservationRequest, Pack, SpeechRequest, SummaryRequest
from debate_core.plans import Case, Common, SpeechPlan

ENGINE_NAME = "offline"


def plan_for(pack: Pack, req: SpeechRequest) -> SpeechPlan:
    """The plan of a request that came without one (the protocol normally builds it)."""
    return req.plan or plan_speech(
        bank_of(pack),
        topic=req.topic,
        role=req.role,
        round_no=req.round,
        speaker=req.speaker,
        opponent=req.opponent,
        opponent_summary=req.opponent_summary,
        row_theme=row_theme(req.speaker, req.opponent),
    )


class OfflineEngine:
    """Implements the master-debate engine interface: speech, summarize, observe."""

    name = ENGINE_NAME

    def __init__(self, pack: Pack):
        self.pack = pack

    def speech(self, req: SpeechRequest, on_token=None) -> Generation:
        t0 = time.perf_counter()
        plan = plan_for(self.pack, req)
        text = fit(plan, topic=req.topic, me=self.pack.masters[req.speaker], opp=self.pack.masters[req.opponent])
        if on_token is not None:
            for piece in re.findall(r"[^。]+。?", text):
                on_token(piece)
        return Generation(text=text, model=ENGINE_NAME, latency_ms=(time.perf_counter() - t0) * 1000)

    def summarize(self, req: SummaryRequest) -> Generation:
        m = self.pack.masters.get(req.speaker)
        if req.plan is None or m is None:  # a speech of another engine: its first sentence, clipped
            first = re.split(r"(?<=[。！？])", req.text.strip())[0]
            return Generation(text=first[: req.limit], model=ENGINE_NAME)
        titles = {s.id: chinese_title(s.title) for s in m.sources}
        return Generation(text=summary_of(req.plan, m.short_name, titles, req.limit), model=ENGINE_NAME)

    def observe(self, req: ObservationRequest) -> Observation:
        bank = bank_of(self.pack)
        a, b = self.pack.masters.get(req.a), self.pack.masters.get(req.b)
        an, bn = (a.short_name if a else req.a_name), (b.short_name if b else req.b_name)
        choice = debate_theme(bank, req.topic, req.a, req.b, row_theme(req.a, req.b))
        pb = bank.pair(req.a, req.b)
        pick = (lambda xs: next((x for x in xs if x.theme == choice.theme), None)) if pb else (lambda xs: None)
        diff = pick(pb.differences) if pb else None
        common = pick(pb.common_ground) if pb else None
        reader = pick(pb.to_reader) if pb else None
        case = bank.case(choice.case) if choice.case else None
        if case is not None and case.to_reader:  # the question's own word to the reader, before the theme's
            reader = Common(theme=choice.theme, text=case.to_reader)
        pa, pbp = bank.position(req.a, choice.theme), bank.position(req.b, choice.theme)
        ans_a, ans_b = (case.answer(req.a), case.answer(req.b)) if case is not None else (None, None)
        on_case = ans_a is not None and ans_b is not None and bool(ans_a.gist and ans_b.gist)
        if on_case and case is not None and ans_a is not None and ans_b is not None:
            # a debate on a case: the two answers both gave (their 综合 closes on them), and only what the
            # debate itself agreed (r10: the theme's stock ground named points no speech had made)
            # the two answers as given, and then what stayed apart in this very debate: an objection one side
            # held against (its 回应's summary says 坚持…), else the ground each stands on; r15's readers found the
            # closing setting two answers that say the same thing against each other as the 分歧
            # on a near case (the bank's question, not the asker's own) the answers were to that kind of matter
            this = "就这件事" if cjk_only(case.question) == cjk_only(req.topic) else "就这一类情形"
            div = f"{this}，{an}的回答是「{bare(ans_a.gist)}」，{bn}的回答是「{bare(ans_b.gist)}」。"
            names = {req.a: an, req.b: bn}
            apart = [
                f"{names.get(who, who)}没有接受{names.get(other, other)}的「{g}」一说"
                for who, g in _held(req)
                for other in [next((k for k in names if k != who), "")]
            ]
            level = f"分歧在{diff.level}层面：" if diff is not None and diff.level else ""
            stated = all(
                # his claim as a summary states it (立… / 另立… / 仍持…), not its words inside an answer's gist
                # (虚云答：境界一概不理 carries the short form 一概不理 of a claim no speech of his stated)
                any(
                    x.speaker == slug and pos.short and re.search(f"(?:立|持){re.escape(pos.short)}", x.text)
                    for x in req.summaries
                )
                for slug, pos in ((req.a, pa), (req.b, pbp))
                if pos is not None
            )
            if apart:
                # one colon a clause (r19: 分歧在行门层面：仍未谈拢的是：… read as template residue)
                div += (level[:-1] + "，" if level else "") + "仍未谈拢的是：" + "；".join(apart) + "。"
            if pa and pbp and stated and _distinct(pa.claim, pbp.claim):
                # the ground each stands on, when both speeches stated it (their summaries carry it), unless
                # the two say nearly the same (r11: 因果丝毫不错 against 因果丝毫不爽 offered as a difference)
                div += (
                    "" if apart or not level else level[:-1] + "，"
                ) + f"所本不同：{an}主张{bare(pa.claim)}；{bn}主张{bare(pbp.claim)}。"
            agreed, partly = _agreed(req)

            def said(items: list[tuple[str, str]], word: str) -> str:
                return "；".join(_granted(bank, case, choice.theme, names, who, g, word) for who, g in items)

            cons = (
                (f"谈到最后，两位都认可：{said(agreed, '接受')}。" if agreed else "")
                + (f"有保留地靠近的是：{said(partly, '部分接受')}。" if partly else "")
            ) or (
                _granted_ground(bank, case, choice.theme, req, names)
                or _held_granted(bank, case, choice.theme, req, names)
                or _rebuttal_granted(bank, case, choice.theme, req, names)
                or _none_accepted(req, names)
            )
        elif pa and pbp:
            # both claims as the debate stated them (R1 and the 综合), at the bank's level: r10's readers found
            # the bank's own wording of the difference naming points no speech made (怖畏智, 身后追荐)
            level = f"分歧在{diff.level}层面：" if diff is not None and diff.level else ""
            div = f"{level}{an}主张{bare(pa.claim)}；{bn}主张{bare(pbp.claim)}。"
        elif diff is not None:
            div = (f"分歧在{diff.level}层面：" if diff.level else "") + bare(diff.text) + "。"
        else:
            held = pa or pbp
            who = an if pa else bn
            div = (
                (
                    f"只有{who}就「{choice.title}」有专门的主张（{bare(held.claim)}），另一方没有可据的材料，"
                    "这一场谈不上真正交锋。"
                )
                if held
                else (f"双方都没有关于「{choice.title}」的专门材料，这一场谈不上交锋。")
            )
        if not on_case:
            # the bank's common ground is of their teachings, said as such (r21: 两位都认为在家人也能修成佛道 read as
            # a view one of them had stated in this debate, which he had not)
            cons = taught_common([common.text]) if common is not None else "本场没有找到双方都明白说出的共许之处。"
        to_reader = (
            bare(reader.text) + "。"
            if reader is not None
            else f"「{req.topic}」这一问，两家给出的是两条不同的路；请读者对照自己的处境去体会，不必在这里分高下。"
        )
        return Observation(divergence=div, consensus=cons, to_reader=to_reader, engine=ENGINE_NAME)


_REFUSAL = re.compile(r"不能同意|不敢苟同|不能认|不认")


def _held_granted(
    bank: ArgumentBank, case: Case | None, theme: str, req: ObservationRequest, names: dict[str, str]
) -> str:
    """共识点 from a reply that held against an objection but first granted part of it in its own words (这一点
    我认，只是… / 这话光很赞同，但…): the granted sentence, quoted as his.  r26's readers read 「X在回应里坚持原说…
    本场没有明白说出的共许之处」 as untrue after 这条路老僧也认 and 这一点我认."""
    for who, gist in _held(req):
        other = next((k for k in names if k != who), "")
        reply = _reply_of(bank, case, theme, who, other, gist)
        m = GRANT_THEN_TURN.match(reply.text.strip()) if reply is not None and reply.text else None
        if m is None or not says_own_stance(reply.text) or _REFUSAL.search(m["granted"]):
            continue
        granted = _grant_quoted(m["granted"])
        return (
            f"{names.get(who, who)}在回应里坚持原说，但先认了{names.get(other, other)}「{gist}」一说里的一层，"
            f"他的话是：「{granted}」。"
        )
    return ""


def _grant_quoted(granted: str) -> str:
    """A granted sentence as the 共识点 quotes it: no citation mark, no closing stop, inner quotes as 『』."""
    return re.sub(r"【[^】]*】", "", granted).rstrip("。！？").replace("「", "『").replace("」", "』")


def _rebuttal_granted(
    bank: ArgumentBank, case: Case | None, theme: str, req: ObservationRequest, names: dict[str, str]
) -> str:
    """共识点 from a 反驳 that granted part of what it answered before turning on it (这是实事，光不敢疑。但… / 这层
    光认，…): the point its summary names (X驳：A；B), found as his objection at the other side or as his reply to
    the other's objection, and its granted sentence quoted as his.  r28's readers read 本场没有明白说出的共许之处
    as false after exactly such grants."""
    for s in req.summaries:
        head, sep, body = s.text.partition("驳：")
        if not sep or s.speaker not in names:
            continue
        who = s.speaker
        other = next((k for k in names if k != who), "")
        for gist in (bare(g) for g in re.split(r"[；。]", body.split("。引")[0]) if g.strip()):
            objs = list(case.objections_at(who, other)) if case is not None else []
            objs += bank.objections(who, other, theme)
            mine = next((o for o in objs if bare(o.gist) == gist), None)
            text = mine.text if mine is not None else ""
            if mine is None:  # his reply to the other's objection, named by that reply's gist
                theirs = list(case.objections_at(other, who)) if case is not None else []
                theirs += bank.objections(other, who, theme)
                for o in theirs:
                    reply = (case.reply_to(o.id) if case is not None else None) or next(
                        iter(bank.replies_to(o.id, who)), None
                    )
                    if reply is not None and bare(reply.gist) == gist:
                        text = reply.text
                        break
            m = GRANT_THEN_TURN.match(text.strip()) if text else None
            if m is None or not says_own_stance(text) or _REFUSAL.search(m["granted"]):
                continue
            granted = _grant_quoted(m["granted"])
            return f"{names[who]}在反驳里先认了{names.get(other, other)}的一层，他的话是：「{granted}」。"
    return ""


def _none_accepted(req: ObservationRequest, names: dict[str, str]) -> str:
    """共识点 when no objection was accepted and nothing of the other's was granted: who held against the other's
    objections (a 回应's summary, 答：坚持…). r20 read the longer 请读者对照着读 formula as filler; r22 read 本场两位
    都没有接受 as false where only one side had a 回应; r24 read 「X在回应里没有接受对方的质疑」 as no ground at all,
    and false where no objection had been made."""
    held = list(dict.fromkeys(names.get(who, who) for who, _g in _held(req)))
    if held:
        return f"{'、'.join(held)}在回应里坚持原说，没有接受对方的质疑；本场没有明白说出的共许之处。"
    return "本场没有明白说出的共许之处。"


_GRANTED = re.compile(r"认同(?P<g>[^；。]+?)一层")
# a clause that speaks of the speaker or of his own words; 印光 names himself 光 at a clause's head (光以为 …),
# which is not the 光 of 光明 or 时光
_FIRST_PERSON = re.compile(r"我|老僧|老和尚|老衲|贫道|^\s*光(?=[以谓意看想劝常每亦只])|这话|这一点|这一层|这些|此说")


def _granted_ground(
    bank: ArgumentBank, case: Case | None, theme: str, req: ObservationRequest, names: dict[str, str]
) -> str:
    """共识点 from what one side granted of the other's claim before turning on it (its 回应's summary says
    认同…一层): the granted words of that objection of his, without the clauses that speak of himself."""
    for s in req.summaries:
        _head, sep, body = s.text.partition("答：")
        m = _GRANTED.search(body) if sep else None
        if m is None:
            continue
        who, g = s.speaker, m["g"]
        other = next((k for k in names if k != who), "")
        # each objection with the words its point was named by in the plan (contrasts.contrast_target)
        objs = [
            (o, bare(contrast_target(bank, o, case, other))) for o in (case.objections_at(who, other) if case else [])
        ]
        objs += [(o, bare(contrast_target(bank, o))) for o in bank.objections(who, other, theme)]
        said = ""
        for o, named in objs:
            if named == bare(g):
                grant = GRANT_THEN_TURN.match(o.text)
                if grant is not None and says_own_stance(o.text):
                    clauses = re.split(r"[，,；。！？]", grant["granted"])
                    said = "，".join(c for c in clauses if c and not _FIRST_PERSON.search(c))
                    break
        head = f"{names.get(who, who)}认同{names.get(other, other)}「{g}」里的一层"
        return f"{head}：{said}。" if len(said) >= 4 else f"{head}。"
    return ""


_TAKEN = re.compile(r"^(部分接受|接受|坚持)(.+)$")
_TAKEN_KIND = {"接受": "accept", "部分接受": "partly", "坚持": "hold"}


def _taken(req: ObservationRequest) -> dict[str, list[tuple[str, str]]]:
    """How each side took the other's objections in this debate, as its 回应's summary says
    (``X答：接受A；部分接受B；坚持C``): ``accept`` / ``partly`` / ``hold`` -> (who took it, its gist) each."""
    out: dict[str, list[tuple[str, str]]] = {"accept": [], "partly": [], "hold": []}
    for s in req.summaries:
        _head, sep, body = s.text.partition("答：")
        if not sep:
            continue
        for item in re.split(r"[；。]", body):
            m = _TAKEN.match(item.strip())
            if m and not m.group(2).startswith("引"):
                out[_TAKEN_KIND[m.group(1)]].append((s.speaker, bare(m.group(2))))
    return out


def _agreed(req: ObservationRequest) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The objections one side accepted, and those it partly accepted, in this debate: an accepted objection is
    held by both from then on (r11: a list of who conceded what read as a tally, not as common ground)."""
    taken = _taken(req)
    return taken["accept"], taken["partly"]


def _held(req: ObservationRequest) -> list[tuple[str, str]]:
    """The objections one side held against in this debate (坚持C), each as (who held, its gist)."""
    return _taken(req)["hold"]


def _reply_of(bank: ArgumentBank, case: Case | None, theme: str, who: str, other: str, gist: str):
    """``who``'s reply (the case's, else the bank's) to ``other``'s objection named by ``gist``; None without one."""
    objs = list(case.objections_at(other, who)) if case is not None else []
    objs += bank.objections(other, who, theme)
    o = next((o for o in objs if bare(o.gist) == gist), None)
    if o is None:
        return None
    return (case.reply_to(o.id) if case is not None else None) or next(iter(bank.replies_to(o.id, who)), None)


def _granted(
    bank: ArgumentBank, case: Case | None, theme: str, names: dict[str, str], who: str, gist: str, word: str
) -> str:
    """An agreement said with its content: the gist alone (「先一家后众生」) read as a label that means nothing
    on its own (r12).  The first sentence of the taker's own reply to that objection says what was granted, in
    his words; without one in the bank, the gist as it stands."""
    other = next((k for k in names if k != who), "")
    reply = _reply_of(bank, case, theme, who, other, gist)
    if reply is None or not reply.text:
        return f"「{gist}」"
    first = re.sub(r"【[^】]*】", "", re.split(r"(?<=[。！？])", reply.text.strip())[0]).rstrip("。！？")
    # quoted as his words: the observation is neutral and never speaks in a master's first person (r14: 这话老僧认)
    first = first.replace("「", "『").replace("」", "』")
    return f"{names.get(who, who)}{word}了{names.get(other, other)}的「{gist}」一说，他的话是：「{first}」"


def _distinct(a: str, b: str) -> bool:
    """Two claims that share under half of their word pairs."""
    ga, gb = bigrams_of(a), bigrams_of(b)
    return not ga or not gb or len(ga & gb) / min(len(ga), len(gb)) < 0.5
