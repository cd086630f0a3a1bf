"""The app's own words about a debate (its chrome), in the reader's language: role names, rule names,
check badges and finding states (a finding's message and a model failure's cause: :mod:`webapp.views.codes`),
citation marks, status and stop lines, the seed's fixed lines.

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


def _library_word(text: str, msgids: Iterable[str]) -> Optional[str]:
    """The msgid of the library's catalog (:mod:`debate_core.i18n`) whose words ``text`` is, in either language
    a debate speaks; None for other words."""
    from debate_core.i18n import tr

    text = (text or "").strip()
    return next((m for m in msgids if text and any(tr(lang, m) == text for lang in i18n.LANGS)), None)


def name_text(label: str, name: str = "") -> str:
    """A participant as the page names it: a side the library named in the debate's language (a trial's 正方 /
    Pro) by its side in the reader's (PRO / 正方); a topic debater's anonymous label by its seat in the reader's
    language (辩手甲 is Debater A in English, Debater B is 辩手乙 in Chinese); any other name (a master, a model)
    as it is."""
    from debate_core.engines.judged_prompts import seat_label
    from debate_core.engines.judged_prompts.layout import SIDE_NAMES

    if label in SIDES and (not name or name == label or _library_word(name, [SIDE_NAMES[label]])):
        return side_text(label)
    if not name or name == label:
        return seat_label(str(label or ""), lang())
    return str(name or label or "")


def with_stance(name: str, stance: str) -> str:
    """A debater and its stance in one label the app frames (a vote's option, a chart's legend): the frame in the
    reader's language (``Debater A: “…”`` / ``辩手甲：「…」``), a stance of the debate's own words quoted as they
    are, one the app or the library wrote (For the motion) in the reader's words."""
    own = own_stance(stance)
    if own:
        return _("{name}: “{stance}”").format(name=name, stance=own)
    said = stance_text(stance)
    return _("{name} ({stance})").format(name=name, stance=said) if said and said != name else name


def stance_text(stance: str) -> str:
    """A stance the app or the library wrote (an imported benchmark's for / against the motion, a trial's 支持该命题
    / For the motion) in the reader's language; a debate's own stance as it is."""
    from debate_core.engines.judged_prompts.layout import SIDE_STANCES
    from debate_core.i18n import tr

    if stance in STANCES:
        return _(STANCES[stance])
    msgid = _library_word(stance, SIDE_STANCES.values())
    return tr(lang(), msgid) if msgid else str(stance or "")


def own_stance(stance: str) -> str:
    """The stance when it is the debate's own words (a topic debate's), else empty (the app's or the library's
    words, which :func:`stance_text` says in the reader's language)."""
    from debate_core.engines.judged_prompts.layout import SIDE_STANCES

    if stance in STANCES or _library_word(stance, SIDE_STANCES.values()):
        return ""
    return str(stance or "").strip()


def rule_text(rule: str) -> str:
    """A rule's name in the reader's language, from the rule registry."""
    return registry_label(rule, lang())


def mark_label(status: str, *, clean: bool) -> str:
    if not clean and status in MARKS_PLAIN:
        return _(MARKS_PLAIN[status])
    return _(MARKS[status]) if status in MARKS else str(status)


def finding_said(f: Any, *, inline: bool = True, notes: Optional[list[str]] = None):
    """A finding's message in the reader's language, from its details (:mod:`webapp.views.codes`); None when
    the app cannot say it (the page shows the checker's own words, marked as such, in a content region)."""
    from webapp.views.codes import finding_said as said

    return said(f, inline=inline, notes=notes)


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


def library_note(text: str) -> Optional[str]:
    """A stop reason or warning the library wrote for a topic debate or a trial (its ``NOTES``, in the debate's
    language) said again in the reader's, through the library's catalog; None for any other words (a debate's
    own).  A failure cause in it is said in the reader's words too, a side by its side."""
    from debate_core.engines.judged_prompts.layout import NOTES, SIDE_NAMES
    from debate_core.i18n import read_back, tr
    from webapp.views.codes import cause_text

    notes = [m for k, m in NOTES.items() if not k.startswith(("turn_", "no_debate_"))]
    found = read_back(text, notes)
    if found is None:
        return None
    msgid, values = found

    def say(key: str, value: str) -> str:
        if key == "cause":
            return cause_text(value) or value
        if key == "side":
            side = next((s for s, m in SIDE_NAMES.items() if _library_word(value, [m])), None)
            return side_text(side) if side else value
        if key == "why":
            return library_note(value) or value
        return value

    return tr(lang(), msgid, **{k: say(k, v) for k, v in values.items()})


