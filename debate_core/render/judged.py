"""Markdown for the judged protocols.

* Topic debate: the two files of the topic-debate folder layout — ``debate-log.md``
  (:func:`debate_log_md`: header with the label↔stance map and the mode, then one
  section per round, one block per debater) and ``verdict.md`` (:func:`verdict_md`:
  conclusion, reasons, the per-debater table, a note to readers).  Neither names a
  model: the log is what the judge reads (``for_judge=True`` drops the header's
  run metadata too).  The full rendering ends with the seed's wrap-up
  (:func:`wrap_up_md`): topic, stances, rounds run, converged or capped, degraded
  or not, where the artifacts are (the files an export wrote, else the command that
  writes them: never a file that does not exist), and the note that the verdict is a
  reference conclusion, not a final one.  The winner line is written once
  (:func:`summary_text`); an incomplete verdict says so (:func:`incomplete_line`); a
  debate that never took place has no verdict block.  :func:`progress_line` is the
  CLI's progress line.
* Trial: a transcript (round by round, pro then con, with the research each side
  did and a truncation flag) followed by the verdict with per-round commentary.

Everything is written in the debate's language (``debate.lang``) through the library's
catalogs (:mod:`debate_core.i18n`): the msgids are the English texts, the Chinese catalog
holds the seed's headings and notes.  A reader's app shows the wrap-up in its own language
instead: :func:`wrap_up` gives it as lines whose frame (field names, how the rounds ended,
the mode, the winner, where the artifacts are) is in ``lang`` and whose debate's own words
(its topic, its stances, the judge's summary) are apart, in the debate's language;
:func:`ending`, :func:`mode_text` and :func:`incomplete_line` take a ``lang`` too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath

from debate_core.engines.envelopes import Envelope, render_envelope, table_head
from debate_core.engines.judged_prompts import for_lang, seat_label
from debate_core.i18n import N_, tr, translator, trp
from debate_core.lang import has_cjk
from debate_core.models import Debate, Speech

# ------------------------------------------------------------------- the words

# a debate's status, as the renderings name it (msgids; any other value shows as it is)
STATUS = (N_("running"), N_("completed"), N_("failed"), N_("stopped"), N_("interrupted"))
SIDE = {"pro": N_("Pro"), "con": N_("Con")}
WINNER = {"pro": N_("Pro wins"), "con": N_("Con wins"), "draw": N_("Draw")}
TABLE_HEAD = (N_("Debater"), N_("Stance"), N_("Strongest argument"), N_("Fatal weakness"), N_("Score"))


def _lang(debate_or_lang) -> str:
    lang = debate_or_lang if isinstance(debate_or_lang, str) else getattr(debate_or_lang, "lang", "zh")
    return "en" if lang == "en" else "zh"


def _tr(debate_or_lang) -> Callable[..., str]:
    """The translator of a debate's (or a language code's) language: ``_("Topic")``."""
    return translator(_lang(debate_or_lang))


def _status(_: Callable[..., str], status: str) -> str:
    return _(status) if status in STATUS else status


def _role(lang: str, role: str) -> str:
    """A speech's role as the progress line names it (立论 / opening, 交叉反驳 / rebuttal, 发言 / speech)."""
    if role == "rebuttal":
        return trp(lang, "a topic debate's round", "rebuttal")
    if role == "opening":
        return tr(lang, "opening")
    return tr(lang, "speech") if role in SIDE else role


def _stance(debate: Debate, label: str) -> str:
    p = debate.participant(label)
    return p.stance if p else ""


def is_degraded(debate: Debate) -> bool:
    # "降级" / "Degraded" start the warning; "degraded": records older than both
    return any(w.startswith((tr("zh", "Degraded"), "degraded", "Degraded")) for w in debate.warnings)


def no_debate(debate: Debate) -> bool:
    """The debate ended without any usable round: the judge was not asked (未成辩论 / No debate)."""
    return debate.verdict is None and debate.stop_reason.startswith((tr("zh", "No debate"), "No debate"))


