"""One debate as one self-contained HTML page: for reading on a screen, for a projector, for print.

The page holds everything it shows: its CSS is inline (:mod:`debate_core.render.html_style`), it
has no script, no image, no font and no link to anywhere, and a Content-Security-Policy of
``default-src 'none'`` makes any request it might still contain fail.  Every piece of a debate's
text (topic, names, speeches, judges' notes) is HTML-escaped and never read as Markdown or HTML:
``<script>``, ``<img src=…>`` or a Markdown image ``![x](http://host/x.png)`` in a speech shows
as the characters it is.  Only ``**bold**``, bullet lines and paragraphs are given form.

It is written in the debate's language (``debate.lang``; a master debate is Chinese):

1. the header: the seed's disclaimer where there is one, the topic, who argued, when;
2. the speeches as cards: paragraphs, the citations as numbered notes (the source's title and
   its verification mark, ✓ only when the whole speech passed its checks), and one check badge
   that opens (``<details>``) to the findings;
3. the closing: the neutral observation, or the verdict (winner, reasons, per-round commentary,
   the table per debater without empty columns), or the judge panel;
4. a compact analysis: the checks per speech, the argument ledger's counts and dropped claims
   (when the caller passes a ledger: this layer cannot build one), and usage.

Nothing here knows a protocol by name: what a card shows follows from the record (an envelope of
arguments and rebuttals, a source heading, citation marks, findings).  The escaping, paragraphs and
citation notes are in :mod:`debate_core.render.html_prose`; the page's words are in the package's
catalogs (:mod:`debate_core.i18n`).
"""

from __future__ import annotations

from typing import Any

from debate_core.i18n import N_, tr, translator, trp
from debate_core.models import Debate, Finding, Ledger, Observation, Speech
from debate_core.render.html_prose import MARKS as MARKS  # (re-exported: the page's note marks)
from debate_core.render.html_prose import MARKS_PLAIN as MARKS_PLAIN
from debate_core.render.html_prose import Notes as _Notes
from debate_core.render.html_prose import Tr, _in
from debate_core.render.html_prose import clip as _clip
from debate_core.render.html_prose import esc as _e
from debate_core.render.html_prose import inline as _inline
from debate_core.render.html_prose import paragraphs as _paragraphs
from debate_core.render.html_prose import rich as _rich
from debate_core.render.html_style import CSS
from debate_core.render.master import (
    DISCLAIMER,
    rule_label,
    speech_clean,
    speech_verdict,
)

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

# The page's words: msgids of the library's catalogs (debate_core.i18n), shown in the debate's language.
STATUS = (N_("running"), N_("completed"), N_("failed"), N_("stopped"), N_("interrupted"))
ROLES = {
    "opening": N_("opening"),
    "closing": N_("closing"),
    "pro": N_("speech"),
    "con": N_("speech"),
    "pressure_questions": N_("pressure questions"),
    "answers": N_("answers"),
}  # rebuttal: the envelopes'
OBSERVATION_KEYS = (N_("Where they differ"), N_("Common ground"), N_("For the reader"))
# citation marks (quote verification), with the ✓ sign (a speech that passed every check) and without
BASIS = {
    "claim ids": N_("the claim ids the speakers cite"),
    "envelopes": N_("the debaters' structured arguments and rebuttals"),
    "speech plans": N_("each round's speech plan"),
    "speech plans and passages": N_("the speech plans, and the passages of model-written speeches"),
    "passages": N_("the passages of each speech"),
    "restatements": N_("each round's restatement of the opponent"),
    "none": N_("nothing"),
}
EVIDENCE = {
    "explicit": N_("explicit references"),
    "inferred": N_("inferred by the aligner"),
    "model": N_("model labels"),
}
SIDE_WORDS = {"pro": N_("PRO"), "con": N_("CON")}
# the tables' column names
COLS = {
    "debater": N_("debater"),
    "stance": N_("stance"),
    "model": N_("model"),
    "strongest": N_("strongest point"),
    "weakness": N_("fatal weakness"),
    "score": N_("score"),
    "judge": N_("judge"),
    "winner": N_("winner"),
    "margin": N_("signed margin (PRO +)"),
    "normalized": N_("normalized"),
    "entertainment": N_("entertainment"),
    "round": N_("round"),
    "speaker": N_("speaker"),
    "result": N_("result"),
}


