"""Rendering a speech plan into a master's speech, and a pair's bank into the neutral observation.

Every sentence is either bank content (a claim, a reason, an objection, a reply, common ground, a
difference, a word to the reader, written in the master's voice) or a frame that announces the
plan point it introduces: "对「…」，我接受" exists only for a plan point of kind ``accept``, "两家都
承认的是" only for ``common`` points, and so on.  Nothing is padded: a thin plan gives a short
speech.  Citations are written ``【《title》，id】`` from the point's own source and from nothing else.
"""

from __future__ import annotations

import re

from debate_core.content.text import (
    GRANT_THEN_TURN,
    HEDGES,
    ahead_of_answer,
    asked_elsewhere,
    cjk_len,
    cjk_only,
    personal_question,
    says_own_stance,
    specific_question,
    without_cited_tail,
)
from debate_core.content.titles import chinese_title
from debate_core.models import Master
from debate_core.plans import PlanPoint, SpeechPlan

NUMBERS = "一二三四五六"
ORDINALS = ("第一点", "第二点", "第三点", "第四点")
STANCE_WORDS = {"accept": "我接受", "partly": "我部分接受", "hold": "我仍坚持"}
_END = re.compile(r"[。！？；，、\s]+$")


def bare(text: str) -> str:
    return _END.sub("", (text or "").strip())


def quoted(text: str) -> str:
    """A question inside 「」 followed by 。: without a closing 。；， of its own (r10: 。」。), keeping ？ and ！."""
    return re.sub(r"[。；，、.\s]+$", "", (text or "").strip())


def cite(m: Master, sid: str) -> str:
    if not sid or sid not in m.source_ids:
        return ""
    title = chinese_title(m.source_title(sid) or "")
    return f"【《{title}》，{sid}】" if title else f"【{sid}】"


def said(m: Master, p: PlanPoint) -> str:
    """A bank text as a sentence, with its quote and citation at its end."""
    body = bare(p.text)
    if p.quote and p.quote not in body:
        body += f"，所以说「{bare(p.quote)}」"  # (r7: a bare ——「…」 tag read as a list fragment)
    return body + cite(m, p.source) + "。"


_BOTH = re.compile(r"^(?:两人|两位|二人|两家|二位|双方)(?:也)?都(?:认为|主张|承认|同意|看重|相信)?[：:，]?")


def _shared(text: str) -> str:
    """Common ground as it follows 两家都承认的是：, without a second 两人都认为 (the bank's entries
    are written to stand alone, in the observation too)."""
    body = bare(text)
    return _BOTH.sub("", body, count=1) or body


def taught_common(texts: list[str]) -> str:
    """The pair's common ground on the theme, said as what their teachings share, never as agreed in this debate
    (the 综合's line and the observation's 共识点 alike)."""
    return "依两家平日的教言，共许的是：" + "；".join(_shared(t) for t in texts) + "。"


MIN_CHARS, MAX_CHARS = 300, 500  # the seed's floor and ceiling (checks.MIN_CHARS, checks.MAX_CHARS)
OPTIONAL = ("support", "contrast")  # what a plan may lose to stay under the ceiling, last added first


