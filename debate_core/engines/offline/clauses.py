"""Clauses the engine names rather than speaks whole: the topic, the opponent's point, a main clause."""

from __future__ import annotations

import re

from debate_core.engines.offline.text import CITE, balanced, bare, cjk_len, clip

_SUBORDINATE = re.compile(r"^(?:若|如果|假如|倘若|倘|当|當|虽|雖|虽然|正?因为|正?因為|由于|即使|纵然|縱然|只要|一旦|每当|每當"
                          r"|(?:如|犹如|猶如|譬如|好比)(?!来|來|是|实|實|何|今))|"
                          r"(?:时|時|之际|之際|以后|之后|以前|之前|的话|若|如果)$")
_SUBORDINATE_END = re.compile(r"(?:时|時|之际|之際|以后|之后|之前|的话|若|如果|而|且|与|和|及|之|的|于|於|在|把|将|以|为|》中|》里|中说|中說)$")
_LEANING = re.compile(r"^(?:则|則|便|就|即可|无需|無需|不必|也|亦|而|但|却|卻|才|乃|故|所以|因此|是|并|並|且|又|甚至|乃至|可作为)")


class Clauses:
    """Picking a clause out of a topic, a summary or a unit; nothing here reads the pack."""

    @staticmethod
    def gist_of(summary: str) -> str:
        """The opponent's point from his summary: name, role label and source note off."""
        s = summary.strip()
        s = re.sub(r"[；;，,]?\s*(?:引|据|依)《[^》]*》\s*$", "", s)
        s = CITE.sub("", s)
        s = re.sub(r"^[^：:]{1,12}[：:]", "", s)
        return bare(s)

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
            t = clip(t, limit)
        return t or "此题"

    @staticmethod
    def main_clause(text: str, limit: int = 26, term: str = "", single: bool = False) -> str:
        """A whole short sentence of the unit, else a complete main clause of it (between ； or ，),
        never a subordinate clause (当…时, 若…, 虽…), a clause that leans on the one before it
        (则…, 无需…, 便…), a clause cut inside a —— aside, nor anything clipped: "" when none fits.
        With ``term``, only a sentence or clause that holds it."""
        plain = re.sub(r"（[^（）]*）|\([^()]*\)", "", CITE.sub("", text))
        found = []
        for sent in re.split(r"[。！？]", plain):
            sent = bare(sent)
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
            c = bare(c.strip())
            if not (5 <= cjk_len(c) and len(c) <= limit and balanced(c)) or (term and term not in c):
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

    @staticmethod
    def accepted_part(gist: str) -> str:
        """A clause of what the opponent actually said (from the summary), short enough to name."""
        plain = re.sub(r"（[^（）]*）|\([^()]*\)", "", gist)
        clauses = [c.strip() for c in re.split(r"[，；]", plain) if cjk_len(c) >= 4 and balanced(c)]
        if not clauses:
            return clip(gist, 24)
        return clip(clauses[0], 24)
