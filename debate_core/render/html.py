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
arguments and rebuttals, a source heading, citation marks, findings).

This module builds the page and its sections; the page's words per language are in
:mod:`debate_core.render.html_words`, the escaping, paragraphs and citation notes in
:mod:`debate_core.render.html_prose`.
"""


from __future__ import annotations

from typing import Any

from debate_core.models import Debate, Finding, Ledger, Observation, Speech
from debate_core.render.html_prose import Notes, clip, esc, inline, paragraphs, rich
from debate_core.render.html_style import CSS
from debate_core.render.html_words import BASIS, EVIDENCE, SIDE_WORDS, TEXT
from debate_core.render.master import DISCLAIMER, rule_label, speech_clean, speech_verdict

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


# --------------------------------------------------------------- speeches


def _speaker(debate: Debate, label: str, fallback: str = "") -> str:
    """A participant as the page names it: its name, after its side where it has one (PRO · Alpha 7B)."""
    p = debate.participant(label)
    name = (p.name if p and p.name else "") or fallback or label
    side = _side(debate, label)
    return f"{side} · {name}" if side and name.upper() != side.upper() else name


def _side(debate: Debate, label: str) -> str:
    return SIDE_WORDS["zh" if debate.lang == "zh" else "en"].get(label, "")


def _stance(debate: Debate, stance: str) -> str:
    if not stance:
        return ""
    return f"（{stance}）" if debate.lang == "zh" else f" ({stance})"


def _heading(debate: Debate, s: Speech, t: dict) -> str:
    env = s.envelope if isinstance(s.envelope, dict) else {}
    if env.get("heading"):
        return str(env["heading"])
    p = debate.participant(s.speaker)
    name = s.speaker_name or (p.name if p else "") or s.speaker
    return t["head"].format(round=s.round, name=name, role=t["roles"].get(s.role, s.role))


def _envelope_html(debate: Debate, s: Speech, t: dict, claims: set[str]) -> str | None:
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
    out = []
    if e.arguments:
        items = []
        for a in e.arguments:
            detail = "".join(f'<p class="detail">{esc(label)}：{inline(v, None, claims)}</p>' if debate.lang == "zh"
                             else f'<p class="detail">{esc(label)}: {inline(v, None, claims)}</p>'
                             for label, v in ((t["reasoning"], a.reasoning), (t["evidence"], a.evidence)) if v)
            items.append(f'<li><span class="claim">{esc(a.id)}</span><strong>{inline(a.point, None, claims)}</strong>'
                         f"{detail}</li>")
        out.append('<ol class="args">' + "".join(items) + "</ol>")
    if e.rebuttals:
        items = [f'<li><span class="kind">{esc(r.type or t["rebuttal"])}{(" → " + esc(r.target)) if r.target else ""}'
                 f'</span>{"：" if debate.lang == "zh" else ": "}{inline(r.content, None, claims)}</li>'
                 for r in e.rebuttals]
        out.append('<ul class="rebuttals">' + "".join(items) + "</ul>")
    if not out:
        out.append(f"<p>{esc(t['empty'])}</p>")
    if e.no_new_points:
        out.append(f'<p class="meta">{esc(t["no_new"])}</p>')
    return "\n".join(out)


def _finding_line(f: Finding, lang: str, t: dict, clean: bool) -> str:
    sign = "?" if f.undecided else ("✗" if not f.passed else ("✓" if clean else "·"))
    name = rule_label(f.rule) if lang == "zh" else f.rule
    layer = f"（{t['model_layer']}）" if lang == "zh" and f.layer == "model" else \
        (f" ({t['model_layer']})" if f.layer == "model" else "")
    sep = "：" if lang == "zh" else ": "
    return f"<li>{sign} {esc(name)}{esc(layer)}{sep if f.message else ''}{esc(f.message)}</li>"


def _verdict_line(findings: list[Finding], lang: str, t: dict) -> str:
    if lang == "zh":
        return speech_verdict(findings)
    if speech_clean(findings):
        return "✓ all checks passed"
    bad = [("? " if f.undecided else "✗ ") + f.rule for f in findings if not f.passed or f.undecided]
    return " · ".join(dict.fromkeys(bad))


def _checks_badge(s: Speech, lang: str, t: dict) -> str:
    findings = list(s.findings)
    extra = []
    if s.retries:
        extra.append(t["retries"].format(n=s.retries))
    if s.truncated:
        extra.append(t["truncated"])
    extra += list(s.warnings) if s.status != "failed" else []
    if not findings and not extra:
        return ""
    clean = speech_clean(findings)
    state = "ok" if clean else ("bad" if any(not f.passed and not f.undecided for f in findings) else
                                ("undecided" if findings else "none"))
    summary = _verdict_line(findings, lang, t) if findings else "· " + t["no_checks"]
    items = "".join(_finding_line(f, lang, t, clean) for f in findings)
    items += "".join(f"<li>{esc(x)}</li>" for x in extra)
    return f'<details class="checks {state}"><summary>{esc(summary)}</summary><ul>{items}</ul></details>'


def _speech_card(debate: Debate, s: Speech, i: int, t: dict, side: dict[str, int], claims: set[str],
                 tagged: set[str]) -> str:
    lang = debate.lang
    notes = Notes(s, f"n{i + 1}", t, lang)
    if s.status == "failed":
        body = f"<p>{esc(t['failed'].format(why='; '.join(s.warnings) or t['gen_failed']))}</p>"
    else:
        env_body = _envelope_html(debate, s, t, claims)
        if env_body is not None:
            body = env_body
        else:
            body = paragraphs(s.text, notes, claims, tagged) if s.text.strip() else f"<p>{esc(t['empty'])}</p>"
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
        calls = "".join(f"<li>{esc(c.name)}({esc(', '.join(f'{k}={v}' for k, v in c.arguments.items()))})"
                        f"{' ✗' if c.error else ''}</li>" for c in s.tool_calls)
        research = f'<details class="more"><summary>{esc(t["research"].format(n=len(s.tool_calls)))}</summary>' \
                   f"<ul>{calls}</ul></details>"
    classes = f"speech side-{side.get(s.speaker, 0) % 6}" + (" failed" if s.status == "failed" else "")
    return (f'<article class="{classes}" id="r{i + 1}"><header><h3>{esc(_heading(debate, s, t))}</h3>'
            + (f'<span class="side-name">{esc(" · ".join(sub))}</span>' if sub else "")
            + f"</header>\n{body}\n{notes.html()}{research}{_checks_badge(s, lang, t)}</article>")


# ---------------------------------------------------------------- closing


def _table(head: list[str], rows: list[list[Any]], numeric: tuple[int, ...] = ()) -> str:
    """A table without the columns that are empty in every row."""
    keep = [c for c in range(len(head)) if any(r[c] not in (None, "") for r in rows)]
    if not rows or not keep:
        return ""
    th = "".join(f"<th>{esc(head[c])}</th>" for c in keep)
    body = "".join("<tr>" + "".join(f'<td{" class=num" if c in numeric else ""}>'
                                    f'{esc("" if r[c] is None else r[c])}</td>' for c in keep) + "</tr>" for r in rows)
    return f'<div class="table-wrap"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def _num(value: Any, fmt: str) -> str:
    return "" if value is None else fmt.format(value)


def _winner(debate: Debate, winner: str | None, t: dict) -> str:
    if not winner:
        return t["no_winner"]
    if winner in ("draw", "tie"):
        return t["draw"]
    p = debate.participant(winner)
    if p is None:
        return winner
    return _speaker(debate, winner) + _stance(debate, p.stance)


def _observation(debate: Debate, o: Observation, t: dict) -> str:
    values = (o.divergence, o.consensus, o.to_reader)
    items = "".join(f"<dt>{esc(k)}</dt><dd>{rich(v)}</dd>" for k, v in zip(t["obs_keys"], values, strict=True))
    return (f'<section id="closing"><h2>{esc(t["observation"])}</h2><div class="closing"><dl>{items}</dl>'
            f'<p class="meta">{esc(t["no_ranking"])}</p></div></section>')


def _verdict(debate: Debate, t: dict) -> str:
    v = debate.verdict
    out = []
    if v is not None and not v.parsed:
        out.append(f"<p><strong>{esc(t['unparsed'])}</strong></p><pre class=\"raw\">{esc(v.raw)}</pre>")
    elif v is not None:
        out.append(f'<p class="winner">{esc(t["winner"].format(who=_winner(debate, v.winner, t)))}</p>')
        if v.summary:
            out.append(f"<p>{rich(v.summary)}</p>")
        if v.judge:
            out.append(f'<p class="meta">{esc(t["judge"].format(judge=v.judge))}</p>')
        notes = {j.judge: j.notes for j in debate.judgments}
        reasons = {k: r for k, r in v.reasons.items() if notes.get(k) != r}
        if reasons:
            out.append(f"<h3>{esc(t['reasons'])}</h3><dl>"
                       + "".join(f"<dt>{esc(k)}</dt><dd>{rich(r)}</dd>" for k, r in reasons.items()) + "</dl>")
        if v.per_round:
            out.append(f"<h3>{esc(t['per_round'])}</h3><dl>"
                       + "".join(f"<dt>{esc(t['round_n'].format(n=c.round))}</dt><dd>{rich(c.comment)}</dd>"
                                 for c in v.per_round) + "</dl>")
        if v.rows:
            c = t["cols"]
            rows = []
            for r in v.rows:
                p = debate.participant(r.label)
                rows.append([_speaker(debate, r.label), r.stance or (p.stance if p else ""), p.model if p else "",
                             r.strongest, r.weakness, _num(r.score, "{:g}")])
            out.append(f"<h3>{esc(t['debaters'])}</h3>" + _table(
                [c["debater"], c["stance"], c["model"], c["strongest"], c["weakness"], c["score"]], rows, (5,)))
        if v.note:
            out.append(f"<h3>{esc(t['to_reader'])}</h3><p>{rich(v.note)}</p>")
    if debate.judgments:
        c = t["cols"]
        rows = [[j.judge, (j.winner_name or j.winner) + (f" ({_side(debate, j.winner)})" if _side(debate, j.winner)
                                                         else ""),
                 _num(j.margin, "{:+.1f}"), _num(j.normalized, "{:+.2f}"), _num(j.entertainment, "{:.1f}")]
                for j in debate.judgments]
        out.append(f"<h3>{esc(t['panel'])}</h3>"
                   + _table([c["judge"], c["winner"], c["margin"], c["normalized"], c["entertainment"]], rows,
                            (2, 3, 4)))
        items = []
        for j in debate.judgments:
            if j.notes or j.decisive:
                items.append(f"<dt>{esc(j.judge)}</dt><dd>{rich(j.notes)}"
                             + (f'<br><span class="meta">{esc(t["decisive"])}{rich(j.decisive)}</span>'
                                if j.decisive else "") + "</dd>")
        if items:
            out.append("<dl>" + "".join(items) + "</dl>")
    return f'<section id="closing"><h2>{esc(t["verdict"])}</h2><div class="closing">{"".join(out)}</div></section>'


def _closing(debate: Debate, t: dict) -> str:
    if debate.observation is not None:
        return _observation(debate, debate.observation, t)
    if debate.verdict is not None or debate.judgments:
        return _verdict(debate, t)
    status = t["status_names"].get(debate.status, debate.status)
    reason = f"（{debate.stop_reason}）" if debate.lang == "zh" else f" ({debate.stop_reason})"
    return (f'<section id="closing"><div class="closing"><p>{esc(t["pending"].format(status=status))}'
            f'{esc(reason) if debate.stop_reason else ""}</p></div></section>')


# --------------------------------------------------------------- analysis


def _checks_table(debate: Debate, t: dict) -> str:
    if not any(s.findings for s in debate.rounds):
        return ""
    zh = debate.lang == "zh"
    rules = list(dict.fromkeys(f.rule for s in debate.rounds for f in s.findings if f.layer != "model"))
    c = t["cols"]
    head = [c["round"], c["speaker"], c["result"]] + [rule_label(r) if zh else r for r in rules]
    rows = []
    for s in debate.rounds:
        clean = speech_clean(s.findings)
        by = {f.rule: f for f in s.findings if f.layer != "model"}
        cells = []
        for r in rules:
            f = by.get(r)
            cells.append("—" if f is None else "?" if f.undecided else "✗" if not f.passed else
                         ("✓" if clean else "·"))
        rows.append([s.round, s.speaker_name or _speaker(debate, s.speaker),
                     _verdict_line(list(s.findings), debate.lang, t) if s.findings else "—"] + cells)
    return f"<h3>{esc(t['checks_table'])}</h3>" + _table(head, rows) + f'<p class="meta">{esc(t["checks_note"])}</p>'


def _ledger(debate: Debate, ledger: Ledger | None, t: dict) -> str:
    if ledger is None or not ledger.claims:
        return ""
    lang = "zh" if debate.lang == "zh" else "en"
    evidence = ("、" if lang == "zh" else ", ").join(EVIDENCE[lang].get(k, k) for k in
                                                     (getattr(ledger, "evidence", None) or [])) or "—"
    basis = BASIS[lang].get(ledger.basis, ledger.basis)
    counts = "".join(f"<div><b>{n}</b><span>{esc(label)}</span></div>" for n, label in
                     ((len(ledger.claims), t["claims"]), (len(ledger.attacks), t["attacks"]),
                      (len(ledger.dropped), t["dropped"])))
    out = [f"<h3>{esc(t['ledger'])}</h3>", f'<div class="counts">{counts}</div>',
           f'<p class="meta">{esc(t["ledger_note"].format(basis=basis, evidence=evidence))}</p>']
    if ledger.dropped:
        items = "".join(f"<li><span class=\"claim\">{esc(c.id)}</span>{esc(c.name or _speaker(debate, c.speaker))}"
                        f"{'：' if debate.lang == 'zh' else ': '}{esc(clip(c.text, 240))}"
                        f"</li>" for c in ledger.dropped)
        out.append(f'<details class="more"><summary>{esc(t["dropped_list"].format(n=len(ledger.dropped)))}'
                   f"</summary><ul>{items}</ul></details>")
    return "".join(out)


def _usage(debate: Debate, t: dict) -> str:
    prompt = sum(s.prompt_tokens for s in debate.rounds)
    completion = sum(s.completion_tokens for s in debate.rounds)
    cost = sum(s.cost for s in debate.rounds)
    models = [m for m in debate.models if m and m != "offline"]
    if not (prompt or completion or models):
        return ""
    out = [f"<h3>{esc(t['usage'])}</h3>"]
    if prompt or completion:
        line = t["usage_line"].format(speeches=len(debate.rounds), prompt=f"{prompt:,}", completion=f"{completion:,}",
                                      cost=f" · ${cost:.4f}" if cost else "")
        out.append(f'<p class="meta">{esc(line)}</p>')
    if models:
        out.append(f'<p class="meta">{esc(t["models"].format(models=", ".join(models)))}</p>')
    return "".join(out)


# ------------------------------------------------------------------ page


def render_html(debate: Debate, *, ledger: Ledger | None = None, kind: str = "") -> str:
    """The debate as one self-contained HTML page (see the module's docstring); ``ledger`` adds the
    argument ledger to the analysis, ``kind`` names the protocol in the header."""
    lang = "zh" if debate.lang == "zh" else "en"
    t = TEXT[lang]
    side = {p.label: i for i, p in enumerate(debate.participants)}
    for s in debate.rounds:
        side.setdefault(s.speaker, len(side))
    claims = {str(c.get("id")) for s in debate.rounds if isinstance(s.envelope, dict)
              for c in (s.envelope.get("claims") or []) if isinstance(c, dict) and c.get("id")}
    head = []
    if lang == "zh" and (debate.pack_name or debate.observation is not None):  # a master debate: the seed's
        head.append(f'<p class="disclaimer">{esc(DISCLAIMER.lstrip("> "))}</p>')
    who = t["vs"].join(_speaker(debate, p.label) + _stance(debate, p.stance) for p in debate.participants)
    meta = [x for x in (kind, who, debate.created_at.strftime("%Y-%m-%d"),
                        t["rounds"].format(n=len(debate.rounds))) if x]
    head.append(f'<p class="kicker">{esc(t["topic"])}</p><h1>{esc(debate.topic)}</h1>')
    head.append(f'<p class="meta">{esc(" · ".join(meta))}</p>')
    if debate.status != "completed":
        status = t["status_names"].get(debate.status, debate.status)
        head.append(f'<p class="meta">{esc(t["status"])}{"：" if lang == "zh" else ": "}{esc(status)}'
                    + (esc(f"（{debate.stop_reason}）" if lang == "zh" else f" ({debate.stop_reason})")
                       if debate.stop_reason else "") + "</p>")
    head += [f'<p class="warning">{esc(w)}</p>' for w in debate.warnings]
    tagged: set[str] = set()
    cards = [_speech_card(debate, s, i, t, side, claims, tagged) for i, s in enumerate(debate.rounds)]
    analysis = _checks_table(debate, t) + _ledger(debate, ledger, t) + _usage(debate, t)
    body = [f"<header>{''.join(head)}</header>",
            f'<main><section id="speeches"><h2>{esc(t["speeches"])}</h2>' + "\n".join(cards) + "</section>",
            _closing(debate, t)]
    if analysis:
        body.append(f'<section id="analysis"><h2>{esc(t["analysis"])}</h2>{analysis}</section>')
    body.append("</main>")
    body.append(f"<footer>{esc(t['exported'].format(id=debate.id, date=debate.updated_at.strftime('%Y-%m-%d')))}"
                "</footer>")
    return ("<!DOCTYPE html>\n"
            f'<html lang="{t["html_lang"]}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            '<meta name="referrer" content="no-referrer">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<link rel="icon" href="data:,">\n'
            f"<title>{esc(debate.topic)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