def _speech_block(debate: Debate, s: Speech, *, for_judge: bool) -> list[str]:
    _ = _tr(debate)
    out = ["### " + s.speaker + _(" ({text})", text=_stance(debate, s.speaker)), ""]
    if s.status in ("failed", "empty") or s.envelope is None:
        if for_judge:
            out += [_("(nothing usable this round; treated as an empty envelope: no arguments, no rebuttals)"), ""]
        elif no_debate(debate):  # the stop note says the causes, once each
            out += [
                "> "
                + _("Note: ")
                + _(
                    "{label} produced nothing usable in round {r}; treated as empty (the "
                    "cause is in the stop note at the end)",
                    label=s.speaker,
                    r=s.round,
                ),
                "",
            ]
        else:
            why = _("; ").join(s.warnings) or _("nothing usable")
            out += [
                "> "
                + _("Note: ")
                + _(
                    "{label} produced nothing usable in round {r} ({why}); treated as empty",
                    label=s.speaker,
                    r=s.round,
                    why=why,
                ),
                "",
            ]
        if s.envelope is not None and not Envelope.model_validate(s.envelope).is_empty:
            out += [render_envelope(s.envelope, lang=debate.lang), ""]
        return out
    out += [render_envelope(s.envelope, lang=debate.lang), ""]
    if not for_judge:
        for w in s.warnings:
            out += ["> " + _("Note: ") + w, ""]
    return out


def mode_text(debate: Debate, lang: str | None = None) -> str:
    """The debate's mode (normal / degraded) in ``lang`` (default: the debate's)."""
    _, n = _tr(lang or debate), len(debate.participants)
    if is_degraded(debate):
        return _(
            "degraded ({distinct} model(s) shared in turn by {n} debaters, not heterogeneous)",
            distinct=len({p.model for p in debate.participants}),
            n=n,
        )
    return _("normal ({n} debaters, each on a different model, anonymous to each other)", n=n)


def _field(_: Callable[..., str], name: str, value: str = "") -> str:
    """A header line: ``- **Topic**: …`` / ``- **辩题**：…`` (``name`` a msgid)."""
    return "- **" + _(name) + "**" + _(": ") + value


def debate_log_md(debate: Debate, *, for_judge: bool = False) -> str:
    """The topic debate's ``debate-log.md``; ``for_judge`` gives the anonymous log the judge reads."""
    _ = _tr(debate)
    out = ["# " + _("Debate log: {topic}", topic=debate.topic), ""]
    stances = ["- " + p.label + " → " + _('"{text}"', text=p.stance) for p in debate.participants]
    if not for_judge:
        out.append(_field(_, N_("Topic"), debate.topic))
        out.append(_field(_, N_("Stances (anonymous)")))
        out += ["  " + line for line in stances]
        out.append(_field(_, N_("Mode"), mode_text(debate)))
        out.append(
            _field(
                _,
                N_("Format"),
                _(
                    "parallel openings → cross rebuttals (at most {n} rounds, stopping when "
                    "nobody has new points) → independent judge",
                    n=debate.planned_rounds,
                ),
            )
        )
        out.append(_field(_, N_("Generated"), f"{debate.created_at.isoformat()} · " + _("debate") + f" {debate.id}"))
        for w in debate.warnings:
            out.append(f"\n> ⚠️ {w}")
        out += ["", "---", ""]
    else:
        out += [_("The stances:"), *stances, ""]
    rounds = sorted({s.round for s in debate.rounds})
    for r in rounds:
        title = _("Openings (in parallel, unseen by each other)") if r == 1 else _("Cross rebuttals")
        out += ["## " + _("Round {r}: {title}", r=r, title=title), ""]
        for s in [s for s in debate.rounds if s.round == r]:
            out += _speech_block(debate, s, for_judge=for_judge)
        out += ["---", ""]
    if not for_judge and debate.stop_reason:
        out += ["**" + _("Stopped") + "**" + _(": ") + debate.stop_reason, ""]
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str, lang: str = "zh") -> str:
    # a "|" inside a cell would end it: "/" in English, the full-width "｜" in Chinese
    return re.sub(r"\s+", " ", (text or "").replace("|", trp(_lang(lang), "table cell", "/"))).strip() or "—"


def _score(v) -> str:
    if v is None:
        return "—"
    return f"**{v:.1f}**" if round(v, 1) == v else f"**{v:g}**"


def _win_head(debate: Debate, winner: str, lang: str | None = None, *, with_stance: bool = True) -> str:
    """辩手乙（远程更好）胜出 / Debater B ("Remote is better") wins; without the stance: Debater B wins."""
    _ = _tr(lang or debate)
    stance = _stance(debate, winner) if with_stance else ""
    if not stance:  # the winner alone, by its seat as a debate in the reader's language names it (辩手甲 / Debater A)
        return _("{winner} wins", winner=seat_label(winner, _lang(lang or debate)))
    return _('{winner} ("{stance}") wins', winner=winner, stance=stance)