def stop_reason_text(reason: str) -> str:
    """A stop reason the app wrote, in the reader's language (a model failure's cause too); any other (an
    imported debate's own) as it is."""
    said = app_stop_reason(reason)
    return (reason or "").strip() if said is None else said


def app_stop_reason(reason: str) -> Optional[str]:
    """A stop reason in the reader's language when the app wrote it; None for a debate's own (an imported
    debate's, a topic debate's or a trial's in the debate's language: the page shows it as content)."""
    from webapp.views.codes import cause_text

    reason = (reason or "").strip()
    for pattern, msgid in _STOPS:
        m = pattern.match(reason)
        if m:
            values = m.groupdict()
            if "cause" in values and not reason.startswith("意外错误"):  # a gateway's cause (an error's is its own)
                values["cause"] = cause_text(values["cause"]) or values["cause"]
            return _(msgid).format(**values)
    return library_note(reason)


_NOTES = [(re.compile(r"^the majority of a panel of (?P<n>\d+) judges \(see the judgments\)$"),
           N_("the majority of a panel of {n} judges (see the judgments)"))]


def note_text(note: str) -> str:
    """A verdict's note to readers the app wrote (an imported panel's), in the reader's language."""
    said = app_note(note)
    return note if said is None else said


def app_note(note: str) -> Optional[str]:
    """A verdict's note to readers when the app wrote it (an imported panel's), in the reader's language; None
    for a judge's own note (the debate's words)."""
    for pattern, msgid in _NOTES:
        m = pattern.match((note or "").strip())
        if m:
            return _(msgid).format(**m.groupdict())
    return None


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
    return "\n\n".join(_warning_part(part) or part for part in (warning or "").split("\n\n"))


def app_warning(warning: str) -> Optional[str]:
    """A debate's warning in the reader's language when the app wrote every paragraph of it; None for a
    debate's own (an imported debate's notes: its words, in its language)."""
    parts = [_warning_part(part) for part in (warning or "").split("\n\n")]
    return None if any(p is None for p in parts) else "\n\n".join(p or "" for p in parts)


def _warning_part(part: str) -> Optional[str]:
    for pattern, msgid in _WARNINGS:
        m = pattern.match(part.strip())
        if m:
            return _(msgid).format(**m.groupdict())
    return library_note(part)


def protocol_text(name: str) -> str:
    """A protocol's name in the reader's language (Master debate / 大师辩论; Benchmark debate)."""
    from debate_core.protocols import registry

    if name in registry.stored_names():
        return _(registry.get(name).app_title)
    return _(N_("Benchmark debate")) if name == "benchmark" else str(name)


def who_text(debate: Any) -> str:
    """The debaters in one plain line of the reader's language: names, and a side (PRO / CON) or the app's
    stance words; a debate's own stances are not here (they are its words: :func:`own_stances`)."""
    out = []
    for p in debate.participants:
        name = name_text(p.label, p.name)
        tag = side_text(p.label) if p.label in SIDES and debate.protocol == "benchmark" else \
            "" if own_stance(p.stance) else stance_text(p.stance)
        out.append(name + (f" ({tag})" if tag and tag != name else ""))
    return _(" vs ").join(out) if out else ""


def own_stances(debate: Any) -> list[tuple[str, str]]:
    """(name, stance) of each debater whose stance is the debate's own words (a topic debate's), in order."""
    return [(name_text(p.label, p.name), own_stance(p.stance)) for p in debate.participants if own_stance(p.stance)]


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


# what the topic's named voices (schools, masters) did to the choice, after "; " at the end of a reason
_PAIR_VOICES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"; the topic names (?P<voices>.+?): a pair with two of these voices$"),
     N_("the topic names {voices}: a pair with two of these voices")),
    (re.compile(r"; the topic names (?P<voices>.+?): one of these voices and a master outside them$"),
     N_("the topic names {voices}: one of these voices and a master outside them")),
    (re.compile(r"; the topic names (?P<voices>.+?): a pair with one of these voices$"),
     N_("the topic names {voices}: a pair with one of these voices")),
    (re.compile(r"; the topic names (?P<voices>.+?), but no pair with these voices fits it$"),
     N_("the topic names {voices}, but no pair with these voices fits it")),
]


def pair_reason_text(reason: str) -> str:
    """Why the pair was suggested, in the reader's language (the seed's quoted words stay as they are)."""
    reason = (reason or "").strip()
    for pattern, msgid in _PAIR_VOICES:
        m = pattern.search(reason)
        if m:
            voices = m.group("voices").replace("; ", _("; "))
            return pair_reason_text(reason[: m.start()]) + _("; ") + _(msgid).format(voices=voices)
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