def _speaker(debate: Debate, label: str, fallback: str = "") -> str:
    """A participant as the page names it: its name, after its side where it has one (PRO · Alpha 7B)."""
    p = debate.participant(label)
    name = (p.name if p and p.name else "") or fallback or label
    side = _side(debate, label)
    return f"{side} · {name}" if side and name.upper() != side.upper() else name


def _lang(debate: Debate) -> str:
    return "zh" if debate.lang == "zh" else "en"


def _side(debate: Debate, label: str) -> str:
    return tr(_lang(debate), SIDE_WORDS[label]) if label in SIDE_WORDS else ""


def _stance(debate: Debate, stance: str) -> str:
    return tr(_lang(debate), " ({text})", text=stance) if stance else ""


def _status(_: Tr, status: str) -> str:
    return _(status) if status in STATUS else status


def _heading(debate: Debate, s: Speech, _: Tr) -> str:
    env = s.envelope if isinstance(s.envelope, dict) else {}
    if env.get("heading"):
        return str(env["heading"])
    p = debate.participant(s.speaker)
    name = s.speaker_name or (p.name if p else "") or s.speaker
    role = _("rebuttal") if s.role == "rebuttal" else _in(_, ROLES, s.role)
    return _("Round {round} · {name} · {role}", round=s.round, name=name, role=role)


def _envelope_html(debate: Debate, s: Speech, _: Tr, claims: set[str]) -> str | None:
    """A debater's structured reply (arguments with their reasoning and evidence, rebuttals), or None
    when the speech holds no such envelope."""
    env = s.envelope if isinstance(s.envelope, dict) else None
    if not env or not any(k in env for k in ("arguments", "rebuttals")):
        return None
    from debate_core.engines.envelopes import Envelope

    try:
        e = Envelope.model_validate(env, context={"lang": debate.lang})
    except Exception:  # noqa: BLE001 - a malformed stored envelope: show the text instead
        return None
    out, colon = [], _e(_(": "))
    if e.arguments:
        items = []
        for a in e.arguments:
            detail = "".join(
                '<p class="detail">' + _e(label) + colon + _inline(v, None, claims) + "</p>"
                for label, v in ((_("Reasoning"), a.reasoning), (_("Evidence"), a.evidence))
                if v
            )
            items.append(
                f'<li><span class="claim">{_e(a.id)}</span><strong>{_inline(a.point, None, claims)}</strong>'
                f"{detail}</li>"
            )
        out.append('<ol class="args">' + "".join(items) + "</ol>")
    if e.rebuttals:
        items = [
            '<li><span class="kind">'
            + _e(r.type or _("Rebuttal"))
            + ((" → " + _e(r.target)) if r.target else "")
            + "</span>"
            + colon
            + _inline(r.content, None, claims)
            + "</li>"
            for r in e.rebuttals
        ]
        out.append('<ul class="rebuttals">' + "".join(items) + "</ul>")
    if not out:
        out.append("<p>" + _e(_("(nothing was said)")) + "</p>")
    if e.no_new_points:
        out.append('<p class="meta">' + _e(_("no new points this round")) + "</p>")
    return "\n".join(out)


def _rule(rule: str, lang: str) -> str:
    """A check's name: the checks registry's Chinese label in a Chinese debate (as its Markdown writes it), else
    the rule's id (checks are the master debates', which are Chinese)."""
    return rule_label(rule) if lang == "zh" else rule