def fit(plan: SpeechPlan, *, topic: str, me: Master, opp: Master) -> str:
    """The speech of a plan within the length ceiling: while the rendering runs over it, the plan drops its
    last optional point (its own support first, then an extra objection, never the only one) and is
    rendered again: its own support first, then an extra objection, then the advice on the case, then (a 反驳
    that took up the other's answer to the question) its last restated reason with its answer, and the only
    objection last, only when the speech answers the case itself.  The plan is changed in place, so the stored
    plan is what was said."""
    text = render(plan, topic=topic, me=me, opp=opp)
    if plan.role == "综合" and plan.of("support"):
        # a 综合 closes rather than argues: its own extra reasons go when it holds the floor without them
        lean = plan.model_copy(update={"points": [p for p in plan.points if p.kind != "support"]})
        lean_text = render(lean, topic=topic, me=me, opp=opp)
        if MIN_CHARS + 5 <= cjk_len(lean_text) <= MAX_CHARS:
            plan.points = lean.points
            plan.cited = list(dict.fromkeys(p.source for p in plan.points if p.source))
            return _lean(plan, lean_text, topic=topic, me=me, opp=opp) if plan.case else lean_text
    while cjk_len(text) > MAX_CHARS:
        extra = [i for i, p in enumerate(plan.points) if p.kind == "support"]
        if not extra:
            contrasts = [i for i, p in enumerate(plan.points) if p.kind == "contrast"]
            extra = contrasts[1:] if len(contrasts) > 1 else []
        if not extra:  # his further grounds on the question beyond the first
            extra = [i for i, p in enumerate(plan.points) if p.kind == "case_more"][1:]
        if not extra and plan.role == "立论" and plan.of("case_then"):
            # an opening on a case keeps what he would have the asker do before a second general reason
            extra = [i for i, p in enumerate(plan.points) if p.kind == "reason"][1:]
        if not extra:  # the advice on the case before the round's only objection (the seed's ammo)
            extra = [i for i, p in enumerate(plan.points) if p.kind == "case_then"]
        if not extra and plan.of("case"):
            extra = [i for i, p in enumerate(plan.points) if p.kind == "contrast"]
        if not extra and plan.role == "反驳":
            # a rebuttal that took up his answer to the question as well: it answers one reason fewer
            restated = [p for p in plan.of("restate") if p.target and not p.target.endswith("#case")]
            if len(restated) > 1 and any(p.target.endswith("#case") for p in plan.of("restate")):
                gone = restated[-1].target
                plan.points = [
                    p for p in plan.points if p.target != gone or p.kind not in ("restate", "answer", "no_answer")
                ]
                plan.cited = list(dict.fromkeys(p.source for p in plan.points if p.source))
                text = render(plan, topic=topic, me=me, opp=opp)
                continue
        if not extra:
            break
        del plan.points[extra[-1]]
        plan.cited = list(dict.fromkeys(p.source for p in plan.points if p.source))
        text = render(plan, topic=topic, me=me, opp=opp)
    return _lean(plan, text, topic=topic, me=me, opp=opp) if plan.case else text


def _lean(plan: SpeechPlan, text: str, *, topic: str, me: Master, opp: Master) -> str:
    """A speech on a case keeps to the question: it drops what it took only to reach the length floor — his
    general reasons, then objections beyond the round's first — last added first, while it stays over the floor.
    r13's readers found the same stock paragraphs (我料X会讲… 他或许还会讲…, 我也还有一层看法) in debate after
    debate of one pair, on questions they did not meet.  The plan is changed in place, as in ``fit``."""
    while True:
        extra = [i for i, p in enumerate(plan.points) if p.kind == "support"]
        if not extra:
            extra = [i for i, p in enumerate(plan.points) if p.kind == "contrast"][1:]
        if not extra:
            return text
        lean = plan.model_copy(update={"points": [p for i, p in enumerate(plan.points) if i != extra[-1]]})
        lean_text = render(lean, topic=topic, me=me, opp=opp)
        if cjk_len(lean_text) < MIN_CHARS + 5:
            return text
        plan.points = lean.points
        plan.cited = list(dict.fromkeys(p.source for p in plan.points if p.source))
        text = lean_text


def render(plan: SpeechPlan, *, topic: str, me: Master, opp: Master) -> str:
    if plan.material == "none":
        return _thin(plan, topic, me, opp)
    role = plan.role
    if role == "立论":
        text = _voice_once(_cited_once(_opening(plan, topic, me, opp)), first=True)
    elif role == "反驳":
        # (a 反驳 is the second speaker's first speech; a later one, R4 of five rounds, is not)
        text = _voice_once(_cited_once(_rebuttal(plan, me, opp, topic)), first=plan.round <= 2)
    elif role == "回应":
        text = _voice_once(_cited_once(_response(plan, me, opp, topic)), first=False)
    else:
        text = _voice_once(_cited_once(_synthesis(plan, topic, me, opp)), first=False)
    if _near(plan, topic):  # the bank's 你问… is the case's asker, not this one (the opening's 你提的是「…」 is his)
        head, mark, rest = text.partition("」。")
        text = head + mark + asked_elsewhere(rest) if text.startswith("你提的是「") else asked_elsewhere(text)
    return text