_SEPS = r"[\s—\-－–:：，,。.；;!！]"
_WIN_WORD = rf"(?:胜出|获胜|胜(?={_SEPS}|$)|\s+(?:wins|won|prevails|is the winner|carries the debate)\b)"


def _win_prefix(winner: str) -> re.Pattern[str]:
    """A leading winner statement: 辩手乙（…）胜出—— / **Winner:** Debater B — / Debater B wins."""
    w, paren = re.escape(winner), r"(?:\s*[（(][^）)]*[）)])?"
    field = rf"(?:胜方|获胜方|winner)\s*\**\s*[:：]\s*(?:\*\*)?\s*{w}{paren}(?:\*\*)?{_WIN_WORD}?"
    return re.compile(rf"^\s*(?:\*\*)?(?:{field}|{w}{paren}\s*{_WIN_WORD})(?:\*\*)?{_SEPS}*", re.I)


def summary_text(debate: Debate) -> str:
    """The verdict's summary without a leading winner statement (辩手乙（…）胜出——, Winner: Debater B —):
    the heading already names the winner, so the winner line says it once."""
    v = debate.verdict
    summary = (v.summary if v else "").strip()
    if summary and v and v.winner:
        pat = _win_prefix(v.winner)
        for _ in range(3):  # a judge who wrote it twice
            cut = pat.sub("", summary, count=1).strip()
            if cut == summary:
                break
            summary = cut
    return summary


_summary = summary_text


def incomplete_line(debate: Debate, lang: str | None = None) -> str:
    """判决不完整：缺辩手乙的逐方点评、判词 / Verdict incomplete: missing …, in ``lang`` (default: the
    debate's); empty for a verdict that is complete, unparsed (that says so itself) or never checked."""
    v = debate.verdict
    if v is None or not v.parsed or v.complete is not False:
        return ""
    lang = _lang(lang or debate)
    _ = _tr(lang)
    what = for_lang(lang).missing_text(v.missing) if v.missing else "?"
    return _("Verdict incomplete: missing {what}", what=what)


def verdict_md(debate: Debate) -> str:
    """The topic debate's ``verdict.md``; an unparsed verdict is shown raw and says no winner was read."""
    _ = _tr(debate)
    c = _(": ")
    out = ["# " + _("Judge's verdict: {topic}", topic=debate.topic), ""]
    v = debate.verdict
    conclusion = "## " + _("1. Winner")
    if no_debate(debate):  # no judge was asked: no judge's introduction, the cause is in the log, once
        out += [
            conclusion,
            "",
            _(
                "**No debate: the judge was not asked, so there is no verdict.** The cause is in "
                "the stop note at the end of debate-log.md."
            ),
        ]
        return "\n".join(out).rstrip() + "\n"
    out += [
        "> "
        + _("An independent judge (who took no part and saw only the anonymous log) rules on the arguments alone."),
        "",
    ]
    if v is None:
        out += [
            conclusion,
            "",
            _(
                "(no verdict yet: {status}, {reason})",
                status=_status(_, debate.status),
                reason=debate.stop_reason or _("the judge has not run"),
            ),
        ]
        return "\n".join(out).rstrip() + "\n"
    if not v.parsed:
        out += [
            conclusion,
            "",
            _("**The judge's output could not be parsed: no winner (not a draw).** The judge's text follows."),
            "",
            "## " + _("The judge's text"),
            "",
            v.raw.strip() or _("(empty)"),
        ]
        return "\n".join(out).rstrip() + "\n"
    head = f"**{_win_head(debate, v.winner or '')}**"
    summary = _summary(debate)
    out += [conclusion, "", head + (_(" — ") + summary if summary else ""), ""]
    if incomplete_line(debate):
        out += [f"> ⚠️ {incomplete_line(debate)}", ""]
    out += ["## " + _("2. Reasons"), ""]
    order = for_lang(_lang(debate)).REASON_KEYS
    keys = [k for k in order if k in v.reasons] + [k for k in v.reasons if k not in order]
    for k in keys:
        out += [f"**{k}**{c}{v.reasons[k].strip()}", ""]
    if not keys:
        out += [_("(the judge gave no reasons)"), ""]
    out += ["## " + _("3. Debater by debater"), "", *table_head([_(c) for c in TABLE_HEAD])]
    lang = debate.lang
    for row in v.rows:
        out.append(
            f"| {row.label} | {_cell(row.stance or _stance(debate, row.label), lang)} | "
            f"{_cell(row.strongest, lang)} | {_cell(row.weakness, lang)} | {_score(row.score)} |"
        )
    for code in v.missing:  # a debater the judge left out shows as left out
        if code.startswith("row:") and not any(r.label == code[4:] for r in v.rows):
            label = code[4:]
            out.append(
                f"| {label} | {_cell(_stance(debate, label), lang)} | "
                + _("(not assessed by the judge)")
                + " | — | — |"
            )
    out.append("")
    if v.note.strip():
        out += ["## " + _("4. A note for readers"), "", v.note.strip(), ""]
    return "\n".join(out).rstrip() + "\n"


