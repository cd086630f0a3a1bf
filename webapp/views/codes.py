"""What the library states as codes and values, said in the reader's language: a check finding's details
(:class:`debate_core.models.Detail`, written by :mod:`debate_core.checks` beside the checker's Chinese
message) and a model failure's cause (:func:`debate_core.engines.gateway.cause_detail`).

Each code has an English msgid here (the Chinese msgstr is the checker's own wording); its values are
numbers, ids and masters' names, said as they are, and the debate's own words it quotes (a phrase of
the speech, a title of the pack), which are content: inline, quoted 「…」 or 《…》, when the debate
speaks the reader's language, else a note number (¹ ²) whose words the page shows in a ``content-…``
region (:attr:`Said.notes`).  A finding without details (stored before they existed, imported, the
model audit's own words) or with a code unknown here gets None: the page shows its stored message as
the checker's own words, in a content region.  Nothing here imports streamlit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from debate_core.checks.registry import LEADS
from debate_core.engines.gateway import read_cause

from webapp.i18n import N_, _

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

# a finding's details: code -> what it says (English msgid; the catalogs hold the reader's words)
DETAILS: dict[str, str] = {
    "undecided": N_("undecided"),
    "speech.empty": N_("the speech is empty"),
    "not_applicable.role": N_("not applicable to this role"),
    "not_applicable.protocol": N_("not applicable to this protocol"),
    "length.count": N_("{n} Chinese characters"),
    "length.range": N_("{n} Chinese characters; it must be {lo}–{hi}"),
    "citation.no_sources": N_("{who} has no listed sources in the pack: the citations cannot be checked"),
    "citation.none": N_("no source cited: cite at least one of {who}'s own listed sources by its id (such as "
                        "{example})"),
    "citation.not_own": N_("{id} is not one of {who}'s listed sources (it is {owner}'s)"),
    "citation.not_in_pack": N_("{id} is not one of {who}'s listed sources (the pack has no such id)"),
    "citation.untitled_source": N_("{id} has no title in the pack: the title written with it, {title}, cannot be "
                                   "checked"),
    "citation.title_unclear": N_("{title} does not say which text it means ({id} is {source})"),
    "citation.title_mismatch": N_("the title {title} does not match the id: {id} is {source}"),
    "citation.title_other": N_("the title {title} does not match the id: {id} is {source}, and {title} is "
                               "{other}"),
    "citation.framed": N_("the sentence quotes the words of {framed} but cites {source} ({id})"),
    "citation.quote_not_in_pack": N_("the quote {quote} is not in the pack's original text of {source} ({id}): "
                                     "probably invented"),
    "citation.quote_not_in_canon": N_("the quote {quote} is not in the configured CBETA canon's text of {source} "
                                      "({id}): probably invented"),
    "citation.quote_points_only": N_("the quote {quote} cannot be checked: the pack has only notes on {source}, "
                                     "not its text"),
    "citation.quote_no_text": N_("the quote {quote} cannot be checked: the pack has no text of {source} ({id})"),
    "citation.title_not_own": N_("{bracket} cites {title}, which is not one of {who}'s listed sources (it is "
                                 "{other}, {owner}'s)"),
    "citation.title_not_own_id": N_("{bracket} cites {title}, which is not one of {who}'s listed sources (it is "
                                    "{other})"),
    "citation.title_no_id": N_("{bracket} cites {title}, which is not one of {who}'s listed sources, and gives no "
                               "id"),
    "citation.own": N_("every source is the speaker's own"),
    "citation.mark": N_("{id} ({status})"),
    "ammo.none_in_pack": N_("the pack has no ammo of {me} aimed at {who} (a coverage gap): not applicable"),
    "ammo.used": N_("used {used} of the {all} ammo entries aimed at {who}"),
    "ammo.unused": N_("used none of the ammo aimed at {who}; at least one is required"),
    "restatement.not_required": N_("this role need not restate the opponent"),
    "restatement.no_summary": N_("undecided: no summary of the opponent's last round to check the restatement "
                                 "against"),
    "restatement.missing": N_("{where} does not restate {who}'s position ({pct}% overlap with the summary): a "
                              "rebuttal or a response first restates what the opponent said last"),
    "restatement.distorts": N_("{where} distorts {who}: the summary has no words like {terms}"),
    "restatement.adds": N_("{where} adds a claim the summary does not make: {claim}"),
    "restatement.unnamed": N_("{where} does not say that it restates {who}'s position"),
    "restatement.own_claim": N_("{where} restates the speaker's own claim, not {who}'s"),
    "restatement.restated": N_("{where} restates {who}'s position ({pct}% overlap with the summary)"),
    "engages.not_required": N_("this role need not answer the opponent"),
    "engages.no_summary": N_("undecided: no summary of the opponent's last round to check the answers against"),
    "engages.no_points": N_("undecided: the opponent's summary has no point to recognise"),
    "engages.missing": N_("after the restatement the speech does not answer the opponent's point {point} ({k} of "
                          "{n} points answered): a rebuttal or a response answers the points it restated"),
    "engages.by_plan": N_("the speech answers the {n} restated points, as its speech plan says"),
    "engages.answered": N_("the speech answers {k} of the {n} points it restated"),
    "no_verdict.found": N_("contains a verdict"),
    "no_verdict.hit": N_("{phrase} ({kind})"),
    "no_verdict.none": N_("no verdict"),
    "no_dialogue.found": N_("invents a meeting or dialogue between the masters"),
    "no_dialogue.hit": N_("{quote}"),
    "no_dialogue.none": N_("no invented dialogue between the masters"),
    "hygiene.none": N_("no URL, link, editorial note, prompt fragment, unpaired bracket or English"),
    "hygiene.not_speech": N_("not speech"),
    "hygiene.url": N_("a web address: {excerpt}"),
    "hygiene.file_name": N_("a file name: {excerpt}"),
    "hygiene.md_link": N_("a Markdown link: {excerpt}"),
    "hygiene.md_markup": N_("Markdown markup: {excerpt}"),
    "hygiene.editorial": N_("an editorial note of the pack: {excerpt}"),
    "hygiene.prompt": N_("a fragment of a prompt or a writing instruction: {excerpt}"),
    "hygiene.bracket_title": N_("a 【】 heading that is no citation: {excerpt}"),
    "hygiene.unclosed": N_("an unpaired bracket or quote: {mark} is not closed: …{excerpt}"),
    "hygiene.extra": N_("an unpaired bracket or quote: {mark} closes nothing: …{excerpt}"),
    "hygiene.double_quotes": N_("an unpaired bracket or quote: the English double quotes are unpaired"),
    "hygiene.english_run": N_("English in a Chinese speech ({n} words, from “{first}”)"),
    "hygiene.english_word": N_("English in a Chinese speech (“{word}”)"),
    "audit.not_json": N_("undecided: the audit model's reply is not JSON"),
    "audit.no_answer": N_("undecided: the audit model gave no answer on this rule"),
    "audit.call_failed": N_("undecided: the call to the audit model failed ({cause})"),
}

# values that are the debate's own words: quoted 「…」 (the speech's) or 《…》 (a title)
QUOTED = frozenset({"quote", "phrase", "claim", "point", "terms", "excerpt", "bracket"})
TITLES = frozenset({"title", "source", "framed"})

WHERE = {"first": N_("the first sentence"), "opening": N_("the opening restatement")}
VERDICT_KINDS = {"outcome": N_("declares a winner"), "comparison": N_("ranks one above the other"),
                 "degree": N_("ranks one above the other"), "rightness": N_("judges who is right"),
                 "recommendation": N_("chooses for the reader")}
MARK_WORDS = {"verified": N_("quote verified"), "id_only": N_("id only"), "unverified": N_("quote not verified"),
              "unchecked": N_("no source text to check the quote")}

# a model failure's cause (debate_core.engines.gateway.CAUSES): kind -> what it says
CAUSES = {
    "timeout": N_("timed out waiting for the model"),
    "stream_cut": N_("the model's reply was cut off midway"),
    "connection": N_("could not connect to the model service"),
    "rate_limited": N_("the model service is rate limiting (429)"),
    "auth": N_("authentication failed: check the API key in the environment"),
    "not_found": N_("the model or the service address was not found"),
    "server_error": N_("the model service failed"),
    "rejected": N_("the model service refused the request"),
    "empty": N_("the model returned an empty reply"),
    "stopped": N_("stopped by the user midway"),
    "no_observation": N_("the model gave no usable neutral observation (a field missing, or a winner declared)"),
    "failed": N_("the model call failed"),
}
WHAT = {"摘要": N_("the summary: {cause}")}  # what failed, when it was not the speech itself
CALL_FAILED = N_("the model call failed: {cause}")  # a topic debate's or a trial's failed speech (NOTES call_failed)


@dataclass
class Said:
    """A statement in the reader's language; the debate's words it quotes by note number are in ``notes``."""
    text: str
    notes: list[str] = field(default_factory=list)


def _args(d: Any) -> tuple[str, dict[str, Any]]:
    if isinstance(d, dict):
        return str(d.get("code") or ""), dict(d.get("args") or {})
    return str(getattr(d, "code", "") or ""), dict(getattr(d, "args", {}) or {})


def _value(key: str, value: Any, inline: bool, notes: list[str]) -> str:
    from webapp.views import chrome

    if value is None:
        return ""
    if key == "where" and value in WHERE:
        return _(WHERE[value])
    if key == "kind" and value in VERDICT_KINDS:
        return _(VERDICT_KINDS[value])
    if key == "status" and value in MARK_WORDS:
        return _(MARK_WORDS[value])
    if key == "role":
        return chrome.role_text(str(value))
    if key in QUOTED or key in TITLES:
        text = str(value)
        shown = text if key == "bracket" else f"「{text}」" if key in QUOTED else f"《{text.strip('《》')}》"
        if inline or not _CJK.search(text):  # words the reader can read anyway (a URL, a file name) stay inline
            return shown
        if shown not in notes:
            notes.append(shown)
        return str(notes.index(shown) + 1).translate(SUPERSCRIPT)
    return str(value)


def detail_text(d: Any, *, inline: bool = True, notes: Optional[list[str]] = None) -> Optional[str]:
    """One detail in the reader's language; None for a code unknown here."""
    code, args = _args(d)
    if code not in DETAILS:
        return None
    notes = [] if notes is None else notes
    if code == "audit.call_failed":
        args = {"cause": cause_words(args)}
    values = {k: _value(k, v, inline, notes) for k, v in args.items()}
    try:
        return _(DETAILS[code]).format(**values)
    except (KeyError, IndexError):  # a stored detail without a value its words need
        return None


