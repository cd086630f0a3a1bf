"""Does a master debate say only what its plans hold?  An audit of the stored text against the plans.

Each function returns the faults it finds as one-line strings; ``all_faults`` runs them all over a
debate.  What they read (docs/arguments.md):

- self-descriptions: a sentence about the speech itself (理由有三, 讲了三点, 提出两点质疑, 我接受,
  我部分接受, 我仍坚持 / 我仍持原说, 暂不辩驳, 两家都承认, 所见不同) needs its plan entries; the
  old engine's fixed frames that claimed engagement (换一个角度, 只针对对方 …) are faults anywhere;
- citations: each 【《title》，id】 follows the text (or the quote) of a plan point cited to that id,
  and the id is one of the speaker's own sources;
- absent masters: no 12-character run of a critique aimed at a master who is not in the debate;
- rebuttals: every restated point is answered or owned up to as unanswered (暂不辩驳);
- theme: every plan is on the debate's theme, and a topic that matched no theme, or a master
  with no position on it, is declared in the debate's warnings; where R1 quotes the topic, it quotes it whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

from debate_core.content.arguments import bank_of
from debate_core.content.packs import get_pack
from debate_core.content.pairing import row_theme
from debate_core.content.plan import debate_theme
from debate_core.content.text import after_turn, ahead_of_answer, asked_elsewhere, says_own_stance, without_hedges
from debate_core.models import Debate, Pack, Speech
from debate_core.plans import SpeechPlan

__all__ = [
    "NEVER",
    "absent_critique_faults",
    "all_faults",
    "citation_faults",
    "rebuttal_faults",
    "self_description_faults",
    "theme_faults",
]


def bare(text: str) -> str:
    return re.sub(r"[。！？；，、\s]+$", "", (text or "").strip())


NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6}
# The old engine's fixed frames, which claimed what it had not done: never again.
NEVER = (
    "换一个角度",
    "另一头说起",
    "不从同一处入手",
    "只针对对方",
    "借题发挥",
    "各有所本",
    "都标了出处",
    "我的材料",
    "材料不多",
    "本来就少",
    "就对方所说作答",
)
CITE = re.compile(r"【(?:《[^》]*》，)?([^】，]+)】")


def _count(pattern: str, text: str) -> list[int]:
    return [NUM[m] for m in re.findall(pattern, text)]


def _plan(speech: Speech) -> SpeechPlan:
    """The speech's plan: these checks read speeches of the offline engine, which always carry one."""
    if speech.plan is None:
        raise ValueError(f"R{speech.round} {speech.speaker}: a speech without a plan has nothing to audit")
    return speech.plan


