"""The app's own words about a debate (its chrome), in the reader's language: role names, rule names,
check findings and badges, citation marks, status and stop lines, the seed's fixed lines.

A debate speaks its own language in what it says (its speeches, its topic, its observation); every
line the app writes around it follows the app's language (``?lang=``), whatever the debate's.  The
words come from the gettext catalogs (English msgids, the Chinese msgstrs being the seed's own
wording), the rule names from the rule registry (:mod:`debate_core.checks.registry`).  Nothing here
imports streamlit.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional

from debate_core.checks.registry import label as registry_label

from webapp import i18n
from webapp.i18n import N_, _

# roles as the protocols store them (a master debate's Chinese roles, the others' slugs)
ROLE_NAMES = {
    "立论": N_("Opening"), "反驳": N_("Rebuttal"), "回应": N_("Response"), "综合": N_("Synthesis"),
    "结辩": N_("Closing"),
    "opening": N_("Opening"), "rebuttal": N_("Rebuttal"), "closing": N_("Closing"), "answers": N_("Answers"),
    "pressure_questions": N_("Pressure questions"), "argument": N_("Argument"), "pro": N_("PRO"), "con": N_("CON"),
}

# the citation marks of the quote check (debate_core.render.master.MARK_ZH: the same marks in the seed's words)
MARKS = {"verified": N_("✓ quote verified"), "id_only": N_("id only"), "unverified": N_("✗ quote not verified"),
         "unchecked": N_("no source text to check the quote")}
MARKS_PLAIN = {"verified": N_("quote verified")}
NOT_IN_OWN = N_("✗ not one of the speaker's own sources")

SIDES = {"pro": N_("PRO"), "con": N_("CON")}
STANCES = {"for the motion": N_("for the motion"), "against the motion": N_("against the motion")}

DISCLAIMER = N_("This dialogue is generated from historical Buddhist texts; the comparison shows several "
                "perspectives and does not rank them.")
OBSERVATION_HEADING = N_("Open questions — a neutral observation")
OBSERVATION_KEYS = {"分歧本质": N_("Where they differ"), "共识点": N_("Common ground"),
                    "留给读者": N_("For the reader")}
NO_WINNER_NOTE = N_("A master debate has no winner: it only states where the masters differ.")


def lang() -> str:
    return i18n.current()


def role_text(role: str) -> str:
    """A speech's role in the reader's language (立论 / Opening), an unknown role as it is."""
    return _(ROLE_NAMES[role]) if role in ROLE_NAMES else str(role or "")


def side_text(side: str) -> str:
    """pro / con as PRO / CON (正方 / 反方 in Chinese); anything else as it is."""
    return _(SIDES[side]) if side in SIDES else str(side or "")


def stance_text(stance: str) -> str:
    """A stance the app itself wrote (an imported benchmark's for / against the motion) in the reader's
    language; a debate's own stance as it is."""
    return _(STANCES[stance]) if stance in STANCES else str(stance or "")


def rule_text(rule: str) -> str:
    """A rule's name in the reader's language, from the rule registry."""
    return registry_label(rule, lang())


def mark_label(status: str, *, clean: bool) -> str:
    if not clean and status in MARKS_PLAIN:
        return _(MARKS_PLAIN[status])
    return _(MARKS[status]) if status in MARKS else str(status)


# A finding's message is written by the checks in Chinese; the ones the app can say in the reader's
# language are matched here (each pattern's named groups fill the msgid's placeholders).  A message
# that matches none is returned as None and the page shows it as the checker's own words.
_FINDINGS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^(?P<role>\S+?)轮不适用（本条只适用于(?P<scope>.+?)）$"), N_("not applicable to this role")),
    (re.compile(r"^\S+ 协议不适用（本条只适用于.+）$"), N_("not applicable to this protocol")),
    (re.compile(r"^共 (?P<n>\d+) 个汉字$"), N_("{n} Chinese characters")),
    (re.compile(r"^共 (?P<n>\d+) 个汉字，须在 (?P<lo>\d+)–(?P<hi>\d+) 字之间$"),
     N_("{n} Chinese characters; it must be {lo}–{hi}")),
    (re.compile(r"^用到 (?P<used>\d+)/(?P<all>\d+) 条针对(?P<who>.+)的弹药$"),
     N_("used {used} of the {all} ammo entries aimed at {who}")),
    (re.compile(r"^没有用到任何一条针对(?P<who>.+)的弹药，至少须引用一条$"),
     N_("used none of the ammo aimed at {who}; at least one is required")),
    (re.compile(r"^资料包中没有(?P<me>.+?)针对(?P<who>.+)的弹药（这一方向有覆盖缺口），本条不适用$"),
     N_("the pack has no ammo of {me} aimed at {who} (a coverage gap): not applicable")),
    (re.compile(r"^没有裁决$"), N_("no verdict")),
    (re.compile(r"^含裁决：(?P<quote>.+?)。只陈述本宗所见，不判谁高谁低、谁胜谁负，也不替读者选择$"),
     N_("contains a verdict: {quote}")),
    (re.compile(r"^没有虚构的祖师对话$"), N_("no invented dialogue between the masters")),
    (re.compile(r"^虚构了祖师之间的会面或对话：(?P<quote>.+?)。资料未载的交锋不可叙述$"),
     N_("invents a meeting or dialogue between the masters: {quote}")),
    (re.compile(r"^没有网址、链接、编辑说明、提示词残片、不成对的括号或英文$"),
     N_("no URL, link, editorial note, prompt fragment, unpaired bracket or English")),
    (re.compile(r"^(?P<where>第一句|开头的复述)复述了(?P<who>.+)的立场（与对方摘要重合 (?P<pct>\d+)%）$"),
     N_("{where} restates {who}'s position ({pct}% overlap with the summary)")),
    (re.compile(r"^(?P<where>第一句|开头的复述)没有复述(?P<who>.+)的立场（与对方摘要重合 (?P<pct>\d+)%）"),
     N_("{where} does not restate {who}'s position ({pct}% overlap with the summary): a rebuttal or a response "
        "first restates what the opponent said last")),
    (re.compile(r"^(?P<where>第一句|开头的复述)歪曲了(?P<who>.+?)：对方摘要中没有「(?P<terms>.+)」这样的说法$"),
     N_("{where} distorts {who}: the summary has no words like 「{terms}」")),
    (re.compile(r"^(?P<where>第一句|开头的复述)加入了对方摘要没有的主张：「(?P<claim>.+)」$"),
     N_("{where} adds a claim the summary does not make: 「{claim}」")),
    (re.compile(r"^(?P<where>第一句|开头的复述)没有点明是在复述(?P<who>.+)的立场$"),
     N_("{where} does not say that it restates {who}'s position")),
    (re.compile(r"^(?P<where>第一句|开头的复述)复述的是自己的主张，不是(?P<who>.+)的$"),
     N_("{where} restates the speaker's own claim, not {who}'s")),
    (re.compile(r"^\S+轮不要求先复述对方$"), N_("this role need not restate the opponent")),
    (re.compile(r"^\S+轮不要求回应对方$"), N_("this role need not answer the opponent")),
    (re.compile(r"^发言为空$"), N_("the speech is empty")),
    (re.compile(r"^无法判定：没有对方上一轮的摘要，无从核对复述是否忠实$"),
     N_("undecided: no summary of the opponent's last round to check the restatement against")),
    (re.compile(r"^无法判定：没有对方上一轮的摘要，无从核对正文是否回应了对方的论点$"),
     N_("undecided: no summary of the opponent's last round to check the answers against")),
    (re.compile(r"^无法判定：对方摘要里没有可辨认的论点$"),
     N_("undecided: the opponent's summary has no point to recognise")),
    (re.compile(r"^复述之后的正文没有回应对方的论点「(?P<point>.+?)」（(?P<n>\d+) 个论点只回应了 (?P<k>\d+) 个）"),
     N_("after the restatement the speech does not answer the opponent's point 「{point}」 ({k} of {n} points "
        "answered)")),
    (re.compile(r"^正文依发言计划回应了复述的 (?P<n>\d+) 个论点$"),
     N_("the speech answers the {n} restated points, as its speech plan says")),
    (re.compile(r"^正文回应了复述的 (?P<k>\d+) 个论点中的 (?P<n>\d+) 个$"),
     N_("the speech answers {n} of the {k} points it restated")),
    (re.compile(r"^出处均属本人：(?P<ids>[^；]+(?:；[A-Za-z0-9]+（[^）]+）)*)"),
     N_("every source is the speaker's own")),
]