def ending(debate: Debate, lang: str | None = None) -> str:
    """How the rounds ended: converged, hit the cap, stopped on empty rounds, or not finished; in ``lang``
    (default: the debate's)."""
    _ = _tr(lang or debate)
    rounds = sorted({s.round for s in debate.rounds})
    if not rounds:
        return _("not a single round was played")
    last = [s for s in debate.rounds if s.round == rounds[-1]]
    said = [s for s in last if s.status not in ("empty", "failed")]
    if rounds[-1] >= 2 and said and all((s.envelope or {}).get("no_new_points") for s in last):
        return _("converged (nobody had new points in round {r})", r=rounds[-1])
    if rounds[-1] >= debate.planned_rounds:
        return _("stopped at the cap ({n} rounds)", n=debate.planned_rounds)
    if not said:
        return _("stopped after round {r} was empty for everyone", r=rounds[-1])
    return _("not finished ({status})", status=_status(_, debate.status))


def _outcome(debate: Debate, lang: str | None = None, *, own: bool = True) -> str:
    """The wrap-up's winner line: the winner and the verdict's summary, or why there is none.  Without
    ``own``: the winner by its label alone and no summary (the debate's words, shown apart)."""
    lang = _lang(lang or debate)
    _, v = _tr(lang), debate.verdict
    if no_debate(debate):
        return _("no debate, the judge was not asked")
    if v is None:
        return _("no verdict yet ({status})", status=_status(_, debate.status))
    if not v.parsed or not v.winner:
        return _("the judge's output could not be parsed: no winner (not a draw)")
    outcome = _win_head(debate, v.winner, lang, with_stance=own)
    summary = _summary(debate) if own else ""
    if summary:
        outcome += _(" — ") + summary
    if incomplete_line(debate, lang):
        outcome += _(" ({text})", text=incomplete_line(debate, lang))
    return outcome


def _where(debate: Debate, lang: str, archive: str | None, export: str | None) -> tuple[list[str], str | None]:
    """The Artifacts line's parts (the debate id, the archive, the files an export wrote or the command that
    writes them) and the log an export wrote, if any."""
    _ = _tr(lang)
    where = [_("debate id `{id}`", id=debate.id)]
    if archive:
        where.append(_("archive `{path}`", path=archive))
    log = None
    if export:  # the folder an export wrote (or its log file): the files that exist
        folder = PurePath(export).parent if str(export).endswith(".md") else PurePath(export)
        log = str(folder / "debate-log.md")
        where.append(_("`{log}` and `{verdict}`", log=log, verdict=str(folder / "verdict.md")))
    else:
        where.append(
            _(
                "to write files: `python -m debate_core export {id} --format md --out {id}.md` (the whole "
                "debate), or `--format debate-dir` (debate-log.md and verdict.md)",
                id=debate.id,
            )
        )
    return where, log


def _closing(debate: Debate, lang: str, log: str | None) -> str:
    """The wrap-up's last note: a reference conclusion, not a final answer (or: no debate took place)."""
    _ = _tr(lang)
    if no_debate(debate) or debate.verdict is None:
        trace = (
            _("what was recorded is in `{log}`.", log=log)
            if log
            else _("what was recorded can be written to a file with the command on the Artifacts line.")
        )
        return _("No debate took place: there is no verdict and so no conclusion; {trace}", trace=trace)
    trace = (
        _("every argument and rebuttal of every round is in `{log}` and can be traced point by point.", log=log)
        if log
        else _(
            "every argument and rebuttal of every round is in this debate's record "
            "and can be traced point by point (the Artifacts line gives the command "
            "that writes it to a file)."
        )
    )
    return _("This is a reference conclusion from an AI debate, not a final answer; {trace}", trace=trace)


