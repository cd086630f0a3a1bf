"""The structural reading of ``no_verdict``: appraisals of positions, and frames that rank one position against
another.

Positions are read by checks/positions.py (禅门, 念佛, 本宗, 慧能大师 …).  An *appraisal* says that a position is better
or worse (``lexicons/evaluation.yaml``): a word (直截 / 迂回, 全体 / 一隅, 精审 / 粗疏), one character of a pair of
opposites in a predicate slot (禅为本而净为末; 念佛是大路，参禅是小径), a comparative with a quality (更能, 更稳), a
belittling (不过是, 流于), how many of a side's people succeed (千中难有一二 / 万修万人去).  It counts for nothing
under a condition or a warning (若…, 也会…), of a manner of practising (只知…而不…), denied, or said of every
side alike.

A sentence (in the speaker's own words: verdict.py blanks quotes and leaves out what is reported, denied or asked)
rules on the debate when (one function each below)

* ``_two_sided``: two different positions are appraised opposite ways (禅门直截，净土迂回), here or against the
  sentence before (…。相比之下，净土绕了远路), or each likened to an image (空宗之见，如日丽天；有宗之说，犹灯照室) —
  unless a side is appraised both ways or the sentence weighs both alike (各有用处);
* ``_two_place``: a frame sets one position against another (难与 Y 并驾齐驱, 让 Y 三分, X 之于 Y 犹如…, 被 Y 取代,
  抵不上 / 输给 Y, 与 Y 相比…显得局促, 也不过到 Y 的门口, 走到了 Y 望不见的地方, 跳不出 Y 的手心), or one is behind
  and the other ahead or complete in a later clause (``_behind_ahead``: 还在山脚… / 早已过了半山; 尚是方便之说 /
  方是究竟之说; 只画了骨架 / 补上血肉…才算完整);
* ``_one_position``: one position is made the best, ranked, preferred, the true or only one, or condemned (还是持名最稳,
  天台当属第一流, 还是森林里的办法更接地气, 才是真正的功课, 舍念佛而求他途者未见其可, 多半是装模作样) — not inside one
  position (三士道之中，上士道最为广大) nor a school's own order (以圆教为最高);
* ``_outcomes``: the debate is won or lost (节节败退, 这一场，本宗稳稳拿下, 不得不服, 赢下来了), settled
  (胜负已经不言而喻), a road all should end on (诸宗之所归趣), marks (中观可得九分);
* ``_reader``: the reader is sent down one road (若要在空有之间选一条路，最好从唯识入手; …而不是随缘觉知;
  奉劝一切参禅的人，及早回头…归到一句佛号上来; 跟着六祖走就对了; 放下经本，拿起话头吧).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from debate_core.checks import lexicons as _lx
from debate_core.checks.positions import Mention, Parties, differ

Span = tuple[int, int]

# the sign of every appraising word (+1 better, -1 worse), and one prefix-tree pattern for all of them
_WORD_SIGN = {w: -1 for w in _lx.words("evaluation.worse")} | {w: 1 for w in _lx.words("evaluation.better")}
_WORDS = re.compile(_lx.trie(_WORD_SIGN))
# one-character poles (大 / 小, 本 / 末 …): the sign of each character, and the words holding one that appraise nothing
_SIGN1 = {pair[0]: 1 for pair in _lx.words("evaluation.poles")} | {
    c: -1 for pair in _lx.words("evaluation.poles") for c in pair[1:]
}
_POLE_CHARS = re.compile("[" + "".join(_SIGN1) + "]")
_POLE_COMPOUNDS = re.compile(_lx.pattern("evaluation.pole_compounds"))
# a predicate slot: after a copula, a degree word or a marker of manner (念佛是大路, 中观重, 显得局促)
_SLOT_CHARS = frozenset("是为则较更最太极甚颇得很而已都也免于显")
_SLOT_WORDS = ("显得", "只是", "不过", "流于", "未免", "难免", "过于", "失之", "失于")
_DEGREE_MORE = _lx.regex("evaluation.degree_more")
_BELITTLE = _lx.regex("evaluation.belittle")
_NEUTRAL = _lx.regex("evaluation.neutral")
_COMPARE_FRAME = _lx.regex("evaluation.compare_frame")
_SHOWN = _lx.regex("evaluation.shown")
_SUPERLATIVE = _lx.regex("evaluation.superlative")
_PASSIVE_DEFEAT = _lx.regex("evaluation.passive_defeat")
_DEFEAT = _lx.regex("evaluation.defeat")
_CONTEST = _lx.regex("evaluation.contest")
_CONTEST_RESULT = _lx.regex("evaluation.contest_result")
_ORDINAL = _lx.regex("evaluation.ordinal")
_RATIO_WORSE = _lx.regex("evaluation.ratio_worse")
_RATIO_BETTER = _lx.regex("evaluation.ratio_better")
_YIELD_TO = _lx.regex("evaluation.yield_to")
_THRESHOLD = _lx.regex("evaluation.threshold")
_FOLLOW = _lx.regex("evaluation.follow")
_TAKE_UP = _lx.regex("evaluation.take_up")
_LET_GO = re.compile(r"放下|丢下|丢开|收起|搁下|扔掉|扔下|撇下|抛下|合上|放一边|放一放|搁一搁|停一停")
_ONLY = re.compile(r"不过|只|仅|才|充其量|顶多|也就")
_SIMILE = _lx.regex("evaluation.simile")
_BALANCE = _lx.regex("evaluation.balance")
_LINK = _lx.regex("evaluation.link")
_TRUE_ONE = _lx.regex("evaluation.true_one")
_ONLY_WAY = _lx.regex("evaluation.only_way")
_CONDEMN = _lx.regex("evaluation.condemn")
_PREFER = _lx.regex("evaluation.prefer")
_MANNER_CASE = _lx.regex("evaluation.manner_case")
_WITHIN = re.compile(r"(?:之中|当中|之内|中|里)[，,]?$")  # 三士道之中，上士道最为广大: a ranking inside one position
_ALIKE = _lx.regex("evaluation.alike")
_CONDITIONAL = _lx.regex("evaluation.conditional")
_WARNING = _lx.regex("evaluation.warning")
_SETTLED = _lx.regex("evaluation.settled")
_BOTH_SIDES = _lx.regex("evaluation.both_sides")
_REACHED = _lx.regex("evaluation.reached")
# a state of mind, a habit or an affliction (昏沉, 妄念, 旧习: scene.yaml): what an appraisal after it is said of
_STATE = _lx.regex("scene.agent")
_CUT = re.compile(r"[，,；;：:]")
_ON_PAR = _lx.regex("evaluation.on_par")
_CONCEDE = _lx.regex("evaluation.concede")
_OUTWEIGH = _lx.regex("evaluation.outweigh")
_ANALOGY = _lx.regex("evaluation.analogy")
_WON = _lx.regex("evaluation.won")
_CHOICE_FRAME = _lx.regex("evaluation.choice_frame")
_TAKE_ROAD = _lx.regex("evaluation.take_road")
_EXHORT = _lx.regex("evaluation.exhort")
_TURN_TO = _lx.regex("evaluation.turn_to")
_INSTEAD = _lx.regex("evaluation.instead")
_FINAL_ROAD = _lx.regex("evaluation.final_road")
_SCORE = _lx.regex("evaluation.score")
_BEYOND = _lx.regex("evaluation.beyond")
_CONTAINED = _lx.regex("evaluation.contained")
_PLACED = _lx.regex("evaluation.placed")
_SIDE_WITH = _lx.regex("evaluation.side_with")
_BEHIND = _lx.regex("evaluation.behind")
_AHEAD = _lx.regex("evaluation.ahead")
_RATHER = _lx.regex("evaluation.rather")
_OUTGROWN = _lx.regex("evaluation.outgrown")
_IMAGE_OPENS = re.compile(r"(?:譬如|好比|就像|犹如|正如|恰如)[^，。；]{1,8}[，,]")  # an image set up first
_IS = re.compile(r"[^，。；]{0,3}?是")


@dataclass(frozen=True)
class Ranking:
    """A ranking found, shaped like a match (``start()``, ``end()``) for verdict.py."""

    kind: str  # outcome / comparison / rightness / recommendation
    s: int
    e: int

    def start(self) -> int:
        return self.s

    def end(self) -> int:
        return self.e


Said = list[tuple[int, int, int, frozenset[str]]]  # (start, end, sign, position) of each appraisal of a sentence


@dataclass
class _Sentence:
    """One masked sentence, its clauses and the positions named in it."""

    text: str
    cl: list[Span]
    mentions: list[Mention]
    negated: Callable[[str], bool]
    out: list[Ranking] = field(default_factory=list)

    def add(self, kind: str, start: int, end: int) -> None:
        self.out.append(Ranking(kind, start, end))

    def clause(self, pos: int) -> Span:
        for a, b in self.cl:
            if a <= pos < b:
                return a, b
        return pos, pos + 1

    def clause_before(self, a: int) -> int:
        """Where the clause before the one starting at ``a`` starts (``a`` for the first)."""
        return max((c[0] for c in self.cl if c[1] <= a), default=a)

    def before(self, pos: int) -> frozenset[str]:
        """The position said of at ``pos``: the nearest named before it in the sentence."""
        last: frozenset[str] = frozenset()
        for _s, e, keys in self.mentions:
            if e <= pos:
                last = keys
        return last

    def named(self, lo: int, hi: int) -> list[frozenset[str]]:
        """The positions named from ``lo`` to ``hi``."""
        return [keys for s, _e, keys in self.mentions if lo <= s < hi]


def _appraisals(sent: str, mentions: list[Mention]) -> list[tuple[int, int, int]]:
    """(start, end, sign) of every appraisal in a sentence: +1 better, -1 worse."""
    blank = list(sent)
    for s, e, _k in mentions:
        blank[s:e] = "＿" * (e - s)
    for m in _POLE_COMPOUNDS.finditer(sent):
        blank[m.start() : m.end()] = "＿" * (m.end() - m.start())
    text = "".join(blank)
    out = [(m.start(), m.end(), _WORD_SIGN[m.group(0)]) for m in _WORDS.finditer(text)]
    out += [(m.start(), m.end(), 1) for m in _DEGREE_MORE.finditer(text)]
    out += [(m.start(), m.end(), -1) for m in _BELITTLE.finditer(text)]
    # how many of a position's people succeed (千中难有一二得力 / 万修万人去)
    out += [(m.start(), m.end(), -1) for m in _RATIO_WORSE.finditer(text)]
    out += [(m.start(), m.end(), 1) for m in _RATIO_BETTER.finditer(text)]
    ends = {e for _s, e, _k in mentions}
    for p in _POLE_CHARS.finditer(text):
        i, sign = p.start(), _SIGN1[p.group(0)]
        if i in ends or text[i - 1 : i] in _SLOT_CHARS or text[max(0, i - 2) : i] in _SLOT_WORDS:
            if not _NEUTRAL.search(text, max(0, i - 6), i):  # 禅宗的门槛高: no merit said
                out.append((i, i + 1, sign))
    return sorted(out)


def _said(s: _Sentence) -> Said:
    """The appraisals that count: not of every side alike (各有所长), not under a condition or a warning (若…, 也会…),
    not denied, not of a manner of practising (只知…而不…), not of a state of mind named after the position in a later
    clause (提紧话头只是用力念一句话，昏沉很快又回来: 快 is said of 昏沉, not of 话头)."""
    out: Said = []
    for start, end, sign in _appraisals(s.text, s.mentions):
        a, b = s.clause(start)
        head = s.text[a:start]
        if _ALIKE.search(s.text, a, b) or _WARNING.search(head) or s.negated(head) or _MANNER_CASE.search(head):
            continue
        last = max((e for _s, e, _k in s.mentions if e <= start), default=start)
        if _CUT.search(s.text, last, start) and _STATE.search(s.text, last, start):
            continue
        out.append((start, end, sign, s.before(start)))
    return out


def _two_sided(s: _Sentence, said: Said, prev: Said | None, balanced: bool) -> None:
    """Two different positions appraised opposite ways (禅门直截，净土迂回), in this sentence or against the one before
    (…。相比之下，净土绕了远路), or each likened to an image (空宗之见，如日丽天；有宗之说，犹灯照室).  A position
    appraised both ways (禅门的路直却陡) is set neither above nor below."""
    signs: dict[frozenset[str], set[int]] = {}
    for _s, _e, sign, k in said:
        signs.setdefault(k, set()).add(sign)
    pairs = [
        (s1, e2)
        for i, (s1, _e1, g1, k1) in enumerate(said)
        for _s2, e2, g2, k2 in said[i + 1 :]
        if g1 != g2 and differ(k1, k2) and len(signs[k1]) == len(signs[k2]) == 1
    ]
    if pairs and not balanced:
        s.add("comparison", *pairs[0])
    if prev and said and _LINK.search(s.text):
        theirs: dict[frozenset[str], set[int]] = {}
        for _s, _e, sign, k in prev:
            theirs.setdefault(k, set()).add(sign)
        if any(
            len(g1) == 1 and len(g2) == 1 and g1 != g2 and differ(k1, k2)
            for k1, g1 in signs.items()
            for k2, g2 in theirs.items()
        ):
            s.add("comparison", 0, said[0][1])
    likened = []  # (clause start, position) of each position likened to an image in its clause or the next
    opened = _IMAGE_OPENS.match(s.text) is not None  # 譬如过河，参禅是蹚水，念佛是坐船: each X 是 … an image
    for i, (a, b) in enumerate(s.cl):
        named = [(e, k) for st, e, k in s.mentions if a <= st < b]
        if not named or _ALIKE.search(s.text, a, b) or _WARNING.search(s.text, a, b):
            continue
        nxt = s.cl[i + 1] if i + 1 < len(s.cl) and not s.named(*s.cl[i + 1]) else None
        if (
            _SIMILE.search(s.text, named[0][0], b)
            or (nxt and _SIMILE.match(s.text, nxt[0]))
            or (opened and _IS.match(s.text, named[0][0], b))
        ):
            likened.append((a, named[0][1]))
            if _OUTGROWN.search(s.text, b):  # 唯识好比辅助轮，…也就该扔掉了: merely provisional
                s.add("rightness", a, b)
    for i, (a1, k1) in enumerate(likened if not balanced else []):
        if any(differ(k1, k2) for _a2, k2 in likened[i + 1 : i + 3]):
            s.add("comparison", a1, a1 + 1)
            break


def _two_place(s: _Sentence, said: Said, balanced: bool) -> None:
    """One position set against another by a two-place frame: X 难与 Y 并驾齐驱, X 让 Y 三分, X 之于 Y 犹如…,
    X 被 Y 取代, X 抵不上 / 输给 Y, 与 Y 相比，X 显得局促, X 也不过到 Y 的门口."""
    for pat in (_ON_PAR, _CONCEDE, _ANALOGY, _BEYOND, _CONTAINED):
        for m in pat.finditer(s.text) if not (balanced and pat is _ANALOGY) else ():
            g = "y" if m.group("y") is not None else "y2"
            if any(differ(s.before(m.start()), k) for k in s.named(m.start(g), m.end(g))):
                s.add("comparison", m.start(), m.end())
    for m in _PASSIVE_DEFEAT.finditer(s.text):  # 唯识终将被中观取代; 印光大师的主张…已被六祖一句话破尽
        overcome = [k for _s, e, k in s.mentions if e <= m.start()]
        if any(differ(x, k) for x in overcome for k in s.named(m.start("y"), m.end("y"))):
            s.add("outcome", m.start(), m.end())
    for m in _OUTWEIGH.finditer(s.text):  # the side beaten stands in this clause or the one before
        a, b = s.clause(m.start())
        left = s.named(a, m.start()) or s.named(s.clause_before(a), m.start())
        if any(differ(x, k) for x in left for k in s.named(m.end(), b)):
            s.add("comparison", m.start(), m.end())
    for m in _COMPARE_FRAME.finditer(s.text):
        g = next(n for n in ("y", "y2", "y3") if m.group(n) is not None)
        inside = s.named(m.start(g), m.end(g))
        others = [k for st, _e, k in s.mentions if not m.start(g) <= st < m.end() and any(differ(k, x) for x in inside)]
        shown = _SHOWN.search(s.text, m.end()) or _BELITTLE.search(s.text, m.end())
        if others and (shown or any(st > m.end() for st, _e, _g, _k in said)):
            s.add("comparison", m.start(), m.end())
    _behind_ahead(s, balanced)
    for m in _THRESHOLD.finditer(s.text):  # 念佛的功夫做到头，也不过到参禅的门口
        at = [x for x in s.mentions if x[1] <= m.start() and m.start() - x[1] <= 2]
        if at and _ONLY.search(s.text, max(0, at[-1][0] - 8), at[-1][0]):
            if any(differ(k, at[-1][2]) for _s, e, k in s.mentions if e <= at[-1][0]):
                s.add("comparison", at[-1][0], m.end())


def _behind_ahead(s: _Sentence, balanced: bool) -> None:
    """One position still short, partial or provisional, another after it already ahead or complete, in a later
    clause (修禅宗的人还在山脚…，学天台的人早已过了半山; 唯识尚是方便之说；中观方是究竟之说; 唯识只画了骨架；华严
    补上血肉…才算完整): two sides set in an order.  Each marker is said of the nearest position named before it in
    its clause or the one before; a stage of one path reached (直到…才算) and a sentence weighing both alike rank
    nothing."""
    if balanced:
        return
    for m in _BEHIND.finditer(s.text):
        a, b = s.clause(m.start())
        low = s.named(s.clause_before(a), m.start())
        if not low or _WARNING.search(s.text, a, m.start()) or s.negated(s.text[a : m.start()]):
            continue
        for n in _AHEAD.finditer(s.text, b):
            a2, _b2 = s.clause(n.start())
            high = s.named(s.clause_before(a2) if s.clause_before(a2) >= b else a2, n.start())
            if high and differ(low[-1], high[-1]) and not _REACHED.search(s.text, b, n.start()):
                s.add("comparison", m.start(), n.end())
                return


def _within(s: _Sentence, a: int, upto: int) -> bool:
    """A ranking inside one position, or one school's own order (三士道之中，上士道最为广大; 以圆教为最高)."""
    prev = s.text[s.clause_before(a) : a].rstrip("，,")
    here = s.text[a:upto]
    return bool(_WITHIN.search(here.rstrip("，,")) or _WITHIN.search(prev) or re.search(r"以[^，。；]{1,8}为$", here))