def details_text(details: Iterable[Any], *, inline: bool = True,
                 notes: Optional[list[str]] = None) -> Optional[str]:
    """A finding's details as one line in the reader's language (a leading detail — undecided, every source
    is the speaker's own — introduces the ones after it); None when there are none or one is unknown here."""
    details = list(details or [])
    if not details:
        return None
    notes = [] if notes is None else notes
    start = len(notes)
    parts: list[tuple[str, str]] = []
    for d in details:
        text = detail_text(d, inline=inline, notes=notes)
        if text is None:
            del notes[start:]
            return None
        parts.append((_args(d)[0], text))
    out, rest = "", []
    for code, text in parts:
        if code in LEADS and not rest and not out:
            out = text + _(": ")
        else:
            rest.append(text)
    return out + _("; ").join(rest) if rest else out.removesuffix(_(": "))


def finding_said(f: Any, *, inline: bool = True, notes: Optional[list[str]] = None) -> Optional[Said]:
    """A finding (a :class:`~debate_core.models.Finding` or the view's dict of one) from its details, in the
    reader's language; None when it has none the app can say (the page shows its stored message).  The
    quoted words go on ``notes`` when given (numbered after the ones already there), and into ``Said.notes``."""
    details = f.get("details") if isinstance(f, dict) else getattr(f, "details", None)
    notes = [] if notes is None else notes
    start = len(notes)
    text = details_text(details or [], inline=inline, notes=notes)
    return None if text is None else Said(text, notes[start:])  # (a note shared with an earlier finding: there)