def wrap_up_md(debate: Debate, *, archive: str | None = None, export: str | None = None) -> str:
    """The seed's closing summary: what was debated, how it went, where the artifacts are."""
    _ = _tr(debate)
    stances = _("; ").join(_('{label} → "{stance}"', label=p.label, stance=p.stance) for p in _by_stance(debate))
    rounds = sorted({s.round for s in debate.rounds})
    where, log = _where(debate, _lang(debate), archive, export)
    out = [
        "## " + _("Wrap-up"),
        "",
        _field(_, N_("Topic"), debate.topic),
        _field(_, N_("Stances"), _("{n} sides — {stances}", n=len(debate.participants), stances=stances)),
        _field(
            _,
            N_("Rounds"),
            _("{n} played (cap {cap}), {ending}", n=len(rounds), cap=debate.planned_rounds, ending=ending(debate)),
        ),
        _field(_, N_("Mode"), mode_text(debate)),
        _field(_, N_("Winner"), _outcome(debate)),
        _field(_, N_("Artifacts"), _("; ").join(where)),
        "",
        f"> {_closing(debate, _lang(debate), log)}",
    ]
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class WrapLine:
    """One line of the wrap-up: its field's name and what the library says there, in the frame's language,
    then the debate's own words it shows (its topic, its stances, the judge's summary), in the debate's."""

    key: str
    text: str = ""
    own: tuple[str, ...] = ()


@dataclass(frozen=True)
class WrapUp:
    heading: str
    lines: tuple[WrapLine, ...]
    closing: str


def wrap_up(
    debate: Debate, *, lang: str | None = None, archive: str | None = None, export: str | None = None
) -> WrapUp:
    """The wrap-up (:func:`wrap_up_md`'s content) for a reader in ``lang`` (default: the debate's): every word
    of the library's in ``lang``; the debate's own words apart in :attr:`WrapLine.own`, in the debate's
    language (a stance, in the reader's frame with its seat in the reader's words: ``辩手乙 →「…」`` /
    ``Debater B → "…"``)."""
    lang = _lang(lang or debate)
    _ = _tr(lang)
    n = len(debate.participants)
    rounds = sorted({s.round for s in debate.rounds})
    where, log = _where(debate, lang, archive, export)
    v = debate.verdict
    summary = (_summary(debate),) if v is not None and v.parsed and v.winner and _summary(debate) else ()
    lines = (
        WrapLine(_("Topic"), own=(debate.topic,)),
        WrapLine(
            _("Stances"),
            _("{n} sides", n=n),
            # each stance (the debate's words) in the reader's frame: 辩手乙 →「…」 / Debater B → "…"
            tuple(
                _('{label} → "{stance}"', label=seat_label(p.label, lang), stance=p.stance) for p in _by_stance(debate)
            ),
        ),
        WrapLine(
            _("Rounds"),
            _(
                "{n} played (cap {cap}), {ending}",
                n=len(rounds),
                cap=debate.planned_rounds,
                ending=ending(debate, lang),
            ),
        ),
        WrapLine(_("Mode"), mode_text(debate, lang)),
        WrapLine(_("Winner"), _outcome(debate, lang, own=False), summary),
        WrapLine(_("Artifacts"), _("; ").join(where)),
    )
    return WrapUp(_("Wrap-up"), lines, _closing(debate, lang, log))


def _by_stance(debate: Debate) -> list:
    return sorted(debate.participants, key=lambda p: _stance_order(p.label))


def _stance_order(label: str) -> int:
    # stance 1, 2, 3, 4 as the seed assigns them, in either language
    for lang in ("zh", "en"):
        order = for_lang(lang).STANCE_LABELS
        if label in order:
            return order.index(label)
    return 4


def render_topic(debate: Debate, *, archive: str | None = None, export: str | None = None) -> str:
    """The log, the verdict and the wrap-up; a debate that never took place has no verdict block
    (its log's stop note says why, once, and the wrap-up says no judge was asked)."""
    verdict = "" if no_debate(debate) else verdict_md(debate) + "\n---\n\n"
    return debate_log_md(debate) + "\n---\n\n" + verdict + wrap_up_md(debate, archive=archive, export=export)


def speech_lang(speech: Speech) -> str:
    """A speech's debate language, read from its speaker's name (辩手甲 / 正方 → zh; Debater A / Pro → en)."""
    name = speech.speaker_name or ""
    return "en" if name and not has_cjk(name) and name not in ("pro", "con") else "zh"


