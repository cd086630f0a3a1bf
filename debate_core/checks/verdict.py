"""``no_verdict``: the speaker never rules that a side is superior, right, the winner, or the reader's choice.

The rule reads each sentence of the speech as the speaker's own words: quotes (「」“”『』), titles and
citation brackets are blanked first, and what the speaker attributes to someone else (对方认为…,
印光大师主张…, 若说…) is reported, not asserted.  In what remains it looks for five structures:

* an outcome of the debate (…赢了, 已占上风, 高下已分, 驳倒, 理屈词穷 …);
* a comparison that ranks a side: a side and a two-place comparative (X 远胜 / 高于 / 不及 / 不如 Y,
  非 Y 所能比拟), a degree word with a judgement (更为究竟, 最殊胜, 较为浅薄, 比…高明, 比…走得通),
  or a comparison frame with a capability (比起 Y，X 更能…);
  or an idiom that ranks (技高一筹, 首屈一指, 相形见绌, 难望…项背);
* a claim that a side is *the* right one or a wrong one (唯有…才是正道, X 乃唯一出路, X 是歧途,
  方为…之极, X 才是根本, X 不过是权宜 / 方便);
* a recommendation that the reader choose a side (舍净归禅, 应当改修…, 与其…不如…, 不必再…,
  奉劝诸位放下佛号 — a practice may be named by its emblem);
* a resolved "which is better" (孰优孰劣，一目了然; 谁优谁劣…，当然是禅宗).

Classical and implicit shapes join these: a bare 胜 / 负 / 为优 closing a side's clause (此辩禅门为胜),
two sides set one above the other across clauses (X 为优，Y 为劣; X 为上，Y 次之; X 之弊…，Y 之长…),
a side made the standard (当以 X 为准 / 为归), a superlative by negation (没有比念佛更稳当的), marks given
(禅宗九十分), a flaw said of a side (不得要领, 失之于简) and a rhetorical 何苦去参那…话头？.  One practice
compared with itself (散乱的念佛不如专注的念佛) and a tradition's own order (以持名为正行) rank no side.

A *side* is a school, a practice the pairings oppose, a master of the pack, or a pointer to one
(本宗, 彼宗, 此门, 前者 …).  Negated (并非更为究竟, 无有高下) and genuinely questioning clauses
(谁更究竟？) assert nothing and pass.

Beside these phrase shapes runs the structural reading of checks/appraisal.py (positions appraised opposite ways,
one position set against another, made the best or condemned, the debate won, the reader sent down one road);
this module decides for both what is reported, denied or asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from debate_core.checks import lexicons as _lx
from debate_core.checks._lexicon import (
    READERS,
    matches_in,
    no_matches,
    recommend_side_regex,
    side_regex,
    side_words_regex,
)
from debate_core.checks.appraisal import Ranking, rankings
from debate_core.checks.positions import Parties, parties
from debate_core.content.text import clauses, mask, sentences

_ADJ_MULTI = _lx.words("verdict.adj_multi")
_ADJ_SINGLE = "".join(_lx.words("verdict.adj_single"))
_ADJ_SINGLE_NEXT = frozenset(_lx.words("verdict.adj_single_next"))
_DEGREE = _lx.pattern("verdict.degree")

_OUTCOME = _lx.regex("verdict.outcome")
_OUTCOME_SIDED = _lx.regex("verdict.outcome_sided")
# Idioms that rank: one side above the rest or the others (技高一筹, 首屈一指, 独步, 鹤立鸡群 …).
_IDIOM_RANK = _lx.regex("verdict.idiom_rank")
# A side set down as merely provisional (X 不过是权宜, 只是化城, 充其量是方便施设).
_PROVISIONAL = _lx.regex("verdict.provisional")
_ALL_ALIKE = _lx.regex("verdict.all_alike")
_COMPARE2 = _lx.regex("verdict.compare2")
_DEGREE_ADJ = re.compile(
    _DEGREE + "(?P<adj>" + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True)) + f"|[{_ADJ_SINGLE}])"
)
_BI = re.compile(
    r"(?:比起|相比于|相较于|较之)(?P<y0>[^。；：]{1,14}?)[，,]?(?:来得|要|更|还|远|都|更为|更加)?(?P<adj0>"
    + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True))
    + ")"
    + r"|比(?P<y>[^，。；：、]{1,12}?)(?:来得|要|更|还|远|都)?(?:(?P<adj>"
    + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True))
    + r")|[高低深浅优劣好差胜强弱](?=了|得|出|一|些|"
    r"许多|不少|很多|多))"
)
# 比 Y + any quality + 得多 / 更 + a capability: 比马哈希的标记法自然得多, 比念佛的人更容易开悟
_BI_MORE = re.compile(
    r"比(?!较|如|方|喻|丘|例|量|拟|照|起来)(?P<y>[^，。；：、]{1,12}?)(?:[\u4e00-\u9fff]{1,4}?(?:得多"
    r"|多了|许多)"
    r"|(?:更|还要|更加|更为|要更)(?:容易|能|快|早|稳|易|有效|适合|直接|简单|踏实|可靠|彻底|究竟|深|高|透|契|合|得力|管用|远|准|清|全|细|周到|到位|切实))"
)
_BI_ABLE = re.compile(
    r"(?:比起|相比于|相较于|较之|与[^，。；]{1,10}?相比)[^，。；]{0,14}?[，,]?[^，。；]{0,6}?"
    r"(?:更|更加|更为|要更|还要|远|远远)(?:能够|能|足以|可以)"
)
_MUCH = re.compile(
    r"(?P<adj>"
    + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True))
    + r")(?:得多|得太多|许多|不少|一截|一大截|百倍|千倍|万倍)"
)
_NEAR = re.compile(
    _DEGREE + r"(?:接近|契合|符合|贴近|合乎|得|近)[^，。；]{0,6}?(?:佛意|本怀|真理|实相|佛说|圣教|经意|"
    r"真意|佛心)" + "|" + _DEGREE + r"(?:能)?(?:契合|适合|适宜|契|应|对应|切合)[^，。；]{0,4}?(?:末法|根机|时机|时代|"
    r"当今|今人|众生|凡夫)"
)
_DISMISS = _lx.regex("verdict.dismiss")
_JUDGE_NOUN = _lx.pattern("verdict.judge_noun")
_RIGHT = _lx.regex("verdict.right")
_WRONG_PATH = _lx.regex("verdict.wrong_path")
_RECOMMEND = _lx.regex("verdict.recommend")
_LET_GO = _lx.regex("verdict.let_go")
# What one lets go of when the object is an affliction, not a practice or a school (放下执取).
_AFFLICTION_OBJECT = _lx.regex("verdict.affliction_object")
_READER_CHOICE = re.compile(
    "(?:" + "|".join(READERS) + r")(?:还是|应该|应当|最好|就该|该|须|得|只需|只要)"
    r"(?:去)?(?:选|学|修|修学|走|信|跟|归|投)"
    # 真正懂得佛法的人，都会选择禅宗 / 聪明人自然知道怎么选
    r"|(?:(?:真正|真懂|懂得|明白|有智慧|有眼光|明理|聪明)[^，。；]{0,10}?(?:的人|之人|者)|聪明人|明眼人|明白人|有识之士|智者)"
    r"[，,]?(?:都会|都将|自然会|自会|必然会?|必会|一定会|终究会|终会|都|皆)"
    r"(?:去)?(?:选择|选|走向|归向|投向|转向|改修|归入)"
    r"|(?:自然|当然|自会|自能|不难|一看便|一想便|一望便)(?:知道|明白|懂得|晓得)?(?:该)?(?:怎么|如何|怎样|该)(?:选|取舍|抉择|走)"
)
_STOP_OTHER = _lx.regex("verdict.stop_other")
_JOIN_NOT_SPLIT = _lx.regex("verdict.join_not_split")
_RESOLVED = _lx.regex("verdict.resolved")
_RANK_PAIR = _lx.regex("verdict.rank_pair")
_TAKE_AS_STANDARD = _lx.regex("verdict.take_as_standard")
_TURN_TO = _lx.regex("verdict.turn_to")
_READER_CHOICE_MORE = _lx.regex("verdict.reader_choice_more")
_ANSWER_SIDE = _lx.regex("verdict.answer_side")
_WHY_BOTHER = _lx.regex("verdict.why_bother")
_SOLE_REFUGE = _lx.regex("verdict.sole_refuge")
_NONE_BETTER = _lx.regex("verdict.none_better")
_SCORE = _lx.regex("verdict.score")
_FLAW = _lx.regex("verdict.flaw")


@lru_cache(maxsize=32)
def _side_beats_side(side_pattern: str) -> re.Pattern:
    """X 胜 Y with two sides and no adverb (念佛胜参禅, 中观之学胜唯识)."""
    return re.compile(rf"(?:{side_pattern})(?:之学|之法|之说|一门|法门)?(?:胜|胜过|压倒|强过|赢过)(?:{side_pattern})")


_SUBJECTLESS = _lx.regex("verdict.subjectless")
_NEG_MULTI = _lx.regex("verdict.neg_multi")
_NEG_SINGLE = frozenset(_lx.words("verdict.neg_single"))
_RHETORICAL = _lx.regex("verdict.rhetorical")
_QUESTION_WORDS = _lx.regex("verdict.question_words")
_CONTRAST = _lx.regex("verdict.contrast")
_HYPOTHETICAL = _lx.regex("verdict.hypothetical")
_REPORT_VERBS = _lx.pattern("verdict.report_verbs")


@dataclass(frozen=True)
class VerdictHit:
    kind: str
    phrase: str
    sentence: str

    def group(self, _i: int = 0) -> str:
        return self.phrase


@lru_cache(maxsize=32)
def _report_frame(others: str) -> re.Pattern:
    subj = (
        r"(?:对方|彼宗|贵宗|有人|或人|世人|论者|批评者|外人|有论者|一般人|人们|彼等|他们|彼|他|经中|经上|经里|经文|"
        r"论中|古德|古人|古来|前人|先贤|历代祖师|判教家|后人|俗话|常言|旧说|一般的说法"
    )
    if others:
        subj += "|" + others
    subj += ")"
    return re.compile(
        subj
        + r"[^，。；：]{0,10}?"
        + _REPORT_VERBS
        + r"|(?:依|按|照|据|在|按照|依照|依据)"
        + subj
        + r"(?:的|之)?(?:见|看法|见解|说法|主张|之见|所见|意思|观点|看来|理解|立场|逻辑)"
    )


def _reported_ranges(sent: str, others: re.Pattern | None) -> list[tuple[int, int]]:
    """Ranges of a (masked) sentence that report what someone else holds."""
    out: list[tuple[int, int]] = []
    frames: list[tuple[int, int, bool]] = []  # (start, end of frame, clause-only)
    for m in _report_frame(others.pattern if others is not None else "").finditer(sent):
        if _THEORY_NOUN.search(sent, m.start(), m.end() + 1):
            continue  # 六祖的顿悟说，…: a theory named (顿悟说), not a report of what he says
        # 慧能大师所说: what he said, named as a thing (…所说而答) — a report to the end of its clause only
        frames.append((m.start(), m.end(), re.search(r"所(?:说|言|讲)$", m.group(0)) is not None))
    for m in _HYPOTHETICAL.finditer(sent):
        frames.append((m.start(), m.end(), True))
    for start, fend, clause_only in frames:
        stop = len(sent)
        if clause_only:
            cm = re.search(r"[，,；;。]", sent[fend:])
            stop = fend + cm.start() if cm else len(sent)
        else:
            # a report runs to a turn back to the speaker's voice (然而, 其实 …) or to the next ；
            cm = _CONTRAST.search(sent, fend)
            if cm:
                stop = cm.start()
            semi = re.search(r"[；;]", sent[fend:stop])
            if semi:
                stop = fend + semi.start()
        out.append((start, stop))
    return out


def _in(ranges: list[tuple[int, int]], pos: int) -> bool:
    return any(s <= pos < e for s, e in ranges)


_LOCATIVE = _lx.regex("verdict.locative")
_MENTIONED = _lx.regex("verdict.mentioned")
_WARNING = _lx.regex("evaluation.warning")
# what a comparative's right side is when it is a way of doing the same thing (少念而专, 一心专念)
_MANNER_OBJECT = re.compile(r"(?:少|多|慢|快|静|专|一心|细|老实|默|好好|安心)[^，。；]{0,6}$")
_IF = _lx.regex("evaluation.conditional")
# a turn of path with no modal (转学, 改修), and a time gone by before it (当年, 后来, 少年时): told, not advised
_BARE_TURN = re.compile(r"改学|改修|改宗|改投|转修|转学|转投|改信|改走|转入|归入")
_PAST = _lx.regex("verdict.past")
_BY_MEANS = re.compile(r"(?:必须|须|应当|应该|应|当|宜)以")
_THEORY_NOUN = _lx.regex("verdict.theory_noun")
_NOT_NEGATION = _lx.regex("verdict.not_negation")


def _negated(before: str) -> bool:
    before = _NOT_NEGATION.sub("", before)
    if _RHETORICAL.search(before):
        return False
    if _NEG_MULTI.search(before):
        return True
    tail = before[-2:]
    return any(c in _NEG_SINGLE for c in tail)


def _is_question(clause_text: str, after: str) -> bool:
    if _RHETORICAL.search(clause_text):
        return False
    return bool(re.match(r"[^。！!]*?[？?]", after)) and bool(_QUESTION_WORDS.search(clause_text + after[:12]))


def verdict_hits(
    text: str,
    *,
    extra_sides: Iterable[str] = (),
    others: re.Pattern | None = None,
    limit: int = 0,
    strict: bool = False,
    who: Parties | None = None,
) -> list[VerdictHit]:
    """Every verdict in ``text`` (the speaker's own words only).  ``strict`` reads a fragment that
    will be reused out of its context: a question or a report does not excuse a verdict in it.
    ``who``: the debate's positions (positions.parties_for); the lexicon's positions alone without it."""
    extra = tuple(sorted(set(extra_sides)))
    who = who if who is not None else parties()
    side = side_regex(extra)
    rec_side = recommend_side_regex(extra)
    any_side = side_words_regex(extra)
    masked = mask(text)
    masked_all = mask(text, '「『“‘"【《（(')
    hits: list[VerdictHit] = []
    prev_said: list = []  # the appraisals of the sentence before (appraisal.rankings)
    for s, e in sentences(text):
        sent = masked[s:e]
        reported = [] if strict else _reported_ranges(sent, others)
        # Every structure but the plain outcomes needs a side in this sentence (a side window never
        # leaves it; X 胜 Y matches two).  A sentence without any word a side or an emblem is named by
        # (禅 / 净 / 教 / 宗 counted in any context, where side_regex asks for one) cannot give them a
        # hit, so they are not scanned.  strict reads degree and rightness without a side: all scanned.
        with_side = matches_in(sent) if strict or any_side.search(sent) is not None else no_matches
        cl = [(a - s, b - s) for a, b in clauses(text, s, e, masked_all)]

        def clause_of(pos: int, cl: list[tuple[int, int]] = cl) -> tuple[int, int]:
            for a, b in cl:
                if a <= pos < b:
                    return a, b
            return pos, pos + 1

        def next_clause_end(b: int, cl: list[tuple[int, int]] = cl) -> int:
            for a2, b2 in cl:
                if a2 >= b:
                    return b2
            return b

        def accept(
            kind: str,
            m: re.Match | Ranking,
            *,
            needs_side: bool,
            side_window: tuple[int, int] | None = None,
            check_question: bool = True,
            side_pat: re.Pattern | None = None,
            s: int = s,
            e: int = e,
            sent: str = sent,
            cl: list[tuple[int, int]] = cl,
            reported: list[tuple[int, int]] = reported,
        ) -> None:
            pos = m.start()
            if _in(reported, pos):
                return
            a, b = clause_of(pos)
            before = sent[a:pos]
            while a > 0 and sent[a - 1] == "、":  # 不说禅门胜、净土负: a negated verb's list goes on after 、
                a = clause_of(a - 2)[0]
                before = sent[a:pos]
            if _negated(before):
                return
            if check_question and not strict and _is_question(sent[a:b], sent[pos:]):
                return
            if needs_side and not (strict and kind in ("degree", "rightness")):
                if side_window is None:
                    # the side is the clause's own subject, or — when the clause has none (禅宗之法，
                    # 更为究竟) — the previous clause's
                    lo = a
                    if not _SUBJECTLESS.sub("", sent[a:pos]):
                        for pa, pb in reversed([c for c in cl if c[1] <= a]):
                            lo = pa
                            if _SUBJECTLESS.sub("", sent[pa:pb]):
                                break
                    side_window = (lo, b)
                # a side named only as the place of a ranking (在唯识典籍中首屈一指) is not what is ranked
                window = _LOCATIVE.sub(lambda x: "＿" * len(x.group(0)), sent[side_window[0] : side_window[1]])
                if not (side_pat or side).search(window):
                    return
            hits.append(VerdictHit(kind, text[s + m.start() : s + m.end()], text[s:e].strip()))

        for m in _OUTCOME.finditer(sent):
            if _MENTIONED.search(sent, 0, m.start()):
                continue  # 本宗所说的得胜，不是…: the word defined, not a debate won
            accept("outcome", m, needs_side=False)
        for m in with_side(_OUTCOME_SIDED):
            accept("outcome", m, needs_side=True)
        for m in with_side(_COMPARE2):
            a, b = clause_of(m.start())
            left, right = side.findall(sent[a : m.start()]), side.findall(sent[m.end() : b])
            if not sent[a : m.start()].strip() and (prev := [c for c in cl if c[1] <= a]):
                left = side.findall(sent[prev[-1][0] : prev[-1][1]])  # 散心称名，不如摄心称名
            if left and right and set(left) == set(right):
                continue  # 散乱的念佛不如专注的念佛: one practice compared with itself, no side ranked
            if left and not right and _MANNER_OBJECT.match(sent, m.end(), b):
                continue  # 念佛念得散乱，不如少念而专: two ways of one practice, no side on the right
            if left and not set(right) - set(left) and _IF.search(sent, max(0, a - 12), a):
                continue  # 参禅的人若只图热闹，不如一个话头参到底: advice for a case, no other side
            if m.group("obj") is not None:  # 超过 / 超越: only with a side right after, in the same clause
                accept("comparison", m, needs_side=True, side_window=(m.end(), min(m.end() + 10, b)))
            else:
                accept("comparison", m, needs_side=True)
        for m in with_side(_DEGREE_ADJ):
            adj = m.group("adj")
            if len(adj) == 1:
                nxt = sent[m.end() : m.end() + 1]
                if nxt and nxt not in _ADJ_SINGLE_NEXT:
                    continue
            if sent[m.end() : m.end() + 1] in ("的", "之"):
                a, b = clause_of(m.start())
                if not _SUBJECTLESS.sub("", sent[a : m.start()]) and not side.search(sent[m.end() : b]):
                    continue  # 最深的出离心由…触发: a superlative describing the subject, no side ranked
            accept("degree", m, needs_side=True)
        for m in with_side(_BI):
            accept("degree", m, needs_side=True)
        for pat in (_MUCH, _NEAR, _BI_ABLE):
            for m in with_side(pat):
                accept("degree", m, needs_side=True)
        for m in with_side(_BI_MORE):  # what 比 compares with must be a side (not 比以前专注得多)
            compared, before_ = set(side.findall(m.group("y"))), set(side.findall(sent[: m.start()]))
            if compared and compared <= before_:
                continue  # 持戒清净的人，入定比持戒松懈的人容易得多: one practice against itself
            accept("degree", m, needs_side=True, side_window=(m.start("y"), m.end("y")))
        for m in with_side(_IDIOM_RANK):
            accept("comparison", m, needs_side=True)
        for m in with_side(_PROVISIONAL):
            a, _b = clause_of(m.start())
            if _ALL_ALIKE.search(sent[a : m.start()]):
                continue  # 都不过是方便: every side alike, none ranked
            accept("rightness", m, needs_side=True)
        for m in with_side(_DISMISS):
            a, _b = clause_of(m.start())
            head = sent[a : m.start()]
            if not _SUBJECTLESS.sub("", head) and (prev := [c for c in cl if c[1] <= a]):
                head = sent[prev[-1][0] : m.start()]  # 若信愿不真，经不起…: the condition is the clause before
            if _WARNING.search(head):
                continue  # 没有正见，闭关也会走错方向: a warning of what may happen, no side ruled wrong
            accept("rightness", m, needs_side=True)
        for m in with_side(_FLAW):
            # a flaw said of a side named earlier in the sentence (唯识一家，论证虽繁，终究不得要领)
            accept("rightness", m, needs_side=True, side_window=(0, m.end()))
        for m in with_side(_RIGHT):
            a, _b = clause_of(m.start())
            if m.group(0) in ("为正", "为偏") and re.search(r"(?<![当应宜须])以[^，。；]{1,12}$", sent[a : m.start()]):
                continue  # 以持名为正: a tradition's own main practice named, not a side ruled right
            if _WRONG_PATH.search(m.group(0)):
                # a wrong path is said of whatever side the sentence names (净土行人…，方知走的是弯路)
                accept("rightness", m, needs_side=True, side_window=(0, len(sent)))
            else:
                accept("rightness", m, needs_side=True)
        for m in with_side(_RECOMMEND):
            a, b = clause_of(m.start())
            if m.group(0).startswith("与其说") and m.group(0).endswith("不如") and sent[m.end() : m.end() + 1] == "说":
                continue  # 与其说…不如说…: a rewording, not a preference
            if m.group(0).startswith("还是") and re.match(r"[^，。；]{0,3}?[吗呢么]?[？?]", sent[m.end() :]):
                continue  # 还是念佛更好吗？: a question asked, nothing chosen
            if _BY_MEANS.match(m.group(0)):
                continue  # 须以皈依、持戒…拂拭: by means of a practice, no side chosen
            if _BARE_TURN.fullmatch(m.group(0)) and _PAST.search(sent, 0, m.start()):
                continue  # 少年时…后来…才转学大乘: a turn told as what happened, a life story, not advice
            if m.group(0).startswith("与其"):
                accept("recommendation", m, needs_side=True, side_window=(m.start(), min(len(sent), m.end() + 12)))
            elif (verb := _LET_GO.match(m.group(0))) and _AFFLICTION_OBJECT.match(sent, m.start() + verb.end()):
                continue  # 放下执取, 放下妄念: letting go of an affliction is a teaching, no side is dropped
            else:
                # what is dropped or taken up may be named in this clause or the next (放下佛号，直下参究)
                accept(
                    "recommendation",
                    m,
                    needs_side=True,
                    side_window=(m.start(), next_clause_end(max(b, m.end()))),
                    check_question=False,
                    side_pat=rec_side,
                )
        if any(r in sent for r in READERS):
            for m in with_side(_STOP_OTHER):
                if m.end() - m.start() < 2:
                    continue
                if _JOIN_NOT_SPLIT.search(sent, m.end(), clause_of(m.start())[1]):
                    continue  # 不必把次第与圆融分开: two things joined, none given up
                accept(
                    "recommendation",
                    m,
                    needs_side=True,
                    side_window=(m.end(), m.end() + 6),
                    check_question=False,
                    side_pat=rec_side,
                )
        for m in with_side(_READER_CHOICE):
            # the side chosen may stand anywhere in the sentence (禅宗太险，净土太稳，聪明人自然知道怎么选)
            accept("recommendation", m, needs_side=True, check_question=False, side_window=(0, len(sent)))
        for m in _RESOLVED.finditer(sent):
            accept("outcome", m, needs_side=False, check_question=False)
        for m in with_side(_RANK_PAIR):
            accept("comparison", m, needs_side=True, side_window=(0, len(sent)))
        for m in with_side(_TAKE_AS_STANDARD):
            accept("rightness", m, needs_side=True, side_window=(m.start(), m.end()))
        for m in with_side(_TURN_TO):
            accept("recommendation", m, needs_side=True, side_window=(m.end(), m.end() + 6), check_question=False)
        for m in with_side(_side_beats_side(side.pattern)):
            accept("comparison", m, needs_side=False)
        for m in with_side(_NONE_BETTER):
            accept("degree", m, needs_side=True, side_window=(m.start(), m.end()))
        for m in with_side(_SCORE):
            accept("comparison", m, needs_side=True, check_question=False)
        for m in with_side(_SOLE_REFUGE):
            accept("rightness", m, needs_side=True, side_window=(0, len(sent)))
        for m in with_side(_ANSWER_SIDE):
            accept("rightness", m, needs_side=True, side_window=(m.end(), m.end() + 6), check_question=False)
        for m in with_side(_WHY_BOTHER):
            # 何苦去参那…话头？: the question is the recommendation; what is dropped follows it
            accept(
                "recommendation",
                m,
                needs_side=True,
                side_window=(m.start(), m.end() + 12),
                check_question=False,
                side_pat=rec_side,
            )
        for m in with_side(_READER_CHOICE_MORE):
            accept("recommendation", m, needs_side=True, check_question=False, side_window=(0, len(sent)))
        # the structural reading (appraisal.py): positions appraised or set against each other
        found, prev_said = rankings(sent, cl, who, _negated, prev_said)
        for r in found:
            accept(r.kind, r, needs_side=False, check_question=r.kind != "outcome")
        if limit and len(hits) >= limit:
            break
    # one hit per phrase and sentence
    seen: set[tuple[str, str]] = set()
    out = []
    for h in hits:
        if (h.phrase, h.sentence) not in seen:
            seen.add((h.phrase, h.sentence))
            out.append(h)
    return out


class VerdictDetector:
    """Compatibility object for ``VERDICT_PATTERNS``: ``search(text)`` returns the first verdict
    (with ``.group(0)``) or None, like a compiled pattern."""

    pattern = "no_verdict"

    def search(self, text: str):
        hits = verdict_hits(text, limit=1)
        return hits[0] if hits else None

    def finditer(self, text: str):
        return iter(verdict_hits(text))