def _voice_once(text: str, *, first: bool) -> str:
    """``text`` with the speaker's hedge (content.text.HEDGES: 依我所学，…) kept at its first use in his first speech
    (``first``) and dropped elsewhere: said once it is his voice, in every paragraph a tic (r19)."""
    seen = not first

    def keep(m: re.Match) -> str:
        nonlocal seen
        if seen:
            return ""
        seen = True
        return m.group(0)

    return HEDGES.sub(keep, text)


_MARK = re.compile(r"【(?:《[^》]*》，)?([^】，]+)】")


def _cited_once(text: str) -> str:
    """Each source cited once in a speech, at the first text taken from it: r7's readers found the same
    mark after nearly every sentence mechanical (one speech cited 《心灵的资粮》 eleven times).  A mark
    that carries a quote (「…」 right before it) is kept, since it says which text the quote is checked against."""
    seen: set[str] = set()

    def keep(m: re.Match) -> str:
        sid = m.group(1)
        quoted = text[max(0, m.start() - 1) : m.start()] == "」"
        if sid in seen and not quoted:
            return ""
        seen.add(sid)
        return m.group(0)

    return _MARK.sub(keep, text)


def _unsigned(summary: str, opp: Master) -> str:
    """A round summary restated after 某某上一轮的意思是：, as speech: without its own 某某驳： / 答： head and
    without its list of cited books (r7: the list read as a log line), its clauses joined by commas."""
    body = bare(summary)
    for name in (opp.short_name, opp.name):
        for verb in ("驳：", "答：", "综合：", "：", "驳", "立"):
            if name and body.startswith(name + verb) and len(body) > len(name + verb) + 2:
                body = body[len(name + verb) :] if verb.endswith("：") else body[len(name) :]
                break
        else:
            continue
        break
    spoken = bare(without_cited_tail(body))
    return (spoken if len(spoken) > 4 else body).replace("；", "，")


def _thin(plan: SpeechPlan, topic: str, me: Master, opp: Master) -> str:
    out = []
    restate = plan.of("restate")
    if restate and restate[0].text:
        out.append(f"{opp.short_name}上一轮的意思是：{_unsigned(restate[0].text, opp)}。")
    if plan.of("no_answer"):
        out.append("对此我暂不辩驳。")
    out.append(
        f"你提的是「{quoted(topic)}」。关于{plan.theme_title}，我没有可以凭据的专门开示，不敢随口立说；"
        f"这一轮只说到这里，请读者参看{opp.short_name}一方的理由。"
    )
    return "".join(out)