def progress_line(speech: Speech, lang: str | None = None) -> str:
    """The CLI's progress line for a topic-debate or trial speech, in the debate's language:
    ``  第 1 轮｜辩手甲 立论 完成`` / ``  Round 1 | Debater A opening done`` (or empty / failed with
    the cause).  ``lang`` defaults to the speech's own (:func:`speech_lang`)."""
    lang = _lang(lang or speech_lang(speech))
    _ = translator(lang)
    who = _(SIDE[speech.speaker]) if speech.speaker in SIDE else speech.speaker_name or speech.speaker
    head = _("  Round {r} | {who} {role}", r=speech.round, who=who, role=_role(lang, speech.role))
    if speech.status == "failed":
        return head + " " + _("failed") + _(": ") + (_("; ").join(speech.warnings) or _("no reply"))
    if speech.status == "empty":
        return head + " " + _("empty") + _(": ") + (_("; ").join(speech.warnings) or _("nothing usable"))
    flags = []
    if speech.retries:
        flags.append(_("resent {n}x", n=speech.retries))
    if (speech.envelope or {}).get("no_new_points"):
        flags.append(_("no new points"))
    if speech.truncated:
        flags.append(_("cut"))
    return head + " " + _("done") + (_(" ({text})", text=_(", ").join(flags)) if flags else "")


# ----------------------------------------------------------------------- trial


def _tool_call(tc) -> str:
    return f"{tc.name}({', '.join(f'{k}={v}' for k, v in tc.arguments.items())})" + (" ✗" if tc.error else "")


def render_trial(debate: Debate) -> str:
    _ = _tr(debate)
    c = _(": ")
    limit = debate.config.max_speech_length
    out = ["# " + _("Trial: {topic}", topic=debate.topic), ""]
    out.append(
        _field(
            _,
            N_("Format"),
            _(
                "{n} round(s), pro speaks first in each round, then con; each speech at "
                "most {limit} words; one verdict from the judge at the end",
                n=debate.planned_rounds,
                limit=limit,
            ),
        )
    )
    if debate.config.workspace:
        out.append(
            _field(
                _, N_("Research"), _("workspace `{path}` (read-only: read / glob / grep)", path=debate.config.workspace)
            )
        )
    status = _status(_, debate.status)
    out.append(
        _field(
            _,
            N_("Debate"),
            f"{debate.id} · "
            + _("status")
            + c
            + status
            + (_(" ({text})", text=debate.stop_reason) if debate.stop_reason else ""),
        )
    )
    for w in debate.warnings:
        out.append(f"\n> ⚠️ {w}")
    out.append("")
    for r in sorted({s.round for s in debate.rounds}):
        out += ["## " + _("Round {r}", r=r), ""]
        for s in [s for s in debate.rounds if s.round == r]:
            out += ["### " + (_(SIDE[s.speaker]) if s.speaker in SIDE else s.speaker), ""]
            if s.tool_calls:
                out += ["> " + _("Research: ") + _("; ").join(_tool_call(tc) for tc in s.tool_calls), ""]
            if s.status == "failed":
                out += [_("(speech not finished: {why})", why=_("; ").join(s.warnings) or _("generation failed")), ""]
                continue
            out += [s.text.strip() or _("(empty)"), ""]
            if s.truncated:
                out += ["> " + _("✂️ Cut: the part beyond {limit} words was removed", limit=limit), ""]
    v = debate.verdict
    out += ["## " + _("Verdict"), ""]
    if v is None:
        out.append(_("(no verdict yet)"))
    elif not v.parsed:
        out += [
            _("**The judge's output could not be parsed: no winner.** The judge's text follows."),
            "",
            v.raw.strip() or _("(empty)"),
        ]
    else:
        if incomplete_line(debate):
            out += [f"> ⚠️ {incomplete_line(debate)}", ""]
        left_out = [int(m[6:]) for m in v.missing if m.startswith("round:") and m[6:].isdigit()]
        missing = _("(the judge did not comment on this round)")
        comments = sorted(
            [(cm.round, cm.comment) for cm in v.per_round]
            + [(r, missing) for r in left_out if all(cm.round != r for cm in v.per_round)]
        )
        for r, comment in comments:
            out += ["- **" + _("Round {r}", r=r) + "**" + c + comment]
        if comments:
            out.append("")
        winner = _(WINNER[v.winner]) if v.winner in WINNER else v.winner
        out += ["**" + _("Verdict") + c + f"{winner}**" + (_(" — ") + v.summary if v.summary else ""), ""]
        for k, text in v.reasons.items():
            out += [f"**{k}**{c}{text}", ""]
    return "\n".join(out).rstrip() + "\n"