def _one_position(s: _Sentence) -> None:
    """One position made the best, the only, the true one, given a rank, preferred, or condemned (还是持名最稳;
    森林里的觉知才是真正的功课; 舍念佛而求他途者，未见其可也; 中观第一; 两家之中，还是森林里的办法更接地气;
    禅门的机锋棒喝，多半是装模作样)."""
    for m in _SUPERLATIVE.finditer(s.text):
        a, _b = s.clause(m.start())
        if s.named(a, m.start()) and not _within(s, a, m.start()) and not s.negated(s.text[a : m.start()]):
            s.add("comparison", m.start(), m.end())
    for m in _ORDINAL.finditer(s.text):  # the position ranked stands right before its rank (天台当属第一流)
        near = [x for x in s.mentions if x[1] <= m.start() and m.start() - x[1] <= 8]
        if not near or _within(s, s.clause(near[-1][0])[0], m.start()):
            continue
        if s.text[near[-1][1] : m.start()] in ("的", "之"):
            continue  # 七清净的第一站: the position's own first stage, an order inside it
        s.add("comparison", m.start(), m.end())
    for m in _TRUE_ONE.finditer(s.text):
        a, _b = s.clause(m.start())
        if _REACHED.search(s.text, s.clause_before(a), m.start()):
            continue  # 直到…不再生起，才算真正生起: when a stage of one path is reached, no side made the true one
        if s.named(a, m.start()) or (not s.text[a : m.start()].strip() and s.before(m.start())):
            s.add("rightness", m.start(), m.end())
    for m in _ONLY_WAY.finditer(s.text):
        if s.named(m.start("x"), m.end("x")):
            s.add("rightness", m.start(), m.end())
    for m in _PLACED.finditer(s.text):  # 禅门…只能排在圆教的门外: put below in an order
        if s.named(0, m.start()):
            s.add("comparison", m.start(), m.end())
    for pat in (_PREFER, _SIDE_WITH):
        for m in pat.finditer(s.text):
            if s.named(m.start("x"), m.end("x")):
                s.add("comparison", m.start(), m.end())
    for m in _CONDEMN.finditer(s.text):
        # said of a position in its clause, or in the nearer of the two before it that names one
        a, _b = s.clause(m.start())
        lo = a
        for c in reversed([c for c in s.cl if c[1] <= a][-2:]):
            if s.named(lo, m.start()):
                break
            lo = c[0]
        head = s.text[lo : m.start()]
        if s.named(lo, m.start()) and not (
            _WARNING.search(head) or _MANNER_CASE.search(head) or s.negated(s.text[a : m.start()])
        ):
            s.add("rightness", m.start(), m.end())