def _finding_line(f: Finding, lang: str, clean: bool) -> str:
    sign = "?" if f.undecided else ("✗" if not f.passed else ("✓" if clean else "·"))
    layer = tr(lang, " ({text})", text=tr(lang, "model audit")) if f.layer == "model" else ""
    sep = tr(lang, ": ") if f.message else ""
    return f"<li>{sign} {_e(_rule(f.rule, lang))}{_e(layer)}{sep}{_e(f.message)}</li>"


def _verdict_line(findings: list[Finding], lang: str) -> str:
    if lang == "zh":
        return speech_verdict(findings)  # the master debate's own line, as its Markdown writes it
    if speech_clean(findings):
        return tr(lang, "✓ all checks passed")
    bad = [("? " if f.undecided else "✗ ") + f.rule for f in findings if not f.passed or f.undecided]
    return " · ".join(dict.fromkeys(bad))


def _checks_badge(s: Speech, lang: str) -> str:
    _ = translator(lang)
    findings = list(s.findings)
    extra = []
    if s.retries:
        extra.append(_("{n} retries", n=s.retries))
    if s.truncated:
        extra.append(_("cut at the length limit"))
    extra += list(s.warnings) if s.status != "failed" else []
    if not findings and not extra:
        return ""
    clean = speech_clean(findings)
    state = (
        "ok"
        if clean
        else (
            "bad" if any(not f.passed and not f.undecided for f in findings) else ("undecided" if findings else "none")
        )
    )
    summary = _verdict_line(findings, lang) if findings else "· " + _("no checks")
    items = "".join(_finding_line(f, lang, clean) for f in findings)
    items += "".join(f"<li>{_e(x)}</li>" for x in extra)
    return f'<details class="checks {state}"><summary>{_e(summary)}</summary><ul>{items}</ul></details>'


def _speech_card(
    debate: Debate, s: Speech, i: int, _: Tr, side: dict[str, int], claims: set[str], tagged: set[str]
) -> str:
    lang = _lang(debate)
    notes = _Notes(s, f"n{i + 1}", lang)
    if s.status == "failed":
        why = "; ".join(s.warnings) or _("generation failed")
        body = "<p>" + _e(_("(this round did not finish: {why})", why=why)) + "</p>"
    else:
        env_body = _envelope_html(debate, s, _, claims)
        if env_body is not None:
            body = env_body
        else:
            body = (
                _paragraphs(s.text, notes, claims, tagged)
                if s.text.strip()
                else "<p>" + _e(_("(nothing was said)")) + "</p>"
            )
    env = s.envelope if isinstance(s.envelope, dict) else {}
    who = _speaker(debate, s.speaker, s.speaker_name)
    sub = [who] if env.get("heading") else []
    model = str(env.get("model") or "")
    if model and model not in who:
        sub.append(model)
    p = debate.participant(s.speaker)
    if p and p.stance and not env.get("heading"):
        sub.append(p.stance)
    research = ""
    if s.tool_calls:
        calls = "".join(
            f"<li>{_e(c.name)}({_e(', '.join(f'{k}={v}' for k, v in c.arguments.items()))})"
            f"{' ✗' if c.error else ''}</li>"
            for c in s.tool_calls
        )
        research = (
            '<details class="more"><summary>'
            + _e(_("Research ({n} calls)", n=len(s.tool_calls)))
            + f"</summary><ul>{calls}</ul></details>"
        )
    classes = f"speech side-{side.get(s.speaker, 0) % 6}" + (" failed" if s.status == "failed" else "")
    return (
        f'<article class="{classes}" id="r{i + 1}"><header><h3>{_e(_heading(debate, s, _))}</h3>'
        + (f'<span class="side-name">{_e(" · ".join(sub))}</span>' if sub else "")
        + f"</header>\n{body}\n{notes.html()}{research}{_checks_badge(s, lang)}</article>"
    )


# ---------------------------------------------------------------- closing