def _opening(plan: SpeechPlan, topic: str, me: Master, opp: Master) -> str:
    # the asker's own words (r10: a master speaking of 题目 read as editorial residue), only where the answer is
    # written for this very question.  On a near case or a theme, the debate's top says what the answers were
    # written for (material_note) and the master simply speaks: r28's readers read 这一问，我就最接近的一问「…」
    # 来答 / 这件事本身，我不凭空作答 / 题中具体所问，下面不逐条作答 as machinery breaking character, and r17's read
    # 你提的是「…」。我的回答是： before a near question's answer as a false claim to answer the asker's own
    out = []
    stances = plan.of("stance")
    case = plan.of("case")
    if case:  # the bank answers this very question: the answer first, then the ground it stands on
        near = _near(plan, topic)
        out.append(said(me, case[0]) if near else f"你提的是「{quoted(topic)}」。我的回答是：" + said(me, case[0]))
        out += [_frame(_vary(THEN_LEADS, plan, me), near) + said(me, p) for p in plan.of("case_then")]
        out += _grounds(plan, me, OPENING_GROUND, near)
        if stances:  # only with reasons of his that meet the question (else the plan states no claim)
            out.append(f"这个回答，出自我一向的主张：{bare(stances[0].text)}。")
    else:
        # the bank argues the theme the topic falls under: the lead names it and never claims a fuller answer
        if not plan.theme_terms:  # the topic matched no theme: the speech argues one, and never says it "falls" there
            lead = f"我在{plan.theme_title}上的一贯看法是："
        elif personal_question(topic) or (specific_question(topic) and not plan.case):
            # (r21: 这一问落在「空与有」上 before a debate that never reached 应成 and 自续 read as a false claim)
            lead = f"说到{plan.theme_title}，我的看法是："
        else:
            lead = f"你提的是「{quoted(topic)}」。这一问落在「{plan.theme_title}」上，我在这上面的看法是："
        out.append(lead + bare(stances[0].text) + "。")
    reasons = plan.of("reason")
    if len(reasons) > 1:
        out.append(f"理由有{NUMBERS[len(reasons) - 1]}。")
        out += [f"其{NUMBERS[i]}，{said(me, r)}" for i, r in enumerate(reasons)]
    elif reasons:
        out.append(f"理由是：{said(me, reasons[0])}")
    out += _support(plan, me, "此外，")
    for c in plan.of("contrast"):
        # the other side has not spoken yet: the seed's ammo (至少引用 1 条) is the speaker's own argument against a
        # view, in his own words and with no frame.  r28's readers, both, asked for every 若说X，我先说一层看法 /
        # 我要先把话说在前面 to go: an opening that rebuts a label nobody has put reads as a compiler's
        # cross-reference (r24 had already ruled out forecasting him: 我料 / 大概 / 多半).  Said from where it
        # presses, without the sentences that grant what nobody has said yet (三种止观…只是入路不同，这一句我认。但…:
        # with no frame, 这一句 would point at a sentence never spoken)
        out.append(said(me, c.model_copy(update={"text": ahead_of_answer(c.text)})))
    text = "".join(out)
    if cjk_len(text) < MIN_CHARS + 5 and plan.of("contrast"):
        # the plan measured the objections whole: a speech the cut grants would take under the seed's floor says
        # them whole (a length check a class sees fail is worse than one grant too many)
        cut = len(plan.of("contrast"))
        text = "".join(out[:-cut] + [said(me, c) for c in plan.of("contrast")])
    return text


# A 综合 on a case closes on where the two answers put their weight (each wording holds 各有看重：, the plan
# audit's phrase for a case_difference point), chosen by the topic so that a class reading
# several debates does not meet the same sentence in each.
CASE_CLOSE = (
    "所以就这件事，{opp}和我各有看重：我看重的是{mine}，他看重的是{theirs}。",
    "说到底，这件事上{opp}和我各有看重：我看重的是{mine}；他看重的是{theirs}。",
)  # the other's gist never right after his name: 阿底峡看重的是先安顿俗缘再问遮难 read as a narrated question


def on_case(c: PlanPoint) -> bool:
    """An objection at the other side's answer to the case (its id names the case)."""
    return "/case:" in c.ref


def _pick(topic: str, n: int) -> int:
    """A stable choice among ``n`` wordings for a topic (the same topic always reads the same)."""
    return sum(ord(ch) for ch in topic) % n


def _point(c: PlanPoint, opp: Master, what: str) -> str:
    """The opponent's point an objection takes up: one he has put in this debate is his (X主张的…这一条);
    any other is named as what he teaches (X所传的…一说), never as something he said here, and never a
    school named across the centuries (an earlier master cannot speak of a later one's school)."""
    return f"{opp.short_name}主张的{what}这一条" if c.heard else f"{opp.short_name}所传的{what}一说"


def _named(c: PlanPoint) -> str:
    """The opponent's point an objection is aimed at, for its frame; "" when the objection's own text
    already opens with it (the frame would say it twice)."""
    what = bare(c.target_text)
    return "" if not what or bare(c.text).startswith(what) or what in bare(c.text)[: len(what) + 6] else what