def finding_message(message: str) -> Optional[str]:
    """A check's message in the reader's language; None when it is not one the app knows how to say
    (the page then shows the checker's own words, marked as such).  Chinese UI: the message as it is."""
    message = (message or "").strip()
    if not message or lang() == "zh":
        return message
    for pattern, msgid in _FINDINGS:
        m = pattern.match(message)
        if m:
            values = m.groupdict()
            if "where" in values:
                values["where"] = _(WHERE[values["where"]])
            return _(msgid).format(**values)
    return None


WHERE = {"第一句": N_("the first sentence"), "开头的复述": N_("the opening restatement")}


def finding_state(f: dict[str, Any], clean: bool) -> str:
    """✓ / passed, ✗, ?, or not applicable (never a pass)."""
    if not f.get("applies", True):
        return _("not applicable")
    if f.get("undecided"):
        return "?"
    if not f["passed"]:
        return "✗"
    return "✓" if clean else _("passed")


def badge(findings: Iterable[dict[str, Any]], clean: bool) -> str:
    """One line for all of a speech's checks, in the reader's language: ✓ all checks passed, else the
    rules that failed (✗) or could not be decided (?) by their names."""
    findings = list(findings)
    if not findings:
        return ""
    if clean:
        return "✓ " + _("all checks passed")

    def named(f):
        return rule_text(f["rule"]) + (_(" (model audit)") if f.get("layer") == "model" and f["rule"] != "model_audit"
                                       else "")

    sep = "、" if lang() == "zh" else ", "
    failed = list(dict.fromkeys(named(f) for f in findings if not f["passed"] and not f.get("undecided")))
    undecided = list(dict.fromkeys(named(f) for f in findings if f.get("undecided")))
    parts = (["✗ " + sep.join(failed)] if failed else []) + (["? " + sep.join(undecided)] if undecided else [])
    return " ".join(parts) or "✓"


