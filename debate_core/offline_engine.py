"""The embedded default engine: offline, deterministic, retrieval-based (no LLM).

It composes each speech from the speaker's own pack material only: the ammo
aimed at the opponent, the topic-relevant key points of the speaker's excerpt
files (with their source ids as citations), and the opponent's <=80-character
summary for the restatement.  It reads no earlier speech, so isolation holds
here exactly as it does for a model.  Every fragment is screened with the same
functions the checks use, so its speeches pass the checks by construction.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Optional

from .checks import MAX_CHARS, MIN_CHARS, cjk_len, find_citations, is_safe_fragment
from .gateway import Generation
from .models import Master, Observation, ObservationRequest, Pack, SpeechRequest, SummaryRequest

ENGINE_NAME = "offline"
_CLAUSE = re.compile(r"[^，。；！？,;!?\n]+")


def _stable(*parts: object) -> int:
    return int(hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()[:8], 16)


def _bigrams(text: str) -> set[str]:
    t = re.sub(r"\s", "", text)
    return {t[i:i + 2] for i in range(len(t) - 1)}


def _sentence(text: str) -> str:
    text = text.strip().rstrip("。；;，, ")
    return text + "。" if text else ""


def strip_ids(text: str, known_ids) -> str:
    """Remove citation-shaped ids (and brackets left empty) from a summary-like text."""
    for cid in sorted(find_citations(text, known_ids), key=len, reverse=True):
        text = text.replace(cid, "")
    text = re.sub(r"[（(【\[]\s*[/、,，\s]*[）)】\]]", "", text)
    text = re.sub(r"\s*[/、]\s*(?=[；。，]|$)", "", text)
    return re.sub(r"\s{2,}", " ", text).strip()


class OfflineEngine:
    """Implements the master-debate engine interface: speech, summarize, observe."""

    name = ENGINE_NAME

    def __init__(self, pack: Pack):
        self.pack = pack

    # ---------------------------------------------------------------- material
    def _names(self) -> list[str]:
        out = []
        for m in self.pack.masters.values():
            out += [m.name, m.short_name]
        return out

    def safe_topic(self, topic: str, limit: int = 24) -> str:
        """The topic's clauses that carry no verdict or dialogue, clipped."""
        names = self._names()
        clauses = [c.strip() for c in _CLAUSE.findall(topic) if c.strip() and is_safe_fragment(c, names)]
        text = "，".join(clauses) or "此议题"
        text = re.sub(r"[【】\[\]「」]", "", text)
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def _points(self, m: Master, req: SpeechRequest) -> list[tuple[str, str]]:
        """(point, source id) pairs ranked by relevance to the topic and the opponent."""
        names = self._names()
        topic_grams = _bigrams(req.topic)
        opp_grams = _bigrams(req.opponent_summary)
        keywords = [k for k in m.search_scope.keywords if len(k) >= 2 and k in req.topic]
        default_sid = m.sources[0].id if m.sources else ""
        scored = []
        for ei, ex in enumerate(m.excerpts):
            sid = ex.source_id or default_sid
            head_score = len(_bigrams(ex.heading) & topic_grams) * 2
            own = set(m.source_ids)
            for pi, p in enumerate(ex.points):
                if cjk_len(p) < 6 or not is_safe_fragment(p, names):
                    continue
                if any(c not in own for c in find_citations(p, self.pack.all_source_ids())):
                    continue  # a point naming another text's id would cite outside the speaker's sources
                score = (head_score + len(_bigrams(p) & topic_grams) * 3 + len(_bigrams(p) & opp_grams)
                         + sum(4 for k in keywords if k in p or k in ex.heading))
                tie = _stable(req.topic, m.slug, ei, pi)
                scored.append((-score, tie, p, sid))
        scored.sort()
        ranked = [(p, sid) for _, _, p, sid in scored]
        if not ranked and m.sources:
            ranked = [(f"本宗所依的{s.title}，是我立论的根据", s.id) for s in m.sources]
        turn = (req.round - 1) // 2  # this speaker's n-th speech: rotate to fresh points
        k = (turn * 3) % max(1, len(ranked))
        return ranked[k:] + ranked[:k]

    def _cite(self, m: Master, sid: str) -> str:
        title = m.source_title(sid)
        return f"【《{title}》，{sid}】" if title else f"【{sid}】"

    # ------------------------------------------------------------------ speech
    def speech(self, req: SpeechRequest, on_token=None) -> Generation:
        t0 = time.perf_counter()
        m = self.pack.masters[req.speaker]
        names = self._names()
        topic = self.safe_topic(req.topic)
        opp = req.opponent_name
        ammo = [a for a in req.ammo if is_safe_fragment(a.position, names)]
        points = self._points(m, req)
        v = _stable(req.topic, req.speaker, req.round)

        head: list[str] = []
        tail: list[str] = []
        if req.role == "立论":
            head.append(f"就「{topic}」一问，{m.short_name}依{m.school or m.tradition}的本怀立论，先陈三条理由。")
            lead = ["其一，", "其二，", "其三，"]
        elif req.role in ("反驳", "回应"):
            summ = strip_ids(req.opponent_summary, self.pack.all_source_ids()).rstrip("。")
            head.append(f"先复述{opp}的原意——{summ}。")
            if req.role == "反驳":
                head.append("此说自有所本，然而细察其理，仍有可商量处，以下逐条回应。")
                lead = ["第一，", "第二，", "第三，"]
            else:
                head.append("对方所重的修行须落到实处，这一点可以部分接受；至于根本见地，本宗仍要坚持。")
                lead = ["所接受者，", "所坚持者，", "再作说明，"]
        else:  # 综合
            head.append(f"综合前面几轮，就「{topic}」作一收束，不抹平分歧，只把双方的位置说清。")
            lead = ["双方共许：", "仍然相异：", "给读者的话："]

        if ammo:
            a = ammo[v % len(ammo)]
            stance = a.position.rstrip("。")
            tail.append(f"对{opp}一路，本宗的看法是：{stance}{self._cite(m, a.citation) if a.citation in m.source_ids else ''}。")
        closing = {
            "立论": "以上三条，皆出自本宗所依经典，并非一家私见。",
            "反驳": "以上回应，只就对方所说而答，不另立新题。",
            "回应": "接受与坚持各有分寸，意在让分歧所在更加分明。",
            "综合": "两家所走之路不同，各有经教可循，读者可依自己的处境细细体会。",
        }[req.role if req.role in ("立论", "反驳", "回应", "综合") else "立论"]

        body: list[str] = []
        used_cite = False
        last_sid = ""

        def compose() -> str:
            return "".join(head + body + tail + [closing])

        def sentence_for(p: str, sid: str) -> str:
            prefix = lead[len(body)] if len(body) < len(lead) else ""
            cite = self._cite(m, sid) if sid and sid != last_sid else ""
            return prefix + _sentence(p)[:-1] + cite + "。"

        # Greedy fill: take ranked points that still fit under the ceiling until the floor is passed.
        for p, sid in points:
            if len(body) >= 3 and cjk_len(compose()) >= MIN_CHARS + 20:
                break
            candidate = sentence_for(p, sid)
            if cjk_len(compose() + candidate) > MAX_CHARS - 10:
                continue
            body.append(candidate)
            used_cite = used_cite or (bool(sid) and sid != last_sid)
            last_sid = sid or last_sid
        for src in m.sources:  # a thin pack: fall back on naming the sources themselves
            if cjk_len(compose()) >= MIN_CHARS + 5:
                break
            extra = f"此义在本宗所依的《{src.title}》中亦可印证{self._cite(m, src.id)}。"
            if cjk_len(compose() + extra) <= MAX_CHARS - 10:
                body.append(extra)
                used_cite = True
        if not used_cite and m.sources:
            body.append(f"此义可参{self._cite(m, m.sources[0].id)}。")
        text = compose()
        if on_token is not None:
            for piece in re.findall(r"[^。]+。?", text):
                on_token(piece)
        return Generation(text=text, model=ENGINE_NAME, latency_ms=(time.perf_counter() - t0) * 1000)

    # --------------------------------------------------------------- summaries
    def summarize(self, req: SummaryRequest) -> Generation:
        """Extractive: the speaker's name, role and the first point made, plus a source."""
        m = self.pack.masters.get(req.speaker)
        short = m.short_name if m else req.speaker_name
        sentences = [s for s in re.split(r"(?<=。)", req.text) if s.strip()]
        # skip framing sentences; take the first sentence that carries a citation or a point
        core = ""
        for s in sentences:
            if any(s.startswith(x) for x in ("先复述", "就「", "综合前面", "此说自有", "对方所重")):
                continue
            core = strip_ids(re.sub(r"【[^】]*】", "", s), self.pack.all_source_ids()).strip("。 ")
            core = re.sub(r"^(其[一二三]|第[一二三]|所接受者|所坚持者|再作说明|双方共许|仍然相异|给读者的话)[，：]", "", core)
            if core:
                break
        title = ""
        if m and req.citations:
            title = m.source_title(req.citations[0])
        cite = f"；引《{title}》" if title else ""
        prefix = f"{short}{req.role}："
        room = req.limit - len(prefix) - len(cite)
        if len(core) > room:
            core = core[: max(0, room - 1)] + "…"
        return Generation(text=prefix + core + cite, model=ENGINE_NAME)

    # ------------------------------------------------------------- observation
    LEVELS = [
        ("根机", ("末法", "根机", "初机", "众生", "下手", "直接", "容易", "难易")),
        ("判教", ("判教", "次第", "教观", "三士", "了义", "分判", "纲宗", "顿渐")),
        ("行门", ("念佛", "参禅", "持戒", "戒律", "行持", "内观", "禅修", "止观", "修行", "法门")),
        ("见地", ("空", "唯识", "自性", "中观", "见性", "应成", "佛性", "心识")),
    ]

    def observe(self, req: ObservationRequest) -> Observation:
        level = next((lv for lv, words in self.LEVELS if any(w in req.topic for w in words)), "见地")
        a = self.pack.masters.get(req.a)
        b = self.pack.masters.get(req.b)
        pa = (a.signature_phrases[:1] or [a.school])[0] if a else req.a_name
        pb = (b.signature_phrases[:1] or [b.school])[0] if b else req.b_name
        an = a.short_name if a else req.a_name
        bn = b.short_name if b else req.b_name
        return Observation(
            divergence=f"分歧落在{level}层面：{an}一方以「{pa}」为着眼处，{bn}一方以「{pb}」为着眼处，二者对下手处的安排不同。",
            consensus=f"双方都承认修行要落到自己的身心上，也都以本宗经典为凭，不以空谈代替实修。",
            to_reader=f"这不是谁对谁错的问题，{req.a_school or an}与{req.b_school or bn}是两条都走得通的路，可依自己的根性与处境去体会。",
            engine=ENGINE_NAME,
        )
