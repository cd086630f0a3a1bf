"""``restatement``: in 反驳 and 回应 rounds the first sentence restates the opponent's latest summary
faithfully, before the speaker says anything of his own.

* The *first sentence* is the text up to the first 。！？ or line break.  A sentence that only
  announces the restatement (先复述印光大师的原意。) lets the next sentence count as the first.
* *Faithful* means: it overlaps the summary substantially (shared two-character phrases cover a
  good part of the summary, and each clause of the restatement is drawn from it), and it claims
  nothing the summary does not: an absolute or a dismissal (毫无意义, 纯属, 一概不要, 完全否定,
  一切, 只是…而已) that the summary lacks is a distortion.
* Who is restated is the opponent: a restatement about the speaker's own case, or one that only
  comes after it, fails.
* With no summary (the opponent has not spoken, or none was given) the rule cannot decide, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from debate_core.checks import lexicons as _lx
from debate_core.checks.lexicons import canon, same_group
from debate_core.checks.registry import said
from debate_core.content.text import cjk_only, clauses, mask, sentences
from debate_core.models import Detail

RESTATING_ROLES = {"反驳", "回应"}

# Groups of absolutes and dismissals: a word of a group in the restatement needs a word of the same
# group in the summary.
_ABSOLUTES = {
    "totality": (
        "一切",
        "所有",
        "任何",
        "全部",
        "统统",
        "一概",
        "一律",
        "全盘",
        "尽皆",
        "悉皆",
        "凡是",
        "一切皆",
        "全都",
        "诸",
        "皆",
        "凡",
        "均",
    ),
    "degree": ("完全", "全然", "彻底", "根本", "绝对", "丝毫", "毫无", "半点", "一无", "毫不", "压根"),
    "only": ("纯属", "纯粹", "无非", "只不过", "仅仅", "而已", "罢了"),
    "never": ("从不", "从来不", "从未", "永远", "绝不", "决不", "万万不", "一向不"),
    "exclusive": ("唯有", "只有", "惟有", "唯一", "唯独", "独有"),
}
_DISMISSALS = _lx.words("restatement.dismissals")
_EXCLUSIVE_SUMMARY = _lx.words("restatement.exclusive_summary")
_FRAME_WORDS = _lx.regex("restatement.frame_words")
_CONTRAST = _lx.regex("restatement.contrast")
_OPP_POINTERS = _lx.words("restatement.opp_pointers")


@dataclass
class Restatement:
    passed: bool
    undecided: bool
    message: str
    details: list[Detail] = field(default_factory=list)  # the message as data (restatement.*)


def _bigrams(s: str, syn: bool = False) -> set[str]:
    """The two-character phrases of ``s``; with ``syn``, its synonyms first mapped to one word each
    (lexicons/synonyms.yaml): a paraphrase that says 陋劣 for 浅薄 shares the summary's phrases."""
    c = cjk_only(canon(s) if syn else s)
    return {c[i : i + 2] for i in range(len(c) - 1)}


def _strip(s: str, names: Iterable[str]) -> str:
    for n in sorted(names, key=len, reverse=True):
        if n:
            s = s.replace(n, "")
    return s


def _cut_reply(sent: str, summary: str, opp_names: list[str]) -> str:
    """The restating part of a sentence: up to a turn (然而, 但是 …) after which the words are no
    longer the summary's (the speaker's reply).  A turn the summary itself makes is kept."""
    sb = _bigrams(_strip(summary, opp_names))
    for cut in _CONTRAST.finditer(sent):
        if cut.start() < 6:
            continue
        nxt = _CONTRAST.search(sent, cut.end())
        seg = sent[cut.end() : nxt.start() if nxt else len(sent)]
        segb = _bigrams(seg)
        if not segb or len(segb & sb) / len(segb) < 0.25:
            return sent[: cut.start()]
    return sent


def first_sentence(text: str, opp_names: Iterable[str]) -> tuple[str, int]:
    """The restating sentence and its index (0, or 1 after an announcing sentence)."""
    sents = sentences(text.strip())
    t = text.strip()
    if not sents:
        return "", 0
    first = t[sents[0][0] : sents[0][1]]
    content = _FRAME_WORDS.sub("", _strip(cjk_only(first), list(opp_names) + list(_OPP_POINTERS)))
    if len(content) <= 3 and len(sents) > 1:
        return t[sents[1][0] : sents[1][1]], 1
    return first, 0