def _outcomes(s: _Sentence) -> None:
    """The debate won or lost (禅门的论点节节败退; 这一场，本宗稳稳拿下; 连禅门的祖师也不得不服; 参话头的一方已经
    稳稳赢下来了), a road all should end on (诸宗之所归趣), marks given (中观可得九分)."""
    for pat, kind in (
        (_DEFEAT, "outcome"),
        (_YIELD_TO, "outcome"),
        (_WON, "outcome"),
        (_FINAL_ROAD, "rightness"),
        (_SCORE, "comparison"),
    ):
        for m in pat.finditer(s.text):
            s.add(kind, m.start(), m.end())
    contest = _CONTEST.search(s.text)
    result = _CONTEST_RESULT.search(s.text, contest.end()) if contest is not None else None
    if result is not None:
        s.add("outcome", result.start(), result.end())


def _reader(s: _Sentence) -> None:
    """The reader sent down one position's road: at a fork (若要在空有之间选一条路，最好从唯识入手), against another
    road (直接从标记法入手，而不是…随缘觉知), turned from one to another (奉劝一切参禅的人，及早回头，…归到一句佛号
    上来), told to follow one (跟着六祖走就对了) or to put one down and take up another (放下经本，拿起话头吧)."""
    fork = _CHOICE_FRAME.search(s.text)
    for m in _TAKE_ROAD.finditer(s.text):
        chosen = s.named(m.end(), m.end() + 8)
        instead = _INSTEAD.search(s.text, m.end()) if chosen else None
        rival = instead is not None and any(differ(chosen[0], k) for k in s.named(instead.end(), instead.end() + 12))
        if chosen and (fork is not None or rival):
            s.add("recommendation", m.start(), m.end())
    for m in _EXHORT.finditer(s.text):  # the people of one position (after the exhortation), turned to another
        people = s.named(m.end(), m.end() + 12)
        turn = _TURN_TO.search(s.text, m.end(), m.end() + 30)
        if not people or turn is None or _CONDITIONAL.search(s.text, m.end(), turn.start()):
            continue
        if any(differ(people[0], k) for k in s.named(turn.start(), turn.end() + 16)):
            s.add("recommendation", m.start(), turn.end())
    for m in _RATHER.finditer(s.text):  # 宁可拿来参话头，也别拿去数念珠: one side over another
        if any(differ(x, y) for x in s.named(m.start("x"), m.end("x")) for y in s.named(m.start("y"), m.end("y"))):
            s.add("recommendation", m.start(), m.end())
    for m in _FOLLOW.finditer(s.text):
        if s.named(m.start(), m.end()):
            s.add("recommendation", m.start(), m.end())
    for m in _TAKE_UP.finditer(s.text):
        dropped = [  # 放下经本 / 把佛号放一放
            k
            for g in _LET_GO.finditer(s.text, 0, m.start())
            for k in s.named(g.end(), g.end() + 6) + s.named(max(0, g.start() - 6), g.start())
        ]
        if any(differ(d, k) for d in dropped for k in s.named(m.end(), m.end() + 6)):
            s.add("recommendation", m.start(), m.end())