def _table(head: list[str], rows: list[list[Any]], numeric: tuple[int, ...] = ()) -> str:
    """A table without the columns that are empty in every row."""
    keep = [c for c in range(len(head)) if any(r[c] not in (None, "") for r in rows)]
    if not rows or not keep:
        return ""
    th = "".join(f"<th>{_e(head[c])}</th>" for c in keep)
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=num' if c in numeric else ''}>{_e('' if r[c] is None else r[c])}</td>" for c in keep)
        + "</tr>"
        for r in rows
    )
    return f'<div class="table-wrap"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def _num(value: Any, fmt: str) -> str:
    return "" if value is None else fmt.format(value)


def _winner(debate: Debate, winner: str | None, _: Tr) -> str:
    if not winner:
        return _("no winner")
    if winner in ("draw", "tie"):
        return _("a draw")
    p = debate.participant(winner)
    if p is None:
        return winner
    return _speaker(debate, winner) + _stance(debate, p.stance)


def _observation(debate: Debate, o: Observation, _: Tr) -> str:
    values = (o.divergence, o.consensus, o.to_reader)
    items = "".join(f"<dt>{_e(_(k))}</dt><dd>{_rich(v)}</dd>" for k, v in zip(OBSERVATION_KEYS, values, strict=True))
    return (
        '<section id="closing"><h2>'
        + _e(_("Neutral observation"))
        + f'</h2><div class="closing"><dl>{items}</dl>'
        + '<p class="meta">'
        + _e(_("No winner is named; the observation states where the two part ways."))
        + "</p></div></section>"
    )


def _h3(text: str) -> str:
    return f"<h3>{_e(text)}</h3>"


def _verdict(debate: Debate, _: Tr) -> str:
    v = debate.verdict
    out = []
    if v is not None and not v.parsed:
        unparsed = _("The judge's output could not be parsed: there is no winner (this is not a draw). Its text:")
        out.append(f'<p><strong>{_e(unparsed)}</strong></p><pre class="raw">{_e(v.raw)}</pre>')
    elif v is not None:
        out.append('<p class="winner">' + _e(_("Winner: {who}", who=_winner(debate, v.winner, _))) + "</p>")
        if v.summary:
            out.append(f"<p>{_rich(v.summary)}</p>")
        if v.judge:
            out.append('<p class="meta">' + _e(_("judge: {judge}", judge=v.judge)) + "</p>")
        notes = {j.judge: j.notes for j in debate.judgments}
        reasons = {k: r for k, r in v.reasons.items() if notes.get(k) != r}
        if reasons:
            out.append(
                _h3(_("Reasons"))
                + "<dl>"
                + "".join(f"<dt>{_e(k)}</dt><dd>{_rich(r)}</dd>" for k, r in reasons.items())
                + "</dl>"
            )
        if v.per_round:
            out.append(
                _h3(_("Per-round commentary"))
                + "<dl>"
                + "".join(
                    "<dt>" + _e(_("Round {n}", n=c.round)) + f"</dt><dd>{_rich(c.comment)}</dd>" for c in v.per_round
                )
                + "</dl>"
            )
        if v.rows:
            c = {k: _(msgid) for k, msgid in COLS.items()}
            rows = []
            for r in v.rows:
                p = debate.participant(r.label)
                rows.append(
                    [
                        _speaker(debate, r.label),
                        r.stance or (p.stance if p else ""),
                        p.model if p else "",
                        r.strongest,
                        r.weakness,
                        _num(r.score, "{:g}"),
                    ]
                )
            out.append(
                _h3(_("Per debater"))
                + _table([c["debater"], c["stance"], c["model"], c["strongest"], c["weakness"], c["score"]], rows, (5,))
            )
        if v.note:
            out.append(_h3(_("To the reader")) + f"<p>{_rich(v.note)}</p>")
    if debate.judgments:
        c = {k: _(msgid) for k, msgid in COLS.items()}
        rows = [
            [
                j.judge,
                (j.winner_name or j.winner) + (f" ({_side(debate, j.winner)})" if _side(debate, j.winner) else ""),
                _num(j.margin, "{:+.1f}"),
                _num(j.normalized, "{:+.2f}"),
                _num(j.entertainment, "{:.1f}"),
            ]
            for j in debate.judgments
        ]
        out.append(
            _h3(_("Judge panel"))
            + _table([c["judge"], c["winner"], c["margin"], c["normalized"], c["entertainment"]], rows, (2, 3, 4))
        )
        items = []
        for j in debate.judgments:
            if j.notes or j.decisive:
                items.append(
                    f"<dt>{_e(j.judge)}</dt><dd>{_rich(j.notes)}"
                    + (
                        '<br><span class="meta">' + _e(_("Most decisive: ")) + f"{_rich(j.decisive)}</span>"
                        if j.decisive
                        else ""
                    )
                    + "</dd>"
                )
        if items:
            out.append("<dl>" + "".join(items) + "</dl>")
    return '<section id="closing"><h2>' + _e(_("Verdict")) + f'</h2><div class="closing">{"".join(out)}</div></section>'