def self_description_faults(speech: Speech) -> list[str]:
    """Each sentence about the speech itself that its plan does not hold."""
    p, text, out = _plan(speech), speech.text, []
    for bad in NEVER:
        if bad in text:
            out.append(f"fixed frame {bad!r}")
    kinds = [x.kind for x in p.points]
    for n in _count(r"理由有([一二三四五六])", text):
        if kinds.count("reason") != n:
            out.append(f"says {n} reasons, plan has {kinds.count('reason')}")
    restated = [x for x in p.of("restate") if x.target_text]
    for n in (
        _count(r"讲了([一二三四五六])点", text)
        + _count(r"提出([一二三四五六])点质疑", text)
        + [
            len(
                re.findall(
                    r"[一二三四]是",
                    next((x for x in text.split("。") if re.search(r"上一轮所说，|对我的质疑，|点作答，", x)), ""),
                )
            )
            # one point is said without a list: 对我的质疑，是…, 上一轮讲的是…这一层, 就其中一点作答：…
            or len(re.findall(r"对我的质疑，是|上一轮讲的是|就其中一点作答：", text))
        ]
        * bool(re.search(r"上一轮所说|上一轮讲的是|对我的质疑，|其中[一二三四]点作答", text))
    ):
        if len(restated) != n:
            out.append(f"says {n} points restated, plan has {len(restated)}")
    # 部分接受 once per partly point; 暂不辩驳 at least once (one sentence may own up to several
    # unanswered points) and never without one; 两家都承认 / 共许的是 only with common ground in the plan,
    # 各有看重 once for the 综合's two answers to the case
    # a reply that says its own stance in its words carries no label (content.text.says_own_stance)
    # (a hold with no reply in the bank is said as 仍持原说 whatever its text)
    kept = (speech.speaker + ":", "case:")
    labelled = [
        x.kind
        for x in p.points
        if not (
            x.kind in ("accept", "partly", "hold")
            and not (x.kind == "hold" and x.ref.startswith(kept))
            and says_own_stance(bare(x.text))
        )
    ]
    for phrase, kind, exact in (
        ("我部分接受：", "partly", True),
        ("暂不辩驳", "no_answer", False),
        ("两家都承认的是", "common", False),
        ("共许的是", "common", False),
        ("各有看重：", "case_difference", True),
    ):
        n, k = text.count(phrase), (labelled if kind == "partly" else kinds).count(kind)
        if n > k or (exact and n < k) or (kind == "no_answer" and k and not n):
            out.append(f"{phrase!r} x{n} for {k} {kind} points")
    accepts = len(re.findall(r"(?<!部分)我接受：", text))
    if accepts != labelled.count("accept"):
        out.append(f"'我接受' x{accepts} for {labelled.count('accept')} accept points")
    holds = text.count("我仍坚持：") + text.count("仍持原说")
    if holds != labelled.count("hold"):
        out.append(f"holds x{holds} for {labelled.count('hold')} hold points")
    claim_answer = any(x.target.endswith("#0") for x in p.of("answer"))
    if ("所见不同" in text or "看法不同" in text) and not p.of("contrast") and not claim_answer:
        out.append("a contrast with no objection in the plan")
    return out


def _norm(text: str) -> str:
    return asked_elsewhere(without_hedges(text))


def citation_faults(speech: Speech, pack: Pack) -> list[str]:
    me = pack.masters[speech.speaker]
    out = []
    for m in CITE.finditer(speech.text):
        sid = m.group(1)
        # compared without the hedges the engine says once, and with 你问… as a near case says it (both sides)
        before = _norm(speech.text[: m.start()])
        if sid not in me.source_ids:
            out.append(f"{sid} is not {me.slug}'s source")
            continue
        ok = any(
            x.source == sid
            and (
                before.endswith(_norm(bare(x.text)))
                or (x.quote and before.endswith(f"「{bare(x.quote)}」"))
                # a 综合's objection says its reservation where it turns on what it granted (compose._held_at_turn)
                or (x.kind == "contrast" and before.endswith(_norm(bare(after_turn(x.text)))))
                # an opening's objection is said from where it presses (content.text.ahead_of_answer)
                or (x.kind == "contrast" and before.endswith(_norm(bare(ahead_of_answer(x.text)))))
            )
            for x in _plan(speech).points
        )
        if not ok:
            out.append(f"{sid} follows no text of a plan point cited to it: …{before[-20:]}")
    return out


@lru_cache(maxsize=4)
def _absent_windows(pack_path: str, pair: tuple[str, str]) -> frozenset[str]:
    pack = get_pack(pack_path)
    bank = bank_of(pack)
    texts = [c.position for m in pack.masters.values() for c in m.cross_critique if c.target_master not in pair]
    texts += [o.text for pb in bank.pairs.values() for o in pb.objections if o.target_master not in pair]
    return frozenset(t[i : i + 12] for t in texts for i in range(max(0, len(t) - 11)))


