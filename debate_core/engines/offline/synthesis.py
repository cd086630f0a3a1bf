"""The round summaries and the closing neutral observation (分歧本质, 共识点, 留给读者)."""

from __future__ import annotations

import re

from debate_core.engines.gateway import Generation
from debate_core.engines.offline.clauses import Clauses
from debate_core.engines.offline.text import CITE, alike, bare, cjk_len, clip, stable_hash
from debate_core.engines.offline.units import ENGINE_NAME, Units
from debate_core.models import Master, Observation, ObservationRequest, SummaryRequest

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


class Synthesis(Units, Clauses):
    """What the engine says about speeches rather than in them."""

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
        core = bare(CITE.sub("", core))
        core = re.sub(r"^(?:我|本宗)(?:的看法是|认为)[，：]?", "", core)
        if m is not None:
            core = core.replace("我以", "自己以").replace("我这边", "自己这边").replace("我着眼于", "自己着眼于")
        prefix = f"{short}："
        room = req.limit - len(prefix)
        core = clip(core, room)
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
        h = stable_hash(req.topic, a.slug, b.slug)
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
                if p and not (avoid and alike(p, avoid)):
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
                if ka and not any(alike(ka, x) for x in said):
                    break
                ka = ""
            for tb in [cb] + [t for t in ub if t is not cb and common in t.text]:
                kb = self.main_clause(tb.text, 26, common)
                if kb and not any(alike(kb, x) for x in said + [ka]):
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