# The leads of his advice and of his further grounds on a case, each in a few wordings chosen by the question,
# the speaker and the round (r16's readers found 落到这件事上 / 就这件事，我还有一层要说 / 再说一层 in every
# speech, whoever spoke, and read them as template scaffolding)
THEN_LEADS = ("落到这件事上，", "具体到你这件事，", "放到眼前这件事上，")
OPENING_GROUND = ("就这件事，我还想说：", "这件事还有一层要说：", "这里还要补一层：")
LATER_GROUND = ("就这件事，我还有一层要说：", "这件事上，我还要再说一层：", "再往深处说一层：")
HELD_LEADS = ("对{}，我仍有一层不能放下的看法：", "对{}，我还有一处放不下：", "对{}，我仍有一层保留：")
# (no 一句话: r28's readers found 末了，给遇到这类事的人一句话： before two paragraphs)
TO_READER = ("最后留给你的话是：", "末了，我想对你说：", "落到你身上，我最后想说：")
NEAR_TO_READER = (
    "最后留给问这类事的人的话是：",
    "末了，我想对遇到这类事的人说：",
    "落到问这类事的人身上，我最后想说：",
)
NEXT_GROUND = ("再说一层：", "另有一层：", "还可以再看一层：")


def _held_at_turn(lead: str, text: str) -> str:
    """An objection after its lead (对X，我仍有一层保留：). When its text first grants a part and then turns on
    it, the reservation is said at the turn: 说X，这话很暖；只是我仍有一层保留：… (r20: 「我仍有一层保留：说…，这话
    有耐心。只是…」 announced a reservation and went on to praise, in ten of twelve 综合)."""
    m = GRANT_THEN_TURN.match(text)
    if not m or not lead.endswith("："):
        return lead + text
    head, sep, core = lead.rpartition("，")
    core = core.rstrip("：")
    turn = "但" if m["turn"] in ("但是", "但") else m["turn"]
    granted = m["granted"][:-1] + "；"
    return f"{head}{sep}{granted}{turn}{core}：{m['rest']}"


def _near(plan: SpeechPlan, topic: str) -> bool:
    """The bank's case is a near question, not the asker's own (the debate's top says so too)."""
    return bool(plan.case_question) and cjk_only(plan.case_question) != cjk_only(topic)


def _vary(options: tuple[str, ...], plan: SpeechPlan, me: Master) -> str:
    """One of ``options``, stable for a question, a speaker and a round."""
    return options[_pick(plan.case_question + me.slug + plan.role, len(options))]


def _frame(text: str, near: bool) -> str:
    """A frame about the asker's matter, on a near case said of the near question instead (r18: 具体到你这件事 /
    最后就你提的这件事作个收束 before advice written for another asker read as untrue), and of the kind of matter
    the answers were written for (r25: 所以就这一问，…各有看重 read as untrue, the debate having answered a nearby
    question)."""
    if not near:
        return text
    for mine, near_one in (("你提的这件事", "这一问"), ("具体到你这件事", "具体到这类情形"), ("眼前这件事", "这类事")):
        text = text.replace(mine, near_one)
    return text.replace("这件事", "这类事")


def _grounds(plan: SpeechPlan, me: Master, leads: tuple[str, ...], near: bool = False) -> list[str]:
    """His further grounds on the question itself (``case_more``), the first after one of ``leads``."""
    first, then = _frame(_vary(leads, plan, me), near), _vary(NEXT_GROUND, plan, me)
    return [(first if i == 0 else then) + said(me, p) for i, p in enumerate(plan.of("case_more"))]


def _support(plan: SpeechPlan, me: Master, lead: str) -> list[str]:
    """The speaker's own reasons a plan added to reach the length floor, the first after ``lead``."""
    return [(lead if i == 0 else "再者，") + said(me, p) for i, p in enumerate(plan.of("support"))]


TAKEN = {"accept": "接受", "partly": "部分接受", "hold": "没有接受"}