def absent_critique_faults(debate: Debate, pack: Pack) -> list[str]:
    pair = tuple(p.label for p in debate.participants)
    windows = _absent_windows(pack.path, pair) | _absent_windows(pack.path, pair[::-1])
    out = []
    for s in debate.rounds:
        # the plan's own bank texts (and its claim, which a 反驳's support is led by)
        own = "|".join([x.text for x in (s.plan.points if s.plan else [])] + [s.plan.stance if s.plan else ""])
        for i in range(max(0, len(s.text) - 11)):
            # a run that only crosses from a frame's punctuation into the plan's own text is the plan's
            if s.text[i : i + 12] in windows and s.text[i : i + 12].strip("，。；：、！？") not in own:
                out.append(f"R{s.round} holds words of a critique aimed at an absent master: {s.text[i : i + 12]}")
                break
    return out


def rebuttal_faults(speech: Speech) -> list[str]:
    if speech.role != "反驳":
        return []
    p, out = _plan(speech), []
    for r in p.of("restate"):
        moves = [x for x in p.of("answer", "no_answer") if x.target == r.target]
        if not moves:
            out.append(f"restated {r.target} but neither answers it nor says it does not")
        for x in moves:
            if x.kind == "answer" and bare(x.text) not in speech.text:
                out.append(f"the answer to {r.target} is not in the speech")
    if p.of("no_answer") and "暂不辩驳" not in speech.text:
        out.append("an unanswered point the speech does not own up to")
    return out


def theme_faults(debate: Debate, pack: Pack) -> list[str]:
    bank = bank_of(pack)
    a, b = (p.label for p in debate.participants)
    choice = debate_theme(bank, debate.topic, a, b, row_theme(a, b))
    out = []
    if choice.how not in ("topic", "case") and not any(
        "没有对上" in w or "改就" in w or "没有直接对上" in w for w in debate.warnings
    ):
        out.append("the topic matched no theme and the debate does not say so")
    for slug in (a, b):
        if slug not in choice.held_by and not any(
            pack.masters[slug].name in w and "没有" in w for w in debate.warnings
        ):
            out.append(f"{slug} has no position on {choice.theme} and the debate does not say so")
    for s in debate.rounds:
        if s.plan is None or s.plan.theme != choice.theme:
            out.append(f"R{s.round} is planned on another theme")
            continue
        for x in s.plan.points:
            on = x.ref.split("#")[0].endswith(":" + choice.theme) or f"/{choice.theme}/" in x.ref or not x.ref
            # a derived layer's objections are a pack's cross_critique, aimed at the opponent as a whole
            # (the seed's ammo); the debate says at its top that the layer is derived
            on = on or (bank.derived and x.kind in ("contrast", "answer") and ">" in x.ref)
            case = bank.case(s.plan.case) if s.plan.case else None  # the case the topic is, under the theme
            on = on or (
                x.kind in ("case", "case_then", "case_more", "case_difference", "hold")
                and case is not None
                and case.theme == choice.theme
                and x.ref.startswith(f"case:{case.id}:")
            )
            if not on:
                out.append(f"R{s.round} {x.kind} {x.ref} is off the theme {choice.theme}")
    # the whole topic, up to its closing punctuation (a statement's 。 is dropped inside 「」), wherever R1 quotes it
    # (你提的是「…」: only where his answer was written for it; on a near case or a theme the debate's top says
    # what the answers are for, and r28's readers read the quoted topic before another question's answer as
    # machinery).  Issue 22 found it cut at its first comma, its question part lost
    first = debate.rounds[0].text
    if "你提的是「" in first and bare(debate.topic) not in first and _plan(debate.rounds[0]).material != "none":
        out.append("R1 quotes the topic cut short")
    return out


def all_faults(debate: Debate, pack: Pack) -> list[str]:
    out = absent_critique_faults(debate, pack) + theme_faults(debate, pack)
    for s in debate.rounds:
        out += [f"R{s.round}: {f}" for f in self_description_faults(s) + citation_faults(s, pack) + rebuttal_faults(s)]
    return out