def rankings(
    sent: str, cl: list[Span], who: Parties, negated: Callable[[str], bool], prev: Said | None = None
) -> tuple[list[Ranking], Said]:
    """The rankings in one masked sentence (``cl``: its clauses; ``negated``: whether a clause's head denies what
    follows it), and the appraisals said in it.  ``prev``: the appraisals of the sentence before."""
    mentions = who.mentions(sent)
    # a contest declared settled needs no position named (胜负已经不言而喻); a measure or an order (长短, 本末) ranks
    # sides only between two named here (两宗长短至此已一清二楚), not the steps of one path (先…再…，这个本末分明)
    two = _BOTH_SIDES.search(sent) is not None or any(differ(x[2], y[2]) for x in mentions for y in mentions)
    settled = [
        Ranking("outcome", m.start(), m.end()) for m in _SETTLED.finditer(sent) if two or m.group("measure") is None
    ]
    if not mentions:
        return settled, []
    s = _Sentence(sent, cl, mentions, negated, settled)
    balanced = _BALANCE.search(sent) is not None  # 各有用处, 本是一体: both sides weighed alike
    said = _said(s)
    _two_sided(s, said, prev, balanced)
    _two_place(s, said, balanced)
    _one_position(s)
    _outcomes(s)
    _reader(s)
    return s.out, said
