"""The speeches: 立论, 反驳, 回应 and 综合 built from the speaker's slice of units and the role's frames."""

from __future__ import annotations

import re
import time
from typing import Optional

from debate_core.content.titles import chinese_title
from debate_core.engines.gateway import Generation
from debate_core.engines.offline.clauses import Clauses
from debate_core.engines.offline.templates import (T_AMMO, T_BRIDGE, T_BRIDGE_LOOSE, T_CLOSE, T_DIFF, T_KEEP, T_MORE,
                                                   T_OPEN, T_OPP_UNIT, T_REASON_LEAD, T_THIN)
from debate_core.engines.offline.text import CITE, alike, balanced, bare, bigrams, cjk_len, clip, stable_hash
from debate_core.engines.offline.units import ENGINE_NAME, Units
from debate_core.models import Master, SpeechRequest, Teaching

MIN_CHARS, MAX_CHARS = 300, 500
TARGET_LOW, TARGET_HIGH = 330, 470


class Speeches(Units, Clauses):
    """One speech of a master-debate round, deterministic and sourced only from teachings and ammo."""

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
        h = stable_hash(req.topic, m.slug)
        v = (n + h) % 3
        topic = self.topic_phrase(req.topic)
        if topic != "此题" and not self.safe(f"「{topic}」这一问。", m, opp):
            topic = "此题"
        units = self.slice_for(m, opp, req.topic, n)
        if req.opponent_summary and role in ("反驳", "回应"):
            # the units that bear on the opponent's point come first; this speech may also reach into
            # its own share of the reserve (every third unit past the slices, from n) for them
            gist_b = bigrams(self.gist_of(req.opponent_summary))
            pool = units + [t for i, t in enumerate(self.reserve(m, opp, req.topic)) if i % 3 == n % 3]
            bearing = sorted(pool, key=lambda t: (-len(bigrams(t.text) & gist_b), pool.index(t)))
            best = [t for t in bearing[:2] if len(bigrams(t.text) & gist_b) >= 2 and t not in units]
            units = best + sorted(units, key=lambda t: (-len(bigrams(t.text) & gist_b), units.index(t)))
        ammo = self.ammo_clauses(req, m, opp)
        ammo_pick = ammo[(n + h) % len(ammo)] if ammo else None
        opp_name = opp.short_name
        gist = clip(self.gist_of(req.opponent_summary), 70) if req.opponent_summary else ""

        pieces: list[tuple[str, str]] = []  # (kind, text): kinds the filler may drop
        cited: set[str] = set()

        def cite_once(sid: str) -> str:
            c = self.cite(m, sid)
            if not c or sid in cited:
                return ""
            cited.add(sid)
            return c

        score_of = {id(t): sc for sc, _, t in self.ranked(m, opp, req.topic)}

        def thesis_unit(cands: list[Teaching], by_topic: bool = False) -> Optional[Teaching]:
            # a declarative thesis short enough to summarise whole; for a 立论, the one that scores
            # best against the topic (not merely the first of the slice)
            fit = [t for t in cands if 12 <= cjk_len(t.text) <= 60 and "，" in t.text and
                   not re.search(r"^(?:若|如果|假如)|[？?]|何处|何须|岂", t.text)]
            if fit and by_topic:
                return max(fit, key=lambda t: (score_of.get(id(t), 0), -cands.index(t)))
            return fit[0] if fit else (cands[0] if cands else None)

        rest = list(units)
        if not rest:  # a thin pack: the speaker's best unit, said again inside this role's own frame
            top = [t for _, _, t in self.ranked(m, opp, req.topic)]
            rest = top[:1]
        if role == "立论":
            th = thesis_unit(rest, by_topic=True)
            if th:
                rest.remove(th)
                pieces.append(("frame", T_OPEN[role][v].format(topic=topic, thesis=bare(th.text),
                                                              cite=cite_once(th.source_id))))
            else:
                pieces.append(("frame", f"就「{topic}」这一问，我依自己所学立论。"))
            pieces.append(("frame", T_BRIDGE[role][v]))
            for lead, t in zip(T_REASON_LEAD[v], rest[:3]):
                pieces.append(("unit", f"{lead}{bare(t.text)}{cite_once(t.source_id)}。"))
            rest = rest[3:]
        elif role in ("反驳", "回应"):
            g = gist or "此前的论点"
            pieces.append(("frame", T_OPEN[role][v].format(opp=opp_name, gist=g)))
            if role == "反驳":
                ans = thesis_unit(rest)
                if ans:
                    rest.remove(ans)
                    bears = len(bigrams(ans.text) & bigrams(gist)) >= 2
                    bank = T_BRIDGE[role] if bears else T_BRIDGE_LOOSE
                    pieces.append(("frame", bank[v].format(answer=bare(ans.text), cite=cite_once(ans.source_id))))
            else:
                accept = self.accepted_part(gist) or "修行要落到实处"
                pieces.append(("frame", T_BRIDGE[role][v].format(accept=accept)))
                keep = thesis_unit(rest)
                if keep:
                    rest.remove(keep)
                    pieces.append(("frame", T_KEEP[v].format(keep=bare(keep.text), cite=cite_once(keep.source_id))))
        else:  # 综合
            pieces.append(("frame", T_OPEN[role][v].format(topic=topic)))
            opp_units = self.opponent_reserve(req, m, opp)
            common, mine_u, theirs_u = self.common_ground(rest, opp_units, m, opp)
            pieces.append(("frame", T_BRIDGE[role][v].format(common=common)))
            if mine_u is not None:
                rest.remove(mine_u)
                pieces.append(("unit", f"{T_MORE['综合'][v]}{bare(mine_u.text)}{cite_once(mine_u.source_id)}。"))
            if theirs_u is not None:
                pieces.append(("opp", T_OPP_UNIT[v].format(opp=opp_name, unit=bare(theirs_u.text))))
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
            cands = [c for c in dict.fromkeys(cands) if c and not alike(c, mine_pos)]
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
        pieces = [(k, x) for k, x in pieces if k == "diffsrc" or self.safe(CITE.sub("", x), m, opp)
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
            sentence = f"{lead}{bare(t.text)}{cite_once(t.source_id)}。"
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
            if i % 3 != n % 3 or bare(t.text) in head:
                continue  # a speaker's n-th speech takes every third reserve unit from n: disjoint
            picked.append(f"{bare(t.text)}。")
        head += "".join(picked)
        if cjk_len(head + closing) < MIN_CHARS:
            lines = []
            for c in m.cross_critique:  # his positions toward other masters: his own words and sources
                if c.target_master == opp.slug or c.citation not in m.source_ids:
                    continue
                for clause in re.split(r"[；;。！？]", re.sub(r"^[^：:，。]{1,14}[：:]", "", c.position)):
                    cl = clause.strip().strip("，、 ")
                    if cjk_len(cl) >= 8 and balanced(cl) and cl not in head and self.safe(cl + "。", m, opp):
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
