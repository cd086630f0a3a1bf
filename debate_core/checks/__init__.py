"""Hard-rule checks on a master-debate speech.

Each check is a small function ``(speech_text, ctx) -> Finding``.  The protocol
runs all of them on every speech, feeds failures back for a bounded number of
retries, then keeps the speech with its findings.  What each rule forbids and
allows is written in docs/checks.md; the rules live in the modules of this
package (verdict, dialogue, citation, restatement, hygiene).

A rule that cannot decide returns ``Finding(passed=False, undecided=True)`` with a
message beginning 无法判定 — never a silent pass.  Messages are Chinese: they are
shown in Chinese debates and sent back to the model on a retry.  Beside its message a finding
carries the same statements as data (``Finding.details``: a code and its values, see
:func:`~debate_core.checks.registry.said`), from which an app says them in its reader's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from debate_core.checks import engages as _engages
from debate_core.checks import restatement as _restatement
from debate_core.checks._lexicon import master_names, name_map, name_regex, side_terms_for
from debate_core.checks.citation import CITATION_PATTERNS, check_citation_text, find_citations, norm_id
from debate_core.checks.dialogue import dialogue_hits
from debate_core.checks.hygiene import hygiene_issues, hygiene_problems
from debate_core.checks.positions import parties_for
from debate_core.checks.registry import labels_en, labels_zh, rule, rule_names, rules, said
from debate_core.checks.scene import scene_hits
from debate_core.checks.verdict import VerdictDetector, verdict_hits
from debate_core.content.text import cjk_len, ngrams
from debate_core.models import CrossCritique, Detail, Finding, Master, Pack
from debate_core.plans import SpeechPlan

MIN_CHARS, MAX_CHARS = 300, 500
RESTATING_ROLES = _restatement.RESTATING_ROLES

# Kept for callers that test a text for a verdict: one detector object with ``search`` (like a
# compiled pattern); it runs the structural no_verdict rule, not a phrase list.
VERDICT_PATTERNS = [VerdictDetector()]

__all__ = [
    "CheckContext",
    "run_checks",
    "ammo_used",
    "find_citations",
    "cjk_len",
    "MIN_CHARS",
    "MAX_CHARS",
    "RESTATING_ROLES",
    "is_safe_fragment",
    "VERDICT_PATTERNS",
    "CITATION_PATTERNS",
    "RULES",
    "RULE_LABELS_ZH",
    "RULE_LABELS_EN",
    "rule",
    "rules",
    "check_length",
    "check_citations",
    "check_ammo",
    "check_restatement",
    "check_engages",
    "check_no_verdict",
    "check_no_dialogue",
    "check_hygiene",
    "fabricated_dialogue",
]


def _norm_id(s: str) -> str:  # kept for old callers
    return norm_id(s)


@dataclass
class CheckContext:
    speaker: Master
    opponent: Master
    role: str
    ammo: list[CrossCritique] = field(default_factory=list)
    opponent_summary: str = ""
    pack_source_ids: set[str] = field(default_factory=set)
    names: list[str] = field(default_factory=list)  # every master name that may appear
    pack: Pack | None = None  # when given: every master of the pack, with aliases
    masters: list[Master] = field(default_factory=list)  # or: the masters of the pack
    protocol: str = "master"  # the protocol the speech belongs to (a rule's scope names protocols)
    plan: SpeechPlan | None = None  # the speech plan it was written from (offline engine), when known
    topic: str = ""  # the debate's topic as the user wrote it: a speech that quotes it quotes the user's words

    # ------------------------------------------------------------ derived
    def all_masters(self) -> list[Master]:
        ms: list[Master] = []
        if self.pack is not None:
            ms += list(self.pack.masters.values())
        ms += self.masters
        ms += [self.speaker, self.opponent]
        seen, out = set(), []
        for m in ms:
            if m.slug not in seen:
                seen.add(m.slug)
                out.append(m)
        return out

    def name_keys(self) -> dict[str, str]:
        cache = self.__dict__.get("_name_keys")
        if cache is None:
            cache = name_map(self.all_masters(), self.names)
            self.__dict__["_name_keys"] = cache
        return cache

    def known_ids(self) -> set[str]:
        ids = set(self.pack_source_ids)
        for m in self.all_masters():
            ids |= set(m.source_ids)
        return ids


def _finding(rule: str, passed: bool, message: str = "", undecided: bool = False, *details: Detail, **kw) -> Finding:
    return Finding(
        rule=rule, passed=passed and not undecided, message=message, undecided=undecided, details=list(details), **kw
    )


# ------------------------------------------------------------------ length


@rule("length", label="篇幅", label_en="length", requires="正文 300-500 个汉字。")
def check_length(text: str, ctx: CheckContext) -> Finding:
    n = cjk_len(text)
    ok = MIN_CHARS <= n <= MAX_CHARS
    return _finding(
        "length",
        ok,
        f"共 {n} 个汉字" + ("" if ok else f"，须在 {MIN_CHARS}–{MAX_CHARS} 字之间"),
        False,
        said("length.count", n=n) if ok else said("length.range", n=n, lo=MIN_CHARS, hi=MAX_CHARS),
    )


# ------------------------------------------------------------------ citation


@rule(
    "citation",
    label="引证",
    label_en="citations",
    requires="每个经号都必须是发言者自己的经典之一，且与经号同写的经名须指同一部经。",
)
def check_citations(text: str, ctx: CheckContext) -> Finding:
    cached = ctx.__dict__.get("_owners")
    if cached is None:
        owners: dict[str, str] = {}
        titles: dict[str, str] = {}
        for m in ctx.all_masters():
            for s in m.sources:
                k = norm_id(s.id)
                owners[k] = (owners[k] + "、" + m.name) if k in owners else m.name
                titles.setdefault(s.id, s.title)
        cached = ctx.__dict__["_owners"] = (owners, titles, ctx.known_ids())
    owners, titles, known = cached
    res = check_citation_text(text, ctx.speaker, known, owners, titles)
    return _finding("citation", res.passed, res.message, res.undecided, *res.details, marks=res.marks)


# ------------------------------------------------------------------ ammo


def ammo_used(text: str, ammo: list[CrossCritique], exclude: str = "") -> list[str]:
    """The ammo entries the text draws on: three or more four-character phrases shared with the entry
    (two could be a school's stock phrases that any speech of the master uses).  Phrases that are
    also in ``exclude`` (the opponent's summary, which a restatement repeats) do not count."""
    grams = ngrams(text, 4) - ngrams(exclude, 4)
    out = []
    for a in ammo:
        own = _grams4(a.position)
        if len(own & grams) >= min(3, max(1, len(own) // 4)):
            out.append(a.position)
    return out


@lru_cache(maxsize=2048)
def _grams4(text: str) -> frozenset[str]:
    """The four-character phrases of an ammo entry: pack text that every speech of a batch is
    compared with, split once."""
    return frozenset(ngrams(text, 4))


@rule("ammo", label="弹药", label_en="ammo used", requires="至少化用一条针对对方的弹药（如有）。")
def check_ammo(text: str, ctx: CheckContext) -> Finding:
    opp = ctx.opponent.name
    if not ctx.ammo:
        return _finding(
            "ammo",
            True,
            f"资料包中没有{ctx.speaker.name}针对{opp}的弹药（这一方向有覆盖缺口），本条不适用",
            False,
            said("ammo.none_in_pack", me=ctx.speaker.name, who=opp),
            applies=False,
        )
    used = ammo_used(text, ctx.ammo, ctx.opponent_summary)
    if used:
        return _finding(
            "ammo",
            True,
            f"用到 {len(used)}/{len(ctx.ammo)} 条针对{opp}的弹药",
            False,
            said("ammo.used", used=len(used), all=len(ctx.ammo), who=opp),
        )
    return _finding(
        "ammo", False, f"没有用到任何一条针对{opp}的弹药，至少须引用一条", False, said("ammo.unused", who=opp)
    )


# ------------------------------------------------------------------ restatement


def _names_of(m: Master, ctx: CheckContext) -> list[str]:
    keys = ctx.name_keys()
    names = set(master_names(m))
    names |= {n for n, k in keys.items() if k == m.slug}
    return sorted(names, key=len, reverse=True)


@rule(
    "restatement",
    label="复述",
    label_en="restatement",
    roles=RESTATING_ROLES,
    requires="反驳、回应轮：第一句忠实复述对方最近一轮的摘要，不添加摘要里没有的主张，不夸大成绝对化的说法。",
)
def check_restatement(text: str, ctx: CheckContext) -> Finding:
    res = _restatement.check(
        text,
        ctx.role,
        ctx.opponent_summary,
        _names_of(ctx.opponent, ctx),
        _names_of(ctx.speaker, ctx),
        ctx.opponent.name,
    )
    return _finding("restatement", res.passed, res.message, res.undecided, *res.details)


# ------------------------------------------------------------------ engages


@rule(
    "engages",
    label="回应论点",
    label_en="answers the point",
    roles=RESTATING_ROLES,
    requires="反驳、回应轮：复述之后的正文须针对所复述的对方论点作答（有共同的实词或其同义词，或依发言计划回应该论点），"
    "不可复述一句便转而另谈别题。",
)
def check_engages(text: str, ctx: CheckContext) -> Finding:
    res = _engages.check(
        text,
        ctx.role,
        ctx.opponent_summary,
        _names_of(ctx.opponent, ctx),
        _names_of(ctx.speaker, ctx),
        ctx.opponent.name,
        plan=ctx.plan,
    )
    return _finding("engages", res.passed, res.message, res.undecided, *res.details)


# ------------------------------------------------------------------ no_verdict


def _others_regex(ctx: CheckContext) -> re.Pattern | None:
    names = tuple(n for n in _names_of(ctx.opponent, ctx) if len(n) >= 2)
    return name_regex(names)


@rule(
    "no_verdict",
    label="禁裁决",
    label_en="no verdict",
    requires="不作裁决：不说哪一方、哪一宗、哪位祖师或哪种修法更高、更究竟、是唯一正道、已经获胜，也不劝读者选哪一方。",
)
def check_no_verdict(text: str, ctx: CheckContext) -> Finding:
    sides = ctx.__dict__.get("_sides")
    if sides is None:
        sides = ctx.__dict__["_sides"] = side_terms_for(ctx.all_masters())
    who = ctx.__dict__.get("_parties")
    if who is None:
        who = ctx.__dict__["_parties"] = parties_for(ctx.all_masters(), ctx.speaker.slug, ctx.opponent.slug)
    hits = verdict_hits(text, extra_sides=sides, others=_others_regex(ctx), who=who)
    # one phrase once: a hit inside a longer one also found (唯一的出路 in 乃是唯一的出路) says nothing more
    hits = [h for h in hits if not any(h.phrase != o.phrase and h.phrase in o.phrase for o in hits)]
    if hits:
        kinds = {
            "outcome": "宣布胜负",
            "comparison": "比较高下",
            "degree": "比较高下",
            "rightness": "判定对错",
            "recommendation": "替读者做选择",
        }
        shown = "；".join(f"「{h.phrase}」（{kinds.get(h.kind, h.kind)}）" for h in hits[:4])
        return _finding(
            "no_verdict",
            False,
            f"含裁决：{shown}。只陈述本宗所见，不判谁高谁低、谁胜谁负，也不替读者选择",
            False,
            said("no_verdict.found"),
            *(said("no_verdict.hit", phrase=h.phrase, kind=h.kind) for h in hits[:4]),
        )
    return _finding("no_verdict", True, "没有裁决", False, said("no_verdict.none"))


# ------------------------------------------------------------------ no_dialogue


def fabricated_dialogue(text: str, names: Iterable[str], ctx: CheckContext | None = None) -> list[str]:
    if ctx is not None:
        keys = ctx.name_keys()
        all_names = ctx.__dict__.get("_all_names")
        if all_names is None:
            all_names = ctx.__dict__["_all_names"] = tuple(sorted(set(keys) | {n for n in names if n and len(n) >= 2}))
    else:
        keys, all_names = _bare_names(tuple(names))
    pattern = name_regex(all_names)
    speaker = ctx.speaker.slug if ctx is not None else ""
    return list(dict.fromkeys(dialogue_hits(text, pattern, keys) + scene_hits(text, pattern, keys, speaker)))


@lru_cache(maxsize=32)
def _bare_names(names: tuple[str, ...]) -> tuple[dict[str, str], tuple[str, ...]]:
    keys = name_map([], names)
    return keys, tuple(sorted(set(keys) | {n for n in names if n and len(n) >= 2}))


@rule(
    "no_dialogue",
    label="禁伪造对话",
    label_en="no invented dialogue",
    requires="不虚构对话：不叙述两位祖师见面、交谈、问答或当场反应。引经（如《坛经》云）与引用对方已陈述的立场不算。",
)
def check_no_dialogue(text: str, ctx: CheckContext) -> Finding:
    hits = fabricated_dialogue(text, ctx.names, ctx)
    if hits:
        shown = "；".join(f"「{h}」" for h in hits[:4])
        return _finding(
            "no_dialogue",
            False,
            f"虚构了祖师之间的会面或对话：{shown}。资料未载的交锋不可叙述",
            False,
            said("no_dialogue.found"),
            *(said("no_dialogue.hit", quote=h) for h in hits[:4]),
        )
    return _finding("no_dialogue", True, "没有虚构的祖师对话", False, said("no_dialogue.none"))


# ------------------------------------------------------------------ hygiene


@rule(
    "hygiene",
    label="文面",
    label_en="clean text",
    requires="文面干净：没有网址、链接、资料包的编辑说明、提示词片段、不成对的括号或引号，中文发言里没有成串的英文。",
)
def check_hygiene(text: str, ctx: CheckContext) -> Finding:
    cached = ctx.__dict__.get("_hygiene")
    if cached is None:
        cached = ctx.__dict__["_hygiene"] = (
            sorted(ctx.known_ids(), key=len, reverse=True),
            [s.title for m in ctx.all_masters() for s in m.sources],
        )
    ids, titles = cached
    # the asker's own words quoted (你提的是「…AI…」) are his, not English in the speech
    problems = hygiene_issues(text.replace(ctx.topic, "") if ctx.topic.strip() else text, ids=ids, titles=titles)
    if problems:
        return _finding(
            "hygiene",
            False,
            "不是发言正文：" + "；".join(list(problems)[:5]),
            False,
            said("hygiene.not_speech"),
            *list(problems.values())[:5],
        )
    return _finding(
        "hygiene", True, "没有网址、链接、编辑说明、提示词残片、不成对的括号或英文", False, said("hygiene.none")
    )


# Everything about the rules comes from the registry (checks.registry): their order, names and labels.
RULES: tuple[str, ...] = rule_names()
CHECKS: list[Callable[[str, CheckContext], Finding]] = [r.check for r in rules()]
RULE_LABELS_ZH: dict[str, str] = labels_zh()
RULE_LABELS_EN: dict[str, str] = labels_en()


def run_checks(text: str, ctx: CheckContext) -> list[Finding]:
    return [r.check(text, ctx) for r in rules()]


def is_safe_fragment(text: str, names: Iterable[str]) -> bool:
    """True when a fragment carries no verdict, no invented dialogue and nothing that is not speech
    (the offline engine builds speeches only from such fragments)."""
    if verdict_hits(text, extra_sides=tuple(n for n in names if n and len(n) >= 2), strict=True):
        return False
    if fabricated_dialogue(text, names):
        return False
    return not hygiene_problems(text)