def check(
    text: str, role: str, summary: str, opp_names: list[str], speaker_names: list[str], opp_display: str
) -> Restatement:
    if role not in RESTATING_ROLES:
        return Restatement(True, False, f"{role}轮不要求先复述对方", [said("restatement.not_required", role=role)])
    if not text.strip():
        return Restatement(False, False, "发言为空", [said("speech.empty")])
    sent, idx = first_sentence(text, opp_names)
    sent = re.sub(r"[（(]?引(?:自|用)?《[^》]*》[）)]?|【[^】]*】|《[^》]*》", "", sent)
    where = "第一句" if idx == 0 else "开头的复述"
    at = "first" if idx == 0 else "opening"  # the same, as a detail's value
    if not summary.strip():
        return Restatement(
            False, True, "无法判定：没有对方上一轮的摘要，无从核对复述是否忠实", [said("restatement.no_summary")]
        )
    # the summary without its citation tail (引《文钞》) and names
    summ = re.sub(r"引《[^》]*》[^。；]*|《[^》]*》|[A-Z][A-Za-z0-9:._-]*\d", "", summary)
    summ_core = _strip(summ, opp_names)
    sb = _bigrams(summ_core)
    sent = _cut_reply(sent, summary, opp_names)
    masked = mask(sent, "【")
    sent_core = _strip(masked, opp_names + speaker_names)
    rb = _bigrams(sent_core)
    shared = rb & sb
    coverage = len(shared) / len(sb) if sb else 0.0
    sbs = _bigrams(summ_core, syn=True)  # the same, with synonyms mapped together
    shared_syn = _bigrams(sent_core, syn=True) & sbs
    if sbs and len(shared_syn) / len(sbs) > coverage:
        shared, coverage = shared_syn, len(shared_syn) / len(sbs)
    names_opp = any(n and n in sent for n in opp_names) or any(p in sent for p in _OPP_POINTERS)
    names_self = [n for n in speaker_names if n and n in sent and not any(n in o for o in opp_names)]
    pct = int(f"{coverage:.0%}".rstrip("%"))
    if not shared or coverage < 0.2:
        return Restatement(
            False,
            False,
            f"{where}没有复述{opp_display}的立场（与对方摘要重合 {coverage:.0%}）："
            f"反驳/回应轮须先复述对方上一轮原意，再陈己见",
            [said("restatement.missing", where=at, who=opp_display, pct=pct)],
        )
    # each clause of the restatement must come from the summary
    extra: list[str] = []
    for a, b in clauses(sent):
        cl = sent[a:b]
        bare_cl = _strip(cjk_only(mask(cl, "【")), opp_names + speaker_names + list(_OPP_POINTERS))
        core = _FRAME_WORDS.sub("", bare_cl)
        if len(core) <= 3:
            continue
        cb = _bigrams(core)
        cbs = _bigrams(_FRAME_WORDS.sub("", canon(bare_cl)), syn=True)  # the clause read with synonyms
        if cb and len(cb & sb) / len(cb) < 0.25 and not (cbs and len(cbs & sbs) / len(cbs) >= 0.25):
            extra.append(cl.strip())
    distortions: list[str] = []
    for group, words in _ABSOLUTES.items():
        for w in words:
            if len(w) >= 2 and w in sent_core and w not in summ:
                if group == "exclusive" and any(x in summ for x in _EXCLUSIVE_SUMMARY):
                    continue
                if not any(x in summ for x in words):
                    distortions.append(w)
    for w in _DISMISSALS:
        if w in sent_core and not any(x in summ for x in same_group(w)):
            distortions.append(w)
    if distortions:
        terms = "、".join(dict.fromkeys(distortions))
        return Restatement(
            False,
            False,
            f"{where}歪曲了{opp_display}：对方摘要中没有「{terms}」这样的说法",
            [said("restatement.distorts", where=at, who=opp_display, terms=terms)],
        )
    if extra:
        return Restatement(
            False,
            False,
            f"{where}加入了对方摘要没有的主张：「{extra[0][:30]}」",
            [said("restatement.adds", where=at, claim=extra[0][:30])],
        )
    if not names_opp:
        return Restatement(
            False,
            False,
            f"{where}没有点明是在复述{opp_display}的立场",
            [said("restatement.unnamed", where=at, who=opp_display)],
        )
    if names_self and not names_opp:
        return Restatement(
            False,
            False,
            f"{where}复述的是自己的主张，不是{opp_display}的",
            [said("restatement.own_claim", where=at, who=opp_display)],
        )
    return Restatement(
        True,
        False,
        f"{where}复述了{opp_display}的立场（与对方摘要重合 {coverage:.0%}）",
        [said("restatement.restated", where=at, who=opp_display, pct=pct)],
    )