def _closing(debate: Debate, _: Tr) -> str:
    if debate.observation is not None:
        return _observation(debate, debate.observation, _)
    if debate.verdict is not None or debate.judgments:
        return _verdict(debate, _)
    pending = _("No outcome yet: the debate is {status}.", status=_status(_, debate.status))
    reason = _(" ({text})", text=debate.stop_reason) if debate.stop_reason else ""
    return f'<section id="closing"><div class="closing"><p>{_e(pending)}{_e(reason)}</p></div></section>'


# --------------------------------------------------------------- analysis


def _checks_table(debate: Debate, _: Tr) -> str:
    if not any(s.findings for s in debate.rounds):
        return ""
    lang = _lang(debate)
    rules = list(dict.fromkeys(f.rule for s in debate.rounds for f in s.findings if f.layer != "model"))
    head = [_(COLS["round"]), _(COLS["speaker"]), _(COLS["result"])] + [_rule(r, lang) for r in rules]
    rows = []
    for s in debate.rounds:
        clean = speech_clean(s.findings)
        by = {f.rule: f for f in s.findings if f.layer != "model"}
        cells = []
        for r in rules:
            f = by.get(r)
            cells.append("—" if f is None else "?" if f.undecided else "✗" if not f.passed else ("✓" if clean else "·"))
        rows.append(
            [
                s.round,
                s.speaker_name or _speaker(debate, s.speaker),
                _verdict_line(list(s.findings), lang) if s.findings else "—",
            ]
            + cells
        )
    note = _("✓ only when every check of a speech passed; ✗ failed; ? undecided.")
    return _h3(_("Checks per speech")) + _table(head, rows) + f'<p class="meta">{_e(note)}</p>'


def _ledger(debate: Debate, ledger: Ledger | None, _: Tr) -> str:
    if ledger is None or not ledger.claims:
        return ""
    lang = _lang(debate)
    evidence = (
        trp(lang, "list", ", ").join(_in(_, EVIDENCE, k) for k in (getattr(ledger, "evidence", None) or [])) or "—"
    )
    basis = _in(_, BASIS, ledger.basis)
    counts = "".join(
        f"<div><b>{n}</b><span>{_e(label)}</span></div>"
        for n, label in (
            (len(ledger.claims), _("claims")),
            (len(ledger.attacks), _("attacks")),
            (len(ledger.dropped), _("dropped")),
        )
    )
    note = _(
        "Attacks read from: {basis}; evidence used: {evidence}. A claim is dropped when another speaker spoke "
        "after it and nobody answered it.",
        basis=basis,
        evidence=evidence,
    )
    out = [_h3(_("Argument ledger")), f'<div class="counts">{counts}</div>', f'<p class="meta">{_e(note)}</p>']
    if ledger.dropped:
        colon = _e(_(": "))
        items = "".join(
            f'<li><span class="claim">{_e(c.id)}</span>{_e(c.name or _speaker(debate, c.speaker))}'
            f"{colon}{_e(_clip(c.text, 240))}</li>"
            for c in ledger.dropped
        )
        out.append(
            '<details class="more"><summary>'
            + _e(_("Dropped claims ({n})", n=len(ledger.dropped)))
            + f"</summary><ul>{items}</ul></details>"
        )
    return "".join(out)


