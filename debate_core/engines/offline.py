"""The embedded default engine: offline, deterministic, built on a pack's teachings (no LLM).

What it may speak from
    Only ``Master.teachings`` (the pack reader's sentences: what the master taught,
    never a pack's editorial notes, reading lists, URLs, headings or fragments), the
    speaker's own ammo (``cross_critique`` aimed at the opponent, cited with its own
    source) and the opponent's <=80-character summary.  It reads no earlier speech.

Relevance (explainable, deterministic)
    Each teaching unit is scored against the topic::

        score = 3 x (topic bigrams in the unit)
              + 2 x (pair-table terms of this pair in the unit)
              + 2 x (the master's keywords that the topic names and the unit holds)
              + 1 x (topic bigrams in the unit's section heading)

    ties broken by a hash of (topic, unit), so two topics order even equal units
    differently.  :meth:`OfflineEngine.ranked` returns the scores with their parts.

No repetition without memory
    The engine sees no earlier speech, so it relies on determinism: a speaker's
    n-th speech (n = (round-1)//2) draws from the n-th disjoint slice of his ranked
    units; the 综合 speaker reads the opponent's units from past every slice the
    opponent has used; ammo is split into clauses and speech n takes its own; each
    template is chosen by role and n, so no template sentence returns for one speaker.

Roles
    立论: a stance on the topic and three reasons.  反驳: the opponent's last point
    restated first (from the summary), then answered with the units that bear on it
    and the ammo.  回应: what it accepts of the opponent's point and what it keeps.
    综合: common ground both sides' units support, and the difference naming both.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Optional

from debate_core.checks.citation import chinese_title
from debate_core.engines.gateway import Generation
from debate_core.models import (Master, Observation, ObservationRequest, Pack, SpeechRequest, SummaryRequest, Teaching)

ENGINE_NAME = "offline"
MIN_CHARS, MAX_CHARS = 300, 500
TARGET_LOW, TARGET_HIGH = 330, 470
SUMMARY_ROOM = 80

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CITE = re.compile(r"【[^】]*】")

# Words both sides of any pair may share: what a common ground can be named by.
COMMON_TERMS = (
    "自心", "本心", "心性", "佛性", "自性", "觉知", "觉照", "正念", "觉悟", "烦恼", "妄念", "执著", "执取", "放下", "戒律",
    "持戒", "禅定", "智慧", "般若", "止观", "修行", "功夫", "次第", "因果", "缘起", "空性", "无常", "无我", "解脱", "涅槃",
    "菩提", "慈悲", "众生", "生死", "轮回", "出离", "信心", "发心", "善知识", "上师", "经教", "念佛", "参禅", "当下",
    "日用", "平常", "实修", "精进", "闻思", "定慧", "戒定慧", "中道", "业果", "净土", "见性", "法门", "根机", "方便",
    "心", "戒", "定", "慧", "念", "空", "苦",
)
LEVELS = (
    ("根机", ("末法", "根机", "根器", "初机", "初学", "众生", "下手", "难易", "易行", "契机", "凡夫", "利钝", "上根")),
    ("判教", ("判教", "教相", "五时", "八教", "教观", "三士", "了义", "不了义", "分判", "纲宗", "五教", "一乘", "三乘", "圆教")),
    ("行门", ("念佛", "参禅", "持戒", "戒律", "行持", "内观", "禅修", "止观", "修行", "法门", "功夫", "坐禅", "标记",
              "话头", "持名", "苦行", "闭关", "行门", "次第")),
    ("见地", ("空", "唯识", "自性", "中观", "见性", "应成", "佛性", "心识", "缘起", "实相", "法界", "无我", "见地", "本心")),
)
LEVEL_GLOSS = {
    "行门": "怎样下手用功",
    "见地": "怎样看心与法",
    "判教": "怎样安排一代教法的次第与高低层次",
    "根机": "法门对什么样的人最合用",
}


_SUBORDINATE = re.compile(r"^(?:若|如果|假如|倘若|倘|当|當|虽|雖|虽然|正?因为|正?因為|由于|即使|纵然|縱然|只要|一旦|每当|每當"
                          r"|(?:如|犹如|猶如|譬如|好比)(?!来|來|是|实|實|何|今))|"
                          r"(?:时|時|之际|之際|以后|之后|以前|之前|的话|若|如果)$")
_SUBORDINATE_END = re.compile(r"(?:时|時|之际|之際|以后|之后|之前|的话|若|如果|而|且|与|和|及|之|的|于|於|在|把|将|以|为|》中|》里|中说|中說)$")
_LEANING = re.compile(r"^(?:则|則|便|就|即可|无需|無需|不必|也|亦|而|但|却|卻|才|乃|故|所以|因此|是|并|並|且|又|甚至|乃至|可作为)")


def _alike(p: str, q: str) -> bool:
    """Two points too close to set side by side: the same opening or a third of their pairs shared."""
    bp, bq = _bigrams(p), _bigrams(q)
    return p[:3] == q[:3] or bool(bp and bq) and len(bp & bq) * 3 >= min(len(bp), len(bq))


def _stable(*parts: object) -> int:
    return int(hashlib.sha1("|".join(map(str, parts)).encode("utf-8")).hexdigest()[:8], 16)


def cjk_len(text: str) -> int:
    return len(_CJK.findall(text))


def _bigrams(text: str) -> set[str]:
    t = "".join(_CJK.findall(text))
    return {t[i:i + 2] for i in range(len(t) - 1)}


def _body(text: str) -> str:
    """A unit without its final stop."""
    return text.strip().rstrip("。！？；，、 ")


def _clip(text: str, limit: int) -> str:
    """Cut at the last clause boundary that fits (never mid-bracket), else hard."""
    text = _body(text)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for sep in ("；", "，", "、", "——"):
        i = cut.rfind(sep)
        if i >= limit // 2:
            out = cut[:i]
            if _balanced(out):
                return out
    out = cut
    while out and not _balanced(out):
        out = out[:-1]
    return out


_PAIRS = {"【": "】", "《": "》", "「": "」", "『": "』", "“": "”", "（": "）", "(": ")"}


def _balanced(text: str) -> bool:
    stack = []
    for ch in text:
        if ch in _PAIRS:
            stack.append(_PAIRS[ch])
        elif ch in _PAIRS.values():
            if not stack or stack.pop() != ch:
                return False
    return not stack


def sentences_of(text: str) -> list[str]:
    """Sentences (split at 。！？ outside brackets), citations removed: what the bench compares."""
    out, buf, depth = [], "", 0
    for ch in text:
        buf += ch
        if ch in _PAIRS:
            depth += 1
        elif ch in _PAIRS.values():
            depth = max(0, depth - 1)
        elif ch in "。！？" and depth == 0:
            out.append(buf)
            buf = ""
    if buf.strip():
        out.append(buf)
    return [_CITE.sub("", s).strip() for s in out if _CITE.sub("", s).strip()]


# ------------------------------------------------------------------ templates
# Each role has three variants of every frame; a speaker's n-th speech takes variant (n + h) % 3,
# h fixed per (topic, speaker), so one speaker never says the same frame twice in a debate.

T_OPEN = {
    "立论": ("就「{topic}」这一问，我先亮明看法：{thesis}{cite}。",
             "「{topic}」这个题目，我的立场很清楚：{thesis}{cite}。",
             "谈「{topic}」，我从这一点立论：{thesis}{cite}。"),
    # restatements use a reporting verb (主张, 认为, 提出, 强调, 所说): the opponent's words, not the speaker's
    "反驳": ("{opp}上一轮主张：{gist}。",
             "{opp}方才主张：{gist}。",
             "{opp}认为，{gist}。"),
    "回应": ("{opp}上一轮提出：{gist}。",
             "{opp}刚才强调：{gist}。",
             "照{opp}所说，{gist}。"),
    "综合": ("最后一轮，我把两家在「{topic}」上的分合摆清楚，不替读者下结论。",
             "到了收束的时候，我只把「{topic}」上两家的同与异说明白，不作裁断。",
             "这一轮作个收束：「{topic}」一题上，两家哪里相通、哪里不同，我分开来讲。"),
}
T_BRIDGE = {
    "立论": ("这个看法有三条理由。", "我的理由可以分三层说。", "支撑它的理由有三。"),
    "反驳": ("这话有它的根据，我就针对这一点回答：{answer}{cite}。",
             "我不绕开这一点，正面回答它：{answer}{cite}。",
             "对这一点，我的回答是：{answer}{cite}。"),
    "回应": ("其中{accept}这一层，我愿意接受，它与我所学并不相违。",
             "对方讲到{accept}，这一点我可以接受。",
             "{accept}，这句话我认同，不必争。"),
    "综合": ("先说共同处：两家都谈到{common}，而且都把它当作修行的要紧处。",
             "两家相通的地方，在于都重视{common}这一环。",
             "共识先讲：{common}要紧，这是两边的经教都讲到的。"),
}
# 反驳 when no unit of the speaker's shares the opponent's words: the answer says it comes from elsewhere.
T_BRIDGE_LOOSE = ("这话有它的根据；我换一个角度回答：{answer}{cite}。",
                  "对此我不从同一处入手，而是这样回答：{answer}{cite}。",
                  "我的回答从另一头说起：{answer}{cite}。")
T_REASON_LEAD = (("其一，", "其二，", "其三，"), ("第一，", "第二，", "第三，"), ("首先，", "其次，", "再者，"))
T_KEEP = ("但我仍要坚持的是：{keep}{cite}。", "我所不能放下的，是这一点：{keep}{cite}。",
          "我坚持的部分在这里：{keep}{cite}。")
T_MORE = {
    "反驳": ("再看这一层：", "还要补上一层：", "进一步说，"),
    "回应": ("理由在于，", "之所以坚持，是因为", "我的根据是，"),
    "综合": ("从我这边的经教看，", "就我所依的经教说，", "在我这一边，"),
}
T_AMMO = {
    "立论": ("对{opp}一路，我也先说清楚自己的保留：{ammo}{cite}。",
             "至于{opp}的主张，我的看法是：{ammo}{cite}。",
             "面对{opp}的路数，我的保留是：{ammo}{cite}。"),
    "反驳": ("针对{opp}的主张本身，我要指出：{ammo}{cite}。",
             "所以对{opp}这一路，我的回应是：{ammo}{cite}。",
             "落到{opp}的立场上，我的看法是：{ammo}{cite}。"),
    "回应": ("对{opp}的路数，我的保留依旧：{ammo}{cite}。",
             "我对{opp}一路的保留并没有取消：{ammo}{cite}。",
             "因此对{opp}的说法，我仍要补一句：{ammo}{cite}。"),
    "综合": ("我对{opp}一路的保留，也照实说出：{ammo}{cite}。",
             "我这一方对{opp}的保留仍在：{ammo}{cite}。",
             "至于我对{opp}的保留，是这样：{ammo}{cite}。"),
}
T_OPP_UNIT = ("{opp}的教法里，同样讲到{unit}。", "在{opp}那边，也有这样的话：{unit}。", "{opp}一系的材料也说，{unit}。")
T_DIFF = ("不同之处在于：我以{mine}为立足点，{opp}则以{theirs}为立足点。",
          "分开两家的是这一点：我这边讲{mine}，{opp}那边讲{theirs}。",
          "两家的差别是：我着眼于{mine}，{opp}着眼于{theirs}。")
T_CLOSE = {
    "立论": ("以上三条都从「{topic}」出发，也都有经教可查。", "这就是我对「{topic}」的基本立场，下一轮再就对方所说作答。",
             "我的立论就到这里，三条理由各有所本。"),
    "反驳": ("我的回答只针对对方刚才那一点，不另起炉灶。", "以上是就对方所说作答，并不借题发挥。",
             "这一轮就答到这里，分歧所在已经摆了出来。"),
    "回应": ("接受什么、坚持什么，这样分开说，分歧就更清楚了。", "我这样回应，是想让两家真正的分歧露出来。",
             "所接受的与所坚持的，都已交代明白。"),
    "综合": ("两条路各有经教可循，读者不妨把两边的理由对照着读，看它们各自在回答修行中的哪一个难处。",
             "这两种说法都有来历，读者可以对照双方的理由，自己体会它们各自照顾的是什么。",
             "双方的理由都摆在这里，读者不妨带着自己的处境，对照两边各自回答的问题。"),
}


# A thin pack: sentences about the speaker's own way of arguing, two per speech, one bank per speaker
# (the first speaker speaks in odd rounds, the second in even ones), so none is said twice in a debate.
T_THIN = (
    ("我的材料不多，但每一条都出自我所依的经论，不敢在经论之外另立新说。",
     "就「{topic}」而言，我只说经论里有根据的话，没有根据的地方宁可不说。",
     "{opp}所说自有其来历，我在这里只交代我这一边的理由，不替对方下断语。",
     "这些话放在一起，是想说明我对「{topic}」的看法有经论次第可循，并非一时之见。",
     "凡是我引到的地方，都可以按所标的经论去核对，看这些说法各自落在哪里。",
     "先把所依交代清楚，再谈彼此的分歧，这是我在每一轮都守住的次序。",
     "经论里说得简略的地方，我也照它的简略来说，不替古人铺陈细节。",
     "各家的话都要放回它原来的上下文里读，断章取义最容易误解古人。",
     "若有人觉得我说得不够，那是我的材料本来就少，不是经论本身有所欠缺。"),
    ("我所能说的，都有经论可依，经论没有说到的地方，我不替它补话。",
     "关于「{topic}」，我宁可少说几句，也要句句有所依据。",
     "{opp}的立论有他的来处，我只就自己所学回应，不揣测对方的用心。",
     "把这几条合起来看，我对「{topic}」的立场前后一贯，都从同一部经论出发。",
     "我引用的每一处都标了出处，听者可以逐条对照，不必只听我一面之词。",
     "依经论说话、就分歧作答，这是我在整场讨论里给自己定下的规矩。",
     "我手边可引的经论有限，宁可把有限的几条讲透，也不拿没有出处的话来凑数。",
     "一句话出自哪部经论、在什么语境里说的，比说话的声调更值得留意。",
     "对方若能指出我所引之处有不妥，我愿意回到原文再读一遍。"),
)


class OfflineEngine:
    """Implements the master-debate engine interface: speech, summarize, observe."""

    name = ENGINE_NAME

    def __init__(self, pack: Pack):
        self.pack = pack
        self._ranked: dict[tuple[str, str, str], list[tuple[int, dict, Teaching]]] = {}
        self._safe: dict[tuple[str, str], bool] = {}
        self._ctx = None
        self._ctx_key: tuple[str, str] = ("", "")

    # ---------------------------------------------------------------- safety
    def _context(self, m: Master, opp: Master, role: str = "立论", summary: str = "", ammo=None):
        from debate_core.checks import CheckContext

        names = [n for x in self.pack.masters.values() for n in (x.name, x.short_name)]
        kw = dict(speaker=m, opponent=opp, role=role, ammo=list(ammo or []), opponent_summary=summary,
                  pack_source_ids=self.pack.all_source_ids(), names=names)
        try:
            return CheckContext(pack=self.pack, **kw)
        except TypeError:  # an older CheckContext without the pack field
            return CheckContext(**kw)

    def safe(self, text: str, m: Master, opp: Master) -> bool:
        """A sentence the speech may hold: no verdict, no dialogue, no hygiene problem, as the checks see it."""
        key = (m.slug + ">" + opp.slug, text)
        if key not in self._safe:
            from debate_core import checks

            if self._ctx_key != (m.slug, opp.slug):
                self._ctx, self._ctx_key = self._context(m, opp), (m.slug, opp.slug)
            rules = [getattr(checks, n, None) for n in ("check_no_verdict", "check_no_dialogue", "check_hygiene")]
            if all(rules):
                findings = [r(text, self._ctx) for r in rules]
            else:  # an older checks module: all rules, keep the three
                findings = [f for f in checks.run_checks(text, self._ctx)
                            if f.rule in ("no_verdict", "no_dialogue", "hygiene")]
            self._safe[key] = all(f.passed for f in findings)
        return self._safe[key]

    # ------------------------------------------------------------- relevance
    def _row_terms(self, m: Master, opp: Master) -> tuple[list[str], list[str]]:
        try:
            from debate_core.content.pairing import pair_table

            rows = pair_table().get("rows", [])
        except Exception:  # noqa: BLE001 - the table is optional for ranking
            rows = []
        mine: list[str] = []
        theirs: list[str] = []
        for row in rows:
            a, b = row.get("a", {}), row.get("b", {})
            for x, y in ((a, b), (b, a)):
                if x.get("master") == m.slug and y.get("master") == opp.slug:
                    mine += [t for t in x.get("terms", []) if isinstance(t, str)]
                    theirs += [t for t in y.get("terms", []) if isinstance(t, str)]
        return mine, theirs

    def score(self, t: Teaching, m: Master, topic: str, row_terms: list[str]) -> tuple[int, dict]:
        tb = _bigrams(t.text)
        topic_b = _bigrams(topic)
        parts = {
            "topic": 3 * len(tb & topic_b),
            "row": 2 * sum(1 for term in row_terms if len(term) >= 2 and term in t.text),
            "keywords": 2 * sum(1 for k in m.search_scope.keywords
                                if isinstance(k, str) and len(k) >= 2 and k in topic and k in t.text),
            "heading": len(_bigrams(t.heading) & topic_b),
        }
        return sum(parts.values()), parts

    def ranked(self, m: Master, opp: Master, topic: str) -> list[tuple[int, dict, Teaching]]:
        """The master's usable teaching units, best first, with the parts of each score."""
        key = (m.slug, opp.slug, topic)
        if key in self._ranked:
            return self._ranked[key]
        mine, theirs = self._row_terms(m, opp)
        row_terms = list(dict.fromkeys(mine + theirs))
        own_ids = set(m.source_ids)
        theirs = {re.sub(r"\W", "", t.text) for t in opp.teachings}
        out = []
        for t in m.teachings:
            if re.sub(r"\W", "", t.text) in theirs:
                continue  # both packs' masters hold it: neither speaks it, so no sentence repeats
            n = cjk_len(t.text)
            if n < 9 or n > 90 or (t.source_id and t.source_id not in own_ids):
                continue
            if not self.safe(t.text, m, opp):
                continue
            s, parts = self.score(t, m, topic, row_terms)
            out.append((s, parts, t))
        out.sort(key=lambda x: (-x[0], _stable(topic, m.slug, x[2].text)))
        self._ranked[key] = out
        return out

    def slices(self, m: Master, opp: Master, topic: str) -> list[list[Teaching]]:
        """The ranked units cut into consecutive slices of about the same amount of text: speech n
        of this speaker draws from slice n only, so two speeches never share a unit."""
        units = [t for _, _, t in self.ranked(m, opp, topic)]
        total = sum(cjk_len(t.text) for t in units)
        # a thin pack: halves, so that the two speeches of a 4-round debate are full; a third speech
        # (5 or 6 rounds) then rests on the reserve of critiques and sources
        budget = max(210, min(400, total // 3)) if total >= 630 else max(1, (total + 1) // 2)
        least = 3 if total >= 630 else 1
        out: list[list[Teaching]] = [[]]
        size = 0
        for t in units:
            if size >= budget and len(out[-1]) >= least:
                out.append([])
                size = 0
            out[-1].append(t)
            size += cjk_len(t.text)
        return out

    def reserve(self, m: Master, opp: Master, topic: str) -> list[Teaching]:
        """Units past the three slices: a speech takes only its own third of them (index % 3 == n)."""
        return [t for part in self.slices(m, opp, topic)[3:] for t in part]

    def slice_for(self, m: Master, opp: Master, topic: str, n: int) -> list[Teaching]:
        sl = self.slices(m, opp, topic)
        return list(sl[n]) if n < len(sl) and n < 3 else []

    # ------------------------------------------------------------------ bits
    def cite(self, m: Master, sid: str) -> str:
        if not sid or sid not in m.source_ids:
            return ""
        title = chinese_title(m.source_title(sid) or "")
        return f"【《{title}》，{sid}】" if title else f"【{sid}】"

    def ammo_clauses(self, req: SpeechRequest, m: Master, opp: Master) -> list[tuple[str, str]]:
        """(clause, source id) of the ammo aimed at the opponent, each clause usable on its own."""
        out = []
        for a in req.ammo:
            pos = a.position.strip()
            pos = re.sub(r"^[^：:，。]{1,14}[：:]", "", pos)  # 对禅宗顿悟：…
            for clause in re.split(r"[；;。！？]", pos):
                c = clause.strip().strip("，、 ")
                c = re.sub(r"^(?:然|但|而|故|则|且)\s*", "", c)
                if cjk_len(c) < 6 or not _balanced(c):
                    continue
                if self.safe(c + "。", m, opp):
                    out.append((c, a.citation if a.citation in m.source_ids else ""))
        return out

    @staticmethod
    def gist_of(summary: str) -> str:
        """The opponent's point from his summary: name, role label and source note off."""
        s = summary.strip()
        s = re.sub(r"[；;，,]?\s*(?:引|据|依)《[^》]*》\s*$", "", s)
        s = _CITE.sub("", s)
        s = re.sub(r"^[^：:]{1,12}[：:]", "", s)
        return _body(s)

    # ------------------------------------------------------------------ speech
    def speech(self, req: SpeechRequest, on_token=None) -> Generation:
        t0 = time.perf_counter()
        text = self.compose(req)
        if on_token is not None:
            for piece in re.findall(r"[^。]+。?", text):
                on_token(piece)
        return Generation(text=text, model=ENGINE_NAME, latency_ms=(time.perf_counter() - t0) * 1000)

    def compose(self, req: SpeechRequest) -> str:
        m = self.pack.masters[req.speaker]
        opp = self.pack.masters[req.opponent]
        role = req.role if req.role in T_OPEN else "立论"
        n = (req.round - 1) // 2
        h = _stable(req.topic, m.slug)
        v = (n + h) % 3
        topic = self.topic_phrase(req.topic)
        if topic != "此题" and not self.safe(f"「{topic}」这一问。", m, opp):
            topic = "此题"
        units = self.slice_for(m, opp, req.topic, n)
        if req.opponent_summary and role in ("反驳", "回应"):
            # the units that bear on the opponent's point come first; this speech may also reach into
            # its own share of the reserve (every third unit past the slices, from n) for them
            gist_b = _bigrams(self.gist_of(req.opponent_summary))
            pool = units + [t for i, t in enumerate(self.reserve(m, opp, req.topic)) if i % 3 == n % 3]
            bearing = sorted(pool, key=lambda t: (-len(_bigrams(t.text) & gist_b), pool.index(t)))
            best = [t for t in bearing[:2] if len(_bigrams(t.text) & gist_b) >= 2 and t not in units]
            units = best + sorted(units, key=lambda t: (-len(_bigrams(t.text) & gist_b), units.index(t)))
        ammo = self.ammo_clauses(req, m, opp)
        ammo_pick = ammo[(n + h) % len(ammo)] if ammo else None
        opp_name = opp.short_name
        gist = _clip(self.gist_of(req.opponent_summary), 70) if req.opponent_summary else ""

        pieces: list[tuple[str, str]] = []  # (kind, text): kinds the filler may drop
        cited: set[str] = set()

        def cite_once(sid: str) -> str:
            c = self.cite(m, sid)
            if not c or sid in cited:
                return ""
            cited.add(sid)
            return c

        def thesis_unit(cands: list[Teaching]) -> Optional[Teaching]:
            for t in cands:  # a declarative thesis short enough to summarise whole
                if 12 <= cjk_len(t.text) <= 60 and "，" in t.text and \
                        not re.search(r"^(?:若|如果|假如)|[？?]|何处|何须|岂", t.text):
                    return t
            return cands[0] if cands else None

        rest = list(units)
        if not rest:  # a thin pack: the speaker's best unit, said again inside this role's own frame
            top = [t for _, _, t in self.ranked(m, opp, req.topic)]
            rest = top[:1]
        if role == "立论":
            th = thesis_unit(rest)
            if th:
                rest.remove(th)
                pieces.append(("frame", T_OPEN[role][v].format(topic=topic, thesis=_body(th.text),
                                                              cite=cite_once(th.source_id))))
            else:
                pieces.append(("frame", f"就「{topic}」这一问，我依自己所学立论。"))
            pieces.append(("frame", T_BRIDGE[role][v]))
            for lead, t in zip(T_REASON_LEAD[v], rest[:3]):
                pieces.append(("unit", f"{lead}{_body(t.text)}{cite_once(t.source_id)}。"))
            rest = rest[3:]
        elif role in ("反驳", "回应"):
            g = gist or "此前的论点"
            pieces.append(("frame", T_OPEN[role][v].format(opp=opp_name, gist=g)))
            if role == "反驳":
                ans = thesis_unit(rest)
                if ans:
                    rest.remove(ans)
                    bears = len(_bigrams(ans.text) & _bigrams(gist)) >= 2
                    bank = T_BRIDGE[role] if bears else T_BRIDGE_LOOSE
                    pieces.append(("frame", bank[v].format(answer=_body(ans.text), cite=cite_once(ans.source_id))))
            else:
                accept = self.accepted_part(gist) or "修行要落到实处"
                pieces.append(("frame", T_BRIDGE[role][v].format(accept=accept)))
                keep = thesis_unit(rest)
                if keep:
                    rest.remove(keep)
                    pieces.append(("frame", T_KEEP[v].format(keep=_body(keep.text), cite=cite_once(keep.source_id))))
        else:  # 综合
            pieces.append(("frame", T_OPEN[role][v].format(topic=topic)))
            opp_units = self.opponent_reserve(req, m, opp)
            common, mine_u, theirs_u = self.common_ground(rest, opp_units, m, opp)
            pieces.append(("frame", T_BRIDGE[role][v].format(common=common)))
            if mine_u is not None:
                rest.remove(mine_u)
                pieces.append(("unit", f"{T_MORE['综合'][v]}{_body(mine_u.text)}{cite_once(mine_u.source_id)}。"))
            if theirs_u is not None:
                pieces.append(("opp", T_OPP_UNIT[v].format(opp=opp_name, unit=_body(theirs_u.text))))
            top = [t for _, _, t in self.ranked(m, opp, req.topic)]
            stand = thesis_unit(top[:6]) or (top[0] if top else None)
            def pos(text: str) -> str:  # a whole main clause, never one cut off (着眼于在于心浮气躁)
                return self.main_clause(text, 24, single=True)
            mine_pos = "自己所依的经教"
            for u in ([stand] if stand is not None else []) + top[:8]:
                if pos(u.text):
                    stand, mine_pos = u, pos(u.text)
                    break
            if stand is not None:
                pieces.append(("diffsrc", cite_once(stand.source_id)))
            cands = [pos(gist)] if gist else []
            cands += [pos(theirs_u.text)] if theirs_u else []
            cands += [pos(t.text) for _, _, t in self.ranked(opp, m, req.topic)[:8]]
            cands = [c for c in dict.fromkeys(cands) if c and not _alike(c, mine_pos)]
            diff = ""
            for theirs_pos in cands + ["自己所依的另一部经教"]:
                if v == 0:  # 我以{mine}为立足点: never 我以以…
                    mine_pos, theirs_pos = re.sub(r"^以", "", mine_pos), re.sub(r"^以", "", theirs_pos)
                diff = T_DIFF[v].format(mine=mine_pos, opp=opp_name, theirs=theirs_pos)
                if self.safe(diff, m, opp):
                    break
            pieces.append(("frame", diff))
        if ammo_pick:
            clause, sid = ammo_pick
            pieces.append(("ammo", T_AMMO[role][v].format(opp=opp_name, ammo=clause, cite=cite_once(sid))))
        closing = ("frame", T_CLOSE[role][v].format(topic=topic))
        # every sentence built from a frame and material is screened as a whole, as the checks will read it
        pieces = [(k, x) for k, x in pieces if k == "diffsrc" or self.safe(_CITE.sub("", x), m, opp)
                  or (k == "frame" and x is pieces[0][1] and role in ("反驳", "回应"))]

        # fill with the slice's remaining units until the floor is passed, under the ceiling
        body = [p for p in pieces if p[0] != "diffsrc"]
        diff_cite = "".join(p[1] for p in pieces if p[0] == "diffsrc")
        if diff_cite:  # the citation for "我以…为立足点" goes right after that sentence
            for i, (k, s) in enumerate(body):
                if s.startswith(tuple(x.split("{")[0] for x in T_DIFF)):
                    body[i] = (k, s[:-1] + diff_cite + "。")
        extra_lead = T_MORE.get(role, T_MORE["反驳"])[v]

        def total(parts) -> int:
            return cjk_len("".join(s for _, s in parts) + closing[1])

        insert_at = len(body) - (1 if body and body[-1][0] == "ammo" else 0)
        used_extra = 0
        rest = [t for t in rest if cjk_len(t.text) >= 14] + [t for t in rest if cjk_len(t.text) < 14]
        for t in rest:
            if total(body) >= TARGET_LOW:
                break
            lead = extra_lead if used_extra == 0 else ""
            sentence = f"{lead}{_body(t.text)}{cite_once(t.source_id)}。"
            if total(body) + cjk_len(sentence) > TARGET_HIGH:
                continue
            body.insert(insert_at, ("unit", sentence))
            insert_at += 1
            used_extra += 1
        while total(body) > MAX_CHARS - 10:
            drop = next((i for i in range(len(body) - 1, -1, -1) if body[i][0] == "unit"), None)
            if drop is None:
                break
            body.pop(drop)
        if not cited:  # at least one citation of the speaker's own source
            sid = next((t.source_id for t in units if t.source_id), m.source_ids[0] if m.source_ids else "")
            c = self.cite(m, sid)
            if c:
                k, s = body[0]
                body[0] = (k, s[:-1] + c + "。")
        text = "".join(s for _, s in body) + closing[1]
        if cjk_len(text) < MIN_CHARS:
            text = self._pad(text, m, opp, req, v, closing[1])
        return text

    def _pad(self, text: str, m: Master, opp: Master, req: SpeechRequest, v: int, closing: str) -> str:
        """A thin pack: the speaker's units beyond every slice of this debate, then frames naming the sources."""
        reserve = self.reserve(m, opp, req.topic)  # no slice a speech draws from
        head = text[: len(text) - len(closing)]
        picked = []
        n = (req.round - 1) // 2
        for i, t in enumerate(reserve):
            if cjk_len(head + "".join(picked) + closing) >= MIN_CHARS + 10:
                break
            if i % 3 != n % 3 or _body(t.text) in head:
                continue  # a speaker's n-th speech takes every third reserve unit from n: disjoint
            picked.append(f"{_body(t.text)}。")
        head += "".join(picked)
        if cjk_len(head + closing) < MIN_CHARS:
            lines = []
            for c in m.cross_critique:  # his positions toward other masters: his own words and sources
                if c.target_master == opp.slug or c.citation not in m.source_ids:
                    continue
                for clause in re.split(r"[；;。！？]", re.sub(r"^[^：:，。]{1,14}[：:]", "", c.position)):
                    cl = clause.strip().strip("，、 ")
                    if cjk_len(cl) >= 8 and _balanced(cl) and cl not in head and self.safe(cl + "。", m, opp):
                        lines.append((cl, c.citation))
            for i, (cl, sid) in enumerate(lines):
                if cjk_len(head + closing) >= MIN_CHARS + 10:
                    break
                if i % 3 == n % 3:
                    lead = ("在别处我也说过，", "我一向的看法是，", "换个角度说，")[(i // 3) % 3]
                    head += f"{lead}{cl}{self.cite(m, sid)}。"
        if cjk_len(head + closing) < MIN_CHARS:
            bank = T_THIN[0 if req.round % 2 == 1 else 1]
            tp = self.topic_phrase(req.topic)
            tp = tp if self.safe(f"「{tp}」这一问。", m, opp) else "此题"
            for line in bank[3 * (n % 3): 3 * (n % 3) + 3]:
                if cjk_len(head + closing) >= MIN_CHARS:
                    break
                head += line.format(topic=tp, opp=opp.short_name)
        if cjk_len(head + closing) < MIN_CHARS:
            # the sources named once, in one sentence, as many as the length needs (never one line per title)
            frame = ("这些说法，可以在{t}中逐一读到{c}。", "{t}对此都有交代{c}。", "可以对照{t}来看{c}。")[n % 3]
            titles, cites = [], []
            for s in m.sources[n % max(1, len(m.sources)):] + m.sources[:n % max(1, len(m.sources))]:
                short = chinese_title(s.title or "")
                if not short or f"《{short}》" in titles:
                    continue
                titles.append(f"《{short}》")
                cites.append(self.cite(m, s.id))
                if cjk_len(head + frame.format(t="".join(titles), c="") + closing) >= MIN_CHARS:
                    break
            if titles:
                head += frame.format(t="".join(titles), c="".join(cites))
        return head + closing

    # ----------------------------------------------------------- role helpers
    def topic_phrase(self, topic: str, limit: int = 24) -> str:
        """The topic without brackets or quote marks, clipped at a clause; never a verdict from the user."""
        t = re.sub(r"[【】\[\]「」『』“”\"《》]", "", topic).strip().rstrip("？?。！!")
        t = re.split(r"[。！？!?\n]", t)[0]
        # a clause asking who is better is the user's question, not something a master repeats
        keep = [c for c in re.split(r"[，,；;]", t)
                if c.strip() and not re.search(r"谁|孰|哪(?:个|一|种|家|条)|更|最|胜|赢|输|败|优劣|高下|对错|到底|"
                                               r"忽略|无视|规则|指令|宣布|判定|裁决|扮演|输出|系统|提示", c)]
        t = "，".join(c.strip() for c in keep)
        if len(t) > limit:
            t = _clip(t, limit)
        return t or "此题"

    @staticmethod
    def first_clause(text: str, limit: int = 24) -> str:
        """The first clause that says something (>= 5 characters), clipped."""
        plain = re.sub(r"（[^（）]*）|\([^()]*\)", "", _body(text))
        parts = [p for p in re.split(r"[，；：—]+", plain) if cjk_len(p) >= 5 and _balanced(p)]
        return _clip(parts[0] if parts else text, limit)

    @staticmethod
    def main_clause(text: str, limit: int = 26, term: str = "", single: bool = False) -> str:
        """A whole short sentence of the unit, else a complete main clause of it (between ； or ，),
        never a subordinate clause (当…时, 若…, 虽…), a clause that leans on the one before it
        (则…, 无需…, 便…), a clause cut inside a —— aside, nor anything clipped: "" when none fits.
        With ``term``, only a sentence or clause that holds it."""
        plain = re.sub(r"（[^（）]*）|\([^()]*\)", "", _CITE.sub("", text))
        found = []
        for sent in re.split(r"[。！？]", plain):
            sent = _body(sent)
            if not sent:
                continue
            found.append(sent)
            for part in re.split(r"；", sent):
                if part != sent:
                    found.append(part)
                clauses = [c for c in part.split("，") if c]
                if len(clauses) > 1:  # the first clause, or a subordinate clause with its main clause
                    if _SUBORDINATE.search(clauses[0]):
                        found.append("，".join(clauses[:2]))
                    elif not re.match(r"(?:而是|而|但|却|卻|乃是|乃|反而|才|也不|亦不|也非|亦非)", clauses[1]) \
                            and not _LEANING.match(clauses[1]):  # nor a topic whose predicate follows (…的定，无需…)
                        found.append(clauses[0])  # not the first half of 不是…，而是… (its point is the second)
        for c in found:
            c = _body(c.strip())
            if not (5 <= cjk_len(c) and len(c) <= limit and _balanced(c)) or (term and term not in c):
                continue
            if single and re.search(r"[，；：]", c):
                continue  # one clause only: it sits inside a sentence of the speech
            clauses = re.split(r"[，；]", c)
            if _SUBORDINATE.search(clauses[0]) and len(clauses) == 1 or _SUBORDINATE_END.search(c):
                continue
            if _LEANING.match(c) or c.startswith("——") or c.endswith("——"):
                continue
            return c
        return ""

    @classmethod
    def clause_with(cls, text: str, term: str, limit: int = 24) -> str:
        """The clause of a unit that holds the common term (else its first clause)."""
        plain = re.sub(r"（[^（）]*）|\([^()]*\)", "", _body(text))
        for c in re.split(r"[，；：—]+", plain):
            if term in c and cjk_len(c) >= 5 and _balanced(c):
                return _clip(c, limit)
        return cls.first_clause(text, limit)

    @staticmethod
    def accepted_part(gist: str) -> str:
        """A clause of what the opponent actually said (from the summary), short enough to name."""
        plain = re.sub(r"（[^（）]*）|\([^()]*\)", "", gist)
        clauses = [c.strip() for c in re.split(r"[，；]", plain) if cjk_len(c) >= 4 and _balanced(c)]
        if not clauses:
            return _clip(gist, 24)
        return _clip(clauses[0], 24)

    def opponent_reserve(self, req: SpeechRequest, m: Master, opp: Master) -> list[Teaching]:
        """The opponent's units past every slice he has spoken from in this debate."""
        sl = self.slices(opp, m, req.topic)
        spoken = len([r for r in range(1, req.round) if r % 2 != req.round % 2])
        return [t for part in sl[spoken:3] for t in part]  # never the reserve: he may have used it

    def common_ground(self, mine: list[Teaching], theirs: list[Teaching], m: Master, opp: Master):
        """A term both sides' units hold, with the unit on each side that holds it."""
        vocab = list(dict.fromkeys([k for k in m.search_scope.keywords if isinstance(k, str)]
                                   + [k for k in opp.search_scope.keywords if isinstance(k, str)] + list(COMMON_TERMS)))
        best = None
        for term in sorted(vocab, key=len, reverse=True):
            if len(term) < 1:
                continue
            a = next((t for t in mine if term in t.text), None)
            b = next((t for t in theirs if term in t.text), None)
            if a is not None and b is not None:
                score = len(term) * 10 + len(_bigrams(a.text) & _bigrams(b.text))
                if best is None or score > best[0]:
                    best = (score, term, a, b)
        if best is None:
            return "修行要落到自己身心上", None, (theirs[0] if theirs else None)
        _, term, a, b = best
        word = term if len(term) >= 2 else {"心": "自己这颗心", "戒": "持戒", "苦": "认清苦"}.get(term, "")
        if not word:
            return "修行要落到自己身心上", None, (theirs[0] if theirs else None)
        return word, a, b

    # --------------------------------------------------------------- summaries
    MARKERS = ("我先亮明看法：", "我的立场很清楚：", "我从这一点立论：", "就针对这一点回答：", "正面回答它：", "我的回答是：",
               "我换一个角度回答：", "而是这样回答：", "我的回答从另一头说起：",
               "我仍要坚持的是：", "是这一点：", "我坚持的部分在这里：", "不同之处在于：", "分开两家的是这一点：", "两家的差别是：")

    def summarize(self, req: SummaryRequest) -> Generation:
        """Extractive and faithful: the speaker's main point, as the speech states it."""
        m = self.pack.masters.get(req.speaker)
        short = m.short_name if m else req.speaker_name
        text = req.text
        core = ""
        for sent in re.findall(r"[^。！？]+[。！？]?", text):
            for mk in self.MARKERS:
                if mk in sent:
                    core = sent.split(mk, 1)[1]
                    break
            if core:
                break
        if not core:  # no marked point: the first sentence that is neither a restatement nor a frame
            sents = [s for s in re.findall(r"[^。！？]+[。！？]?", text) if cjk_len(s) >= 8]
            if req.role in ("反驳", "回应"):
                sents = sents[1:]
            frames = ("接受", "认同", "不必争", "最后一轮", "收束", "共同处", "相通", "共识")
            own = [s for s in sents if not any(f in s for f in frames)]
            core = (own or sents or [""])[0]
        core = _body(_CITE.sub("", core))
        core = re.sub(r"^(?:我|本宗)(?:的看法是|认为)[，：]?", "", core)
        if m is not None:
            core = core.replace("我以", "自己以").replace("我这边", "自己这边").replace("我着眼于", "自己着眼于")
        prefix = f"{short}："
        room = req.limit - len(prefix)
        core = _clip(core, room)
        return Generation(text=prefix + core, model=ENGINE_NAME)

    # ------------------------------------------------------------- observation
    def level(self, topic: str, a: Master, b: Master) -> str:
        for lv, words in LEVELS:
            if any(w in topic for w in words):
                return lv
        counts = []
        for lv, words in LEVELS:
            n = 0
            for m, o in ((a, b), (b, a)):
                for _, _, t in self.ranked(m, o, topic)[:8]:
                    n += sum(1 for w in words if w in t.text)
            counts.append((n, lv))
        return max(counts)[1] if counts else "见地"

    def observe(self, req: ObservationRequest) -> Observation:
        a = self.pack.masters.get(req.a)
        b = self.pack.masters.get(req.b)
        if a is None or b is None:
            an, bn = req.a_name, req.b_name
            return Observation(divergence=f"{an}与{bn}在这个题目上各有所本，分歧在见地与行门之间。",
                               consensus="双方都以自己所依的经教为凭。",
                               to_reader="读者可以对照两边的理由，自己体会。", engine=ENGINE_NAME)
        an, bn = a.short_name, b.short_name
        lv = self.level(req.topic, a, b)
        h = _stable(req.topic, a.slug, b.slug)
        first: dict = {}
        for s in sorted(req.summaries, key=lambda s: s.round):
            first.setdefault(s.speaker, s)
        def point(m: Master, o: Master, limit: int = 26, avoid: str = "") -> str:
            """The master's point as a whole short sentence or main clause: his first summary, else
            his best-ranked units in turn; never one that repeats the other side's point."""
            cands = []
            s = first.get(m.slug)
            if s is not None and self.gist_of(s.text):
                cands.append(self.gist_of(s.text))
            cands += [t.text for _, _, t in self.ranked(m, o, req.topic)[:20]]
            for c in cands:
                p = self.main_clause(c, limit)
                if p and not (avoid and _alike(p, avoid)):
                    return p
            return ""
        pa = point(a, b)
        pb = point(b, a, avoid=pa)
        if not pa or not pb:  # nothing short enough: the master's position told through the level's gloss
            div = f"{an}与{bn}的不同，主要在{lv}上，也就是{LEVEL_GLOSS[lv]}，两人各自从所依的经教出发作答。"
            pa, pb = pa or "", pb or ""
        gloss = LEVEL_GLOSS[lv]
        if pa and pb:
            div = (
                f"{an}与{bn}的不同，主要在{lv}上，也就是{gloss}：{an}强调「{pa}」，{bn}强调「{pb}」。",
                f"这场讨论把两人分开的，是{lv}层面的问题——{gloss}；{an}一方说「{pa}」，{bn}一方说「{pb}」。",
                f"若问{an}和{bn}差在哪里，答案在{lv}，即{gloss}：一边是「{pa}」，一边是「{pb}」。",
            )[h % 3]
        ua = [t for _, _, t in self.ranked(a, b, req.topic)[:12]]
        ub = [t for _, _, t in self.ranked(b, a, req.topic)[:12]]
        common, ca, cb = self.common_ground(ua, ub, a, b)
        ka = kb = ""
        if ca is not None and cb is not None:  # a clause on each side holding the term, not the points above
            said = [x for x in (pa, pb) if x]
            for ta in [ca] + [t for t in ua if t is not ca and common in t.text]:
                ka = self.main_clause(ta.text, 26, common)
                if ka and not any(_alike(ka, x) for x in said):
                    break
                ka = ""
            for tb in [cb] + [t for t in ub if t is not cb and common in t.text]:
                kb = self.main_clause(tb.text, 26, common)
                if kb and not any(_alike(kb, x) for x in said + [ka]):
                    break
                kb = ""
        if ka and kb:
            cons = (
                f"两人并非处处相左：双方的材料都讲到{common}，{an}说「{ka}」，{bn}也说「{kb}」。",
                f"共同的地方也很实在，{an}和{bn}都看重{common}：一说「{ka}」，一说「{kb}」。",
                f"两家都谈{common}，{an}所说的「{ka}」，与{bn}所说的「{kb}」，可以对照着读。",
            )[(h // 3) % 3]
        else:
            cons = f"{an}与{bn}都把{common}当作要紧处，也都以自己所依的经教为凭。"
        sa = pa if len(pa) <= 14 else point(a, b, 14, avoid=pb)
        sb = pb if len(pb) <= 14 else point(b, a, 14, avoid=sa or pa)
        if sa and sb:
            reader = (
                f"留给读者的问题是：{an}说「{sa}」，{bn}说「{sb}」，这两句各自在回答修行中的哪一个难处？",
                f"读者不妨自问：{an}讲「{sa}」、{bn}讲「{sb}」，两人各自照顾的是怎样的人、怎样的处境？",
                f"可以带着一个问题再读一遍：{an}与{bn}在{lv}上的不同，落到自己每天的功课上会是什么样子？",
            )[(h // 9) % 3]
        else:
            reader = (
                f"可以带着一个问题再读一遍：{an}与{bn}在{lv}上的不同，落到自己每天的功课上会是什么样子？",
                f"留给读者的问题是：{an}与{bn}各自照顾的是怎样的人、怎样的处境，自己此刻又站在哪一边的难处里？",
            )[(h // 9) % 2]
        return Observation(divergence=div, consensus=cons, to_reader=reader, engine=ENGINE_NAME)