# the stop reasons the app's protocols write (master: in Chinese; an imported benchmark: "N turns")
_STOPS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^已完成预定的 (?P<n>\d+) 轮$"), N_("completed the {n} planned rounds")),
    (re.compile(r"^第 (?P<n>\d+) 轮后双方已相互认可，提前收束$"),
     N_("both sides accepted each other after round {n}: closed early")),
    (re.compile(r"^已重跑第 (?P<n>\d+) 轮；续跑即可完成$"), N_("round {n} was run again; resume to finish")),
    (re.compile(r"^用户在第 (?P<n>\d+) 轮开始前停止$"), N_("stopped by the user before round {n}")),
    (re.compile(r"^用户在发言中途停止；未写完的发言已舍弃$"),
     N_("stopped by the user mid-speech; the unfinished speech was discarded")),
    (re.compile(r"^(?P<n>\d+) turns$"), N_("{n} turns")),
    (re.compile(r"^第 (?P<n>\d+) 轮失败：(?P<cause>.+)$"), N_("round {n} failed: {cause}")),
    (re.compile(r"^中立观察失败：(?P<cause>.+)$"), N_("the neutral observation failed: {cause}")),
    (re.compile(r"^意外错误：(?P<cause>.+)$"), N_("unexpected error: {cause}")),
]


def stop_reason_text(reason: str) -> str:
    """A stop reason the app wrote, in the reader's language; any other (an imported debate's own) as it is."""
    reason = (reason or "").strip()
    for pattern, msgid in _STOPS:
        m = pattern.match(reason)
        if m:
            return _(msgid).format(**m.groupdict())
    return reason


_NOTES = [(re.compile(r"^the majority of a panel of (?P<n>\d+) judges \(see the judgments\)$"),
           N_("the majority of a panel of {n} judges (see the judgments)"))]


def note_text(note: str) -> str:
    """A verdict's note to readers the app wrote (an imported panel's), in the reader's language."""
    for pattern, msgid in _NOTES:
        m = pattern.match((note or "").strip())
        if m:
            return _(msgid).format(**m.groupdict())
    return note


# the warnings the app's protocols store on a debate (master: the seed's coverage warning, a broken pack)
_WARNINGS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^⚠️ 轮数 (?P<asked>\d+) 超出本人物包允许的 (?P<lo>\d+)-(?P<hi>\d+) 轮，已调整为 (?P<n>\d+) 轮。$"),
     N_("⚠️ {asked} rounds is outside the pack's {lo}-{hi}: set to {n} rounds.")),
    (re.compile(r"^⚠️ 本场只有 (?P<n>\d+) 轮：依规则末轮为综合，\d+ 轮只有立论与综合，没有反驳；"
                r"要有反驳，须至少 (?P<min>\d+) 轮。$"),
     N_("⚠️ Only {n} rounds: the last round is the synthesis, so there is an opening and a synthesis and no "
        "rebuttal; a rebuttal needs at least {min} rounds.")),
    (re.compile(r"^⚠️ 本配对 cross_critique 未双向覆盖，对辩力度可能降级。$"),
     N_("⚠️ This pair's critiques do not cover both directions: the debate may be weaker.")),
    (re.compile(r"^⚠️ 人物包有 (?P<n>\d+) 处错误，出错的部分没有载入（首处在 (?P<file>.+)）。$"),
     N_("⚠️ The pack has {n} errors; the broken parts were not loaded (the first in {file}).")),
]


def warning_text(warning: str) -> str:
    """A debate's warning the app wrote, in the reader's language (each of its paragraphs); another (a
    debate's own) as it is."""
    out = []
    for part in (warning or "").split("\n\n"):
        for pattern, msgid in _WARNINGS:
            m = pattern.match(part.strip())
            if m:
                part = _(msgid).format(**m.groupdict())
                break
        out.append(part)
    return "\n\n".join(out)