def _usage(debate: Debate, _: Tr) -> str:
    prompt = sum(s.prompt_tokens for s in debate.rounds)
    completion = sum(s.completion_tokens for s in debate.rounds)
    cost = sum(s.cost for s in debate.rounds)
    models = [m for m in debate.models if m and m != "offline"]
    if not (prompt or completion or models):
        return ""
    out = [_h3(_("Usage"))]
    if prompt or completion:
        line = _(
            "{speeches} speeches · {prompt} prompt / {completion} completion tokens{cost}",
            speeches=len(debate.rounds),
            prompt=f"{prompt:,}",
            completion=f"{completion:,}",
            cost=f" · ${cost:.4f}" if cost else "",
        )
        out.append(f'<p class="meta">{_e(line)}</p>')
    if models:
        out.append('<p class="meta">' + _e(_("models: {models}", models=", ".join(models))) + "</p>")
    return "".join(out)


# ------------------------------------------------------------------ page


def render_html(debate: Debate, *, ledger: Ledger | None = None, kind: str = "") -> str:
    """The debate as one self-contained HTML page (see the module's docstring); ``ledger`` adds the
    argument ledger to the analysis, ``kind`` names the protocol in the header."""
    lang = _lang(debate)
    _ = translator(lang)
    side = {p.label: i for i, p in enumerate(debate.participants)}
    for s in debate.rounds:
        side.setdefault(s.speaker, len(side))
    claims = {
        str(c.get("id"))
        for s in debate.rounds
        if isinstance(s.envelope, dict)
        for c in (s.envelope.get("claims") or [])
        if isinstance(c, dict) and c.get("id")
    }
    head = []
    if lang == "zh" and (debate.pack_name or debate.observation is not None):  # a master debate: the seed's
        head.append(f'<p class="disclaimer">{_e(DISCLAIMER.lstrip("> "))}</p>')
    who = _(" vs ").join(_speaker(debate, p.label) + _stance(debate, p.stance) for p in debate.participants)
    meta = [
        x for x in (kind, who, debate.created_at.strftime("%Y-%m-%d"), _("{n} speeches", n=len(debate.rounds))) if x
    ]
    head.append('<p class="kicker">' + _e(_("Motion")) + f"</p><h1>{_e(debate.topic)}</h1>")
    head.append(f'<p class="meta">{_e(" · ".join(meta))}</p>')
    if debate.status != "completed":
        reason = _(" ({text})", text=debate.stop_reason) if debate.stop_reason else ""
        head.append(
            '<p class="meta">' + _e(_("Status")) + _e(_(": ")) + _e(_status(_, debate.status)) + _e(reason) + "</p>"
        )
    head += [f'<p class="warning">{_e(w)}</p>' for w in debate.warnings]
    tagged: set[str] = set()
    cards = [_speech_card(debate, s, i, _, side, claims, tagged) for i, s in enumerate(debate.rounds)]
    analysis = _checks_table(debate, _) + _ledger(debate, ledger, _) + _usage(debate, _)
    body = [
        f"<header>{''.join(head)}</header>",
        '<main><section id="speeches"><h2>' + _e(_("Speeches")) + "</h2>" + "\n".join(cards) + "</section>",
        _closing(debate, _),
    ]
    if analysis:
        body.append('<section id="analysis"><h2>' + _e(_("Analysis")) + f"</h2>{analysis}</section>")
    body.append("</main>")
    exported = _(
        "Exported from the Debate Workbench · debate {id} · {date}",
        id=debate.id,
        date=debate.updated_at.strftime("%Y-%m-%d"),
    )
    body.append(f"<footer>{_e(exported)}</footer>")
    html_lang = trp(lang, "HTML lang attribute", "en")  # zh-CN
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html_lang}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{_e(debate.topic)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )
