"""The teaching units a speaker may speak from: safety, relevance ranking, slices, citations, ammo,
common ground.  :class:`Units` is the engine's base: it holds the pack and the caches."""

from __future__ import annotations

import re

from debate_core.checks import CheckContext, check_hygiene, check_no_dialogue, check_no_verdict
from debate_core.content.titles import chinese_title
from debate_core.content.pairing import pair_table
from debate_core.engines.offline.text import balanced, bigrams, cjk_len, stable_hash
from debate_core.models import Master, Pack, SpeechRequest, Teaching

ENGINE_NAME = "offline"

# Words both sides of any pair may share: what a common ground can be named by.
COMMON_TERMS = (
    "自心", "本心", "心性", "佛性", "自性", "觉知", "觉照", "正念", "觉悟", "烦恼", "妄念", "执著", "执取", "放下", "戒律",
    "持戒", "禅定", "智慧", "般若", "止观", "修行", "功夫", "次第", "因果", "缘起", "空性", "无常", "无我", "解脱", "涅槃",
    "菩提", "慈悲", "众生", "生死", "轮回", "出离", "信心", "发心", "善知识", "上师", "经教", "念佛", "参禅", "当下",
    "日用", "平常", "实修", "精进", "闻思", "定慧", "戒定慧", "中道", "业果", "净土", "见性", "法门", "根机", "方便",
    "心", "戒", "定", "慧", "念", "空", "苦",
)


_NEGATION = re.compile(r"何须|何必|何劳|何用|不必|无须|无需|毋须|不须|不用|不在|不靠|不假|不落|不执|不拘|不是|并非|非|莫|勿|离开|舍弃|放下")


def affirms(text: str, term: str) -> bool:
    """Does ``text`` hold ``term`` as something it affirms?  Not when every mention is denied or set
    aside (心地平正又何须另外持戒 does not hold 持戒 as the important thing)."""
    for m in re.finditer(re.escape(term), text):
        if _NEGATION.search(text[max(0, m.start() - 5): m.start()]):
            continue
        a = max(text.rfind(c, 0, m.start()) for c in "，。；：")
        ends = [i for i in (text.find(c, m.end()) for c in "，。；：") if i >= 0]
        if re.search(r"(?:是|为|為|属|屬)(?:一种|一時的?)?方便|权宜|權宜", text[a + 1: min(ends) if ends else len(text)]):
            continue  # 经教、念佛、持戒都是方便: named as a means, not held as the important thing
        return True
    return False


# characters that carry grammar, not content: a topic bigram holding one (之人, 是否, 需要) says
# nothing about what the topic is about
_FUNCTION_CHARS = set("之的是否了与和及或在于以而也其此这那为一不何如当要需应该能可吗呢么谁哪些个有无都")


def topic_bigrams(topic: str) -> set[str]:
    """The topic's content bigrams: those without a function character."""
    return {b for b in bigrams(topic) if not (set(b) & _FUNCTION_CHARS)}


class Units:
    """The pack's teaching units as one speaker of one pair may use them."""

    def __init__(self, pack: Pack):
        self.pack = pack
        self._ranked: dict[tuple[str, str, str], list[tuple[int, dict, Teaching]]] = {}
        self._safe: dict[tuple[str, str], bool] = {}
        self._ctx = None
        self._ctx_key: tuple[str, str] = ("", "")

    # ---------------------------------------------------------------- safety
    def _context(self, m: Master, opp: Master) -> CheckContext:
        names = [n for x in self.pack.masters.values() for n in (x.name, x.short_name)]
        return CheckContext(pack=self.pack, speaker=m, opponent=opp, role="立论", ammo=[], opponent_summary="",
                            pack_source_ids=self.pack.all_source_ids(), names=names)

    def safe(self, text: str, m: Master, opp: Master) -> bool:
        """A sentence the speech may hold: no verdict, no dialogue, no hygiene problem, as the checks see it."""
        key = (m.slug + ">" + opp.slug, text)
        if key not in self._safe:
            if self._ctx_key != (m.slug, opp.slug):
                self._ctx, self._ctx_key = self._context(m, opp), (m.slug, opp.slug)
            rules = (check_no_verdict, check_no_dialogue, check_hygiene)
            self._safe[key] = all(rule(text, self._ctx).passed for rule in rules)
        return self._safe[key]

    # ------------------------------------------------------------- relevance
    def _row_terms(self, m: Master, opp: Master) -> tuple[list[str], list[str]]:
        rows = pair_table().get("rows", [])
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
        tb = bigrams(t.text)
        topic_b = topic_bigrams(topic)
        parts = {
            "topic": 3 * len(tb & topic_b),
            "row": 2 * sum(1 for term in row_terms if len(term) >= 2 and term in t.text),
            "keywords": 2 * sum(1 for k in m.search_scope.keywords
                                if isinstance(k, str) and len(k) >= 2 and k in topic and k in t.text),
            "heading": len(bigrams(t.heading) & topic_b),
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
        out.sort(key=lambda x: (-x[0], stable_hash(topic, m.slug, x[2].text)))
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
                if cjk_len(c) < 6 or not balanced(c):
                    continue
                conc = re.search(r"固(?:是|然|为|為|有)|^虽|^雖|诚然|誠然|尽管|儘管", c)
                if conc and not re.search(r"却|卻|但|然而|可是|不过|不過|只是", c[conc.end():]):
                    continue  # a concession alone (顿悟一念固是事) grants the opponent something: it is no critique
                if self.safe(c + "。", m, opp):
                    out.append((c, a.citation if a.citation in m.source_ids else ""))
        return out

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
            a = next((t for t in mine if affirms(t.text, term)), None)
            b = next((t for t in theirs if affirms(t.text, term)), None)
            if a is not None and b is not None:
                score = len(term) * 10 + len(bigrams(a.text) & bigrams(b.text))
                if best is None or score > best[0]:
                    best = (score, term, a, b)
        if best is None:
            return "把修行落到自己身心上", None, (theirs[0] if theirs else None)
        _, term, a, b = best
        word = term if len(term) >= 2 else {"心": "自己这颗心", "戒": "持戒", "苦": "认清苦"}.get(term, "")
        if not word:
            return "把修行落到自己身心上", None, (theirs[0] if theirs else None)
        return word, a, b