def protocol_text(name: str) -> str:
    """A protocol's name in the reader's language (Master debate / 大师辩论; Benchmark debate)."""
    from debate_core.protocols import registry

    if name in registry.stored_names():
        return _(registry.get(name).app_title)
    return _(N_("Benchmark debate")) if name == "benchmark" else str(name)


def who_text(debate: Any) -> str:
    """The debaters in one plain line: names, and a side (PRO / CON) or the app's stance words in the reader's
    language; a debate's own stance as it is."""
    out = []
    for p in debate.participants:
        name = p.name or p.label
        tag = side_text(p.label) if p.label in SIDES and debate.protocol == "benchmark" else stance_text(p.stance)
        out.append(name + (f" ({tag})" if tag and tag != name else ""))
    return _(" vs ").join(out) if out else ""


# why a pair was suggested (debate_core.content.pairing writes it in English, quoting the seed's words)
_PAIR_PARTS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^short form (?P<terms>.+) names both sides$"), N_("the short form {terms} names both sides")),
    (re.compile(r"^topic evokes both sides \((?P<a>.+) / (?P<b>.+)\)$"),
     N_("the topic evokes both sides ({a} / {b})")),
]
_PAIR_REASONS: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^masters named by the user$"), N_("masters named by the user")),
    (re.compile(r"^topic table row 「(?P<row>.+?)」: (?P<why>.+?)(?:; also matched, ranked lower: (?P<also>.+))?$"),
     N_("topic table row 「{row}」: {why}")),
    (re.compile(r"^theme 「(?P<theme>.+?)」 \(the topic says (?P<terms>.+?)\): both hold a position on it and aim "
                r"(?P<ab>\d+) / (?P<ba>\d+) objections at each other's claims there$"),
     N_("theme 「{theme}」 (the topic says {terms}): both hold a position on it and aim {ab} / {ba} objections at "
        "each other's claims there")),
    (re.compile(r"^theme 「(?P<theme>.+?)」 \(the topic says (?P<terms>.+?)\): both hold a position on it; their "
                r"objections at each other \((?P<ab>\d+) / (?P<ba>\d+)\) are on other themes$"),
     N_("theme 「{theme}」 (the topic says {terms}): both hold a position on it; their objections at each other "
        "({ab} / {ba}) are on other themes")),
    (re.compile(r"^theme 「(?P<theme>.+?)」 \(the topic says (?P<terms>.+?)\): only one of them holds a position on "
                r"it; no pair of the bank has both$"),
     N_("theme 「{theme}」 (the topic says {terms}): only one of them holds a position on it; no pair of the bank "
        "has both")),
    (re.compile(r"^the topic is the argument layer's question 「(?P<q>.+?)」 under 「(?P<theme>.+?)」 \(it says "
                r"(?P<terms>.+?)\): both answer it and aim (?P<ab>\d+) / (?P<ba>\d+) objections at each other's "
                r"claims there$"),
     N_("the topic is the argument layer's question 「{q}」 under 「{theme}」 (it says {terms}): both answer it and "
        "aim {ab} / {ba} objections at each other's claims there")),
    (re.compile(r"^the topic names both masters \((?P<a>.+) / (?P<b>.+)\)$"),
     N_("the topic names both masters ({a} / {b})")),
    (re.compile(r"^keyword scoring names (?P<who>.+?) \((?P<terms>.+)\); paired with the master he has most "
                r"objections both ways with in the argument layer$"),
     N_("keyword scoring names {who} ({terms}); paired with the master he has most objections both ways with in "
        "the argument layer")),
    (re.compile(r"^keyword scoring over search_scope\.keywords, names and table terms, top two from different "
                r"schools \((?P<desc>.+)\)$"),
     N_("keyword scoring over the masters' keywords, names and table terms: the top two from different schools "
        "({desc})")),
    (re.compile(r"^no table row or keyword matched the topic; default pair$"),
     N_("no table row or keyword matched the topic: the default pair")),
]


def pair_reason_text(reason: str) -> str:
    """Why the pair was suggested, in the reader's language (the seed's quoted words stay as they are)."""
    reason = (reason or "").strip()
    for pattern, msgid in _PAIR_REASONS:
        m = pattern.match(reason)
        if not m:
            continue
        values = {k: v for k, v in m.groupdict().items() if k != "also"}
        if "why" in values:
            for p2, m2id in _PAIR_PARTS:
                m2 = p2.match(values["why"])
                if m2:
                    values["why"] = _(m2id).format(**m2.groupdict())
                    break
        out = _(msgid).format(**values)
        if m.groupdict().get("also"):
            out += _("; also matched, ranked lower: {rows}").format(rows=m.group("also"))
        return out
    return reason