def _later_rebuttal(plan: SpeechPlan, me: Master, opp: Master, topic: str) -> str:
    """A 反驳 after the other's 回应 (R4 of a long debate on a case): how he took the speaker's objections,
    then a further objection at his answer to the question, or a plain word that there is none."""
    taken = plan.of("outcome")
    # his 回应 restated first, in its summary's own words (部分接受资亡须动机清净)
    out = [
        f"{opp.short_name}上一轮" + "；".join(f"{TAKEN[p.target_text]}我提的{bare(p.text)}" for p in taken) + "。"
        if taken
        else ""
    ]
    for t in taken:
        if t.target_text == "accept":
            out.append(f"{bare(t.text)}这一条，{opp.short_name}已经接受，我不再多说。")
            continue
        moves = [p for p in plan.of("answer", "no_answer") if p.target == t.ref]
        reply = next((p for p in plan.of("restate") if p.target == t.ref), None)
        if reply is None or not moves:
            continue
        # (one objection: he is not named with it again; several: each by its gist)
        head = f"他对{bare(t.text)}的回答是" if len(taken) > 1 else "他的回答是"
        if moves[0].kind == "answer":
            out.append(f"{head}{bare(reply.target_text)}。" + said(me, moves[0]))
        else:
            out.append(f"{head}{bare(reply.target_text)}；{bare(t.text)}这一条，我暂不辩驳。")
    for c in plan.of("contrast"):
        what = _named(c)
        lead = (
            f"对{opp.short_name}就这一问的回答，我还有一层要驳："
            if on_case(c)
            else f"对{_point(c, opp, what)}，我还有一层要驳："
            if what
            else f"对{opp.short_name}的主张，我还有一层要驳："
        )
        out.append(_held_at_turn(lead, said(me, c)))
    if not plan.of("contrast"):
        out.append("这一轮我没有新的驳论。")
    near = _near(plan, topic)
    out += _case(plan, me, "回到你提的这件事，我的回答是：", near)
    out += _grounds(plan, me, LATER_GROUND, near)
    out += _support(plan, me, "我这一边的根据是：")
    return "".join(out)


def _rebuttal(plan: SpeechPlan, me: Master, opp: Master, topic: str = "") -> str:
    if plan.of("outcome") or not plan.of("restate", "restate_summary", "answer", "no_answer"):
        return _later_rebuttal(plan, me, opp, topic)
    restated = plan.of("restate")
    gists = [bare(p.target_text) for p in restated if p.target_text]
    claim_only = len(restated) == 1 and restated[0].target.endswith("#0")
    first = plan.of("restate_summary")
    out = [f"{opp.short_name}上一轮说：{_unsigned(first[0].text, opp)}。"] if first else []
    if claim_only:
        out += (
            [] if first else [f"{opp.short_name}上一轮的主张是：{bare(restated[0].target_text or restated[0].text)}。"]
        )
    elif len(gists) == 1:  # one point: no list and no ordinal (read on the r12 topics: 一是… with nothing after it)
        out.append(f"我就其中一点作答：{gists[0]}。" if first else f"{opp.short_name}上一轮讲的是{gists[0]}这一层。")
    else:
        listed = "，".join(f"{'一二三四'[i]}是{g}" for i, g in enumerate(gists))
        out.append(
            f"我就其中{NUMBERS[len(gists) - 1]}点作答，{listed}。"
            if first
            else f"{opp.short_name}上一轮所说，{listed}。"
        )
    whole = [p for p in plan.of("answer") if p.target.endswith("#0") and not claim_only]
    moves = [p for p in plan.of("answer", "no_answer") if p not in whole]
    own = plan.of("reason")
    for i, p in enumerate(moves):
        said_again = p.kind == "answer" and not _named(p)  # the answer opens with the point's own words
        head = (
            "就这一主张说，"
            if claim_only
            else ""
            if len(gists) == 1
            else f"{ORDINALS[i]}，"
            if said_again
            else f"{ORDINALS[i]}，{bare(p.target_text)}。"
        )
        if p.kind == "answer":
            out.append(head + said(me, p))
        elif not own:
            out.append(head + "这一点我暂不辩驳。" if not claim_only else "对这一主张，我暂不辩驳。")
    unanswered = [p for p in moves if p.kind == "no_answer"]
    which = "这几点" if len(unanswered) > 1 else "这一点"
    if whole and own:
        out.append(f"{which}我没有逐条的驳论，暂不辩驳。")
    for p in whole:
        out.append(f"但就{opp.short_name}的主张整体说，我的看法不同：{said(me, p)}")
    if own:
        if not whole:
            out.append(f"{which}我没有逐条的驳论，暂不辩驳；")
        out.append(
            f"{'我' if whole else '只'}把我在{plan.theme_title}上的看法摆出来，请读者对照："
            f"{bare(plan.of('stance')[0].text)}。"
        )
        out += [f"其{NUMBERS[i]}，{said(me, r)}" for i, r in enumerate(own)]
    out += _case(plan, me, "回到你提的这件事，我的回答是：", _near(plan, topic))
    out += _grounds(plan, me, LATER_GROUND, _near(plan, topic))
    # his own support, led by the claim it supports when the speech has not stated it (the summary says 另立…)
    stance = bare(plan.stance)
    out += _support(plan, me, f"我自己的主张是：{stance}。我的根据是：" if stance and not own else "我这一边的根据是：")
    return "".join(out)