def cause_words(detail: dict[str, Any]) -> str:
    """A model failure's cause (:func:`debate_core.engines.gateway.cause_detail`) in the reader's language."""
    text = _(CAUSES.get(str(detail.get("kind")), CAUSES["failed"]))
    if detail.get("http"):
        text = _("{cause} (HTTP {status})").format(cause=text, status=detail["http"])
    if detail.get("attempts"):
        text = _("{cause} ({n} attempts)").format(cause=text, n=detail["attempts"])
    return text


def cause_text(shown: str) -> Optional[str]:
    """A failure cause as a debate stored it (``等待模型超时（共尝试 4 次）``, ``摘要：…``, the gateway's English
    cause) in the reader's language; None when it is not one of the gateway's causes."""
    from debate_core.engines.judged_prompts import for_lang

    shown = (shown or "").strip()
    leads = [(what + "：", msgid) for what, msgid in WHAT.items()]
    leads += [(m.NOTES["call_failed"].split("{cause}")[0], CALL_FAILED) for m in (for_lang("zh"), for_lang("en"))]
    for lead, msgid in leads:
        if lead and shown.startswith(lead):
            inner = cause_text(shown[len(lead):])
            return None if inner is None else _(msgid).format(cause=inner)
    detail = read_cause(shown)
    return None if detail is None else cause_words(detail)