def _case(plan: SpeechPlan, me: Master, lead: str, near: bool = False) -> list[str]:
    """The speaker's own answer to the question the topic asks (``case``), or what he would have the
    asker do about it (``case_then``)."""
    lead = lead.replace("回到你提的这件事", "回到这一类事") if near else lead
    out = [lead + said(me, p) for p in plan.of("case")]
    out += [_frame(_vary(THEN_LEADS, plan, me), near) + said(me, p) for p in plan.of("case_then")]
    return out


def _response(plan: SpeechPlan, me: Master, opp: Master, topic: str = "") -> str:
    raised = [p for p in plan.of("restate") if p.target_text]
    first = plan.of("restate_summary")
    listed = (
        f"，是{bare(raised[0].target_text)}"
        if len(raised) == 1
        else "，" + "，".join(f"{'一二三四'[i]}是{bare(p.target_text)}" for i, p in enumerate(raised))
    )
    if raised and first:
        out = [f"{opp.short_name}上一轮说：{_unsigned(first[0].text, opp)}。其中对我的质疑{listed}。"]
    elif raised:
        out = [f"{opp.short_name}上一轮对我的质疑{listed}。"]
    else:
        r = plan.of("restate")
        out = [f"{opp.short_name}上一轮的意思是：{_unsigned(r[0].text, opp)}。" if r and r[0].text else ""]
        out.append("其中没有专门针对我所立之说的质疑，我仍持原来的主张。")
    for p in plan.of("accept", "partly", "hold"):
        head = f"关于{bare(p.target_text)}，"
        if (
            p.kind == "hold"
            and (p.ref.startswith(me.slug + ":") or p.ref.startswith("case:"))
            and ":more#" not in p.ref
        ):
            # no reply in the bank: he keeps his point and names it (its gist), without saying it again
            out.append(head + f"我仍持原说，所据的就是前面讲过的{bare(p.text)}这一层，不再重复。")
        else:
            text = said(me, p)
            # a reply that says in its own words how far it grants (这一分别我全然接受 / 这我接受) is not led by
            # a label as well (r20: 「我部分接受：……这一分别我全然接受」, 「我仍坚持：……这我接受」)
            out.append(head + ("" if says_own_stance(text) else STANCE_WORDS[p.kind] + "：") + text)
    for p in plan.of("press"):  # his further word on the objection he raised in advance, after the other's reply
        out.append(f"对我立论时提的那一层，{opp.short_name}上一轮的回答是{bare(p.target_text)}。" + said(me, p))
    for c in plan.of("contrast"):
        what = _named(c)
        lead = f"至于{_point(c, opp, what)}，" if what else f"对{opp.short_name}的主张，我还有一层看法："
        out.append(_held_at_turn(lead, said(me, c)))
    out += _case(plan, me, "回到你提的这件事，我的回答是：", _near(plan, topic))
    out += _grounds(plan, me, LATER_GROUND, _near(plan, topic))
    out += _support(plan, me, "我这一边还有一层根据：")
    return "".join(out)


def _synthesis(plan: SpeechPlan, topic: str, me: Master, opp: Master) -> str:
    # the seed's 综合: 双方共许 / 仍异 / 给读者的话, after how the other side took this speaker's objections
    near = _near(plan, topic)
    out = [
        _frame("最后就你提的这件事作个收束。", near)
        if plan.case
        else f"最后就本场所谈的「{plan.theme_title}」作个收束。"
    ]
    taken = plan.of("outcome")
    if taken:
        said_of = {"accept": "他接受了", "partly": "他部分接受", "hold": "他仍坚持他的看法"}
        out.append(
            f"我上一轮提的{'一两三四五六'[len(taken) - 1]}点，"
            + "；".join(f"{bare(p.text)}，{said_of[p.target_text]}" for p in taken)
            + "。"
        )
    common = plan.of("common")
    if common:  # the bank's common ground is of their teachings, never an agreement claimed for this debate
        out.append(taught_common([c.text for c in common]))
    for c in plan.of("concede"):
        out.append(bare(c.text) + "。")
    for i, c in enumerate(plan.of("contrast")):  # the first in full; the others not in the same words (read on the
        what = _named(c)  # r12 topics: three 我仍有一层不能放下的看法 in a row)
        first = _vary(HELD_LEADS, plan, me)  # (r19: 我仍有一层不能放下的看法 closed all twelve debates of a set)
        lead = (first, "至于{}，我也还有一层看法：", "还有{}，")[min(i, 2)]
        # an objection at his answer to the case is at the answer as a whole, and its text opens on the part
        # it takes up (说…，这话体贴。只是…): it is said without a name before it. Named by the answer's gist it
        # read as a quarrel over a view both hold (r19: 对阿姜查主张的一滴也不喝这一条 from a speaker who had
        # said 喝一口也是犯); named as 对蕅益的看法，…：请他… the scene rule read the master as the one doing it
        named = "" if on_case(c) else (_point(c, opp, what) if what else "")
        out.append(_held_at_turn(lead.format(named) if named else first.replace("对{}，", ""), said(me, c)))
    for r in plan.of("reason"):
        out.append(said(me, r))
    # (r11, r12: 我所以仍持此说，还因为： followed by a sitting instruction promised a reason it did not give)
    out += _support(plan, me, "我这一边还有一层要说：")
    # it closes on what stays different, said of both sides, and on a case on the word to the asker
    mine, theirs = plan.of("stance"), plan.of("opponent_stance")
    if mine and theirs:
        out.append(f"所以仍异的是：{opp.short_name}主张{bare(theirs[0].text)}；我主张{bare(mine[0].text)}。")
    for d in plan.of("difference"):  # the bank's wording names both sides: the observation speaks it
        if d.target_text:
            out.append(f"依我看，这分歧是在{d.target_text}上。")
    for d in plan.of("case_difference"):  # both answers were given in the first speeches
        # where each answer puts its weight, in plain words (r16: 「label」 read as editorial tags, and the
        # 我所本的… creed that followed was often off the question; r15: 各有所重 set two answers that say the
        # same thing against each other)
        close = _frame(CASE_CLOSE[_pick(topic, len(CASE_CLOSE))], near)
        out.append(close.format(opp=opp.short_name, theirs=bare(d.target_text), mine=bare(d.text)))
    # his further grounds on the question come last, as the seed's word to the reader, after what stays
    # different (r20: 再往深处说一层 / 还可以再看一层 before the close read as new monologue, not as a 综合)
    out += _grounds(plan, me, NEAR_TO_READER if near else TO_READER)
    out += _case(plan, me, "回到你提的这件事，我的回答是：", near)
    return "".join(out)
