"""The argument ledger: every claim of a debate, which earlier claims each one answers, and the
claims one side left unanswered.

Read from what each protocol records:

* **benchmark** (imported): each paragraph tagged ``[P2.3]`` is a claim; an opponent's claim id
  cited in a paragraph (inline, or in the turn's ``cited_claim_ids`` when no paragraph names it)
  is an attack on it; an answer ``A1:`` answers the opponent's question ``Q1:``;
* **topic**: each envelope argument is a claim ``<label> <id>`` (``Debater B A2``); each
  rebuttal is a claim too, attacking its ``target`` with its ``type`` (rebuttal, challenge,
  concession);
* **master**: each round is a claim (its ≤80-character summary); its opening restatement
  answers the opponent's previous round.

A claim is *dropped* when another speaker spoke after it and none of them answered it; a claim
after which nobody else spoke (a last closing) could not be answered and is not counted.
Trials record no claim structure: their ledger has one claim per speech and no attacks
(``basis`` ``none``), and nothing counts as dropped.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Optional

import pandas as pd

from debate_core.models import Attack, Claim, Debate, Ledger

_REF = re.compile(r"\[([A-Z]\d+(?:\.\d+)+)\]")
_TAG = re.compile(r"^\s*\[([A-Z]\d+(?:\.\d+)+)\]\s*")
_QA = re.compile(r"^\s*(?:\[[^\]]+\]\s*)?\**([QA])(\d+)\**\s*[:：.]")
_TARGET = re.compile(r"^\s*(.+?)\s*[（(]?\s*([A-Za-z]\w*\d+)\s*[)）]?\s*$")
_SENTENCE = re.compile(r"^(.+?[。！？!?.])(?:\s|$)")


def _names(debate: Debate) -> dict[str, tuple[str, str]]:
    return {p.label: (p.name or p.label, p.model) for p in debate.participants}


def _claim(debate: Debate, names, speaker: str, **kw) -> Claim:
    name, model = names.get(speaker, (speaker, ""))
    return Claim(speaker=speaker, name=name, model=model, **kw)


def _benchmark(debate: Debate) -> tuple[list[Claim], list[Attack], list[str]]:
    names = _names(debate)
    claims: list[Claim] = []
    attacks: list[Attack] = []
    unresolved: list[str] = []
    owner: dict[str, str] = {}
    questions: dict[tuple[str, int], str] = {}  # (asking side, question number) -> claim id
    for s in debate.rounds:
        env = s.envelope or {}
        items = env.get("claims") or [{"id": m.group(1), "text": _TAG.sub("", para)}
                                      for para in s.text.split("\n\n") if (m := _TAG.match(para))]
        turn_claims = []
        for c in items:
            claim = _claim(debate, names, s.speaker, id=c["id"], round=s.round, text=c["text"], phase=s.role)
            claims.append(claim)
            owner[c["id"]] = s.speaker
            turn_claims.append(claim)
        cited_inline: set[str] = set()
        for claim in turn_claims:
            for ref in dict.fromkeys(_REF.findall(claim.text)):
                if ref == claim.id:
                    continue
                if ref not in owner:
                    unresolved.append(ref)
                    continue
                cited_inline.add(ref)
                if owner[ref] != s.speaker:
                    attacks.append(Attack(source=claim.id, target=ref, speaker=s.speaker, round=s.round, kind="cites"))
            qa = _QA.match(claim.text)
            if qa and qa.group(1) == "Q":
                questions[(s.speaker, int(qa.group(2)))] = claim.id
            elif qa and qa.group(1) == "A":
                asked = next((q for (side, n), q in questions.items()
                              if side != s.speaker and n == int(qa.group(2))), None)
                if asked and not any(a.source == claim.id and a.target == asked for a in attacks):
                    attacks.append(Attack(source=claim.id, target=asked, speaker=s.speaker, round=s.round,
                                          kind="answer"))
        for ref in env.get("cited") or []:
            if ref in cited_inline:
                continue
            if ref not in owner:
                unresolved.append(ref)
            elif owner[ref] != s.speaker and turn_claims:
                attacks.append(Attack(source=turn_claims[0].id, target=ref, speaker=s.speaker, round=s.round,
                                      kind="cites"))
    return claims, attacks, list(dict.fromkeys(unresolved))


def _topic(debate: Debate) -> tuple[list[Claim], list[Attack], list[str]]:
    names = _names(debate)
    claims: list[Claim] = []
    pending: list[tuple[Claim, str, str]] = []
    for s in debate.rounds:
        env = s.envelope or {}
        for a in env.get("arguments") or []:
            aid = str(a.get("id") or f"A{len(claims) + 1}")
            text = str(a.get("point") or a.get("content") or "")
            claims.append(_claim(debate, names, s.speaker, id=f"{s.speaker} {aid}", round=s.round, text=text,
                                 phase="argument"))
        for k, r in enumerate(env.get("rebuttals") or [], 1):
            claim = _claim(debate, names, s.speaker, id=f"{s.speaker} R{s.round}.{k}", round=s.round,
                           text=str(r.get("content") or ""), phase="rebuttal")
            claims.append(claim)
            pending.append((claim, str(r.get("target") or ""), str(r.get("type") or "rebuttal")))
    ids = {c.id for c in claims}
    labels = sorted({c.speaker for c in claims} | {p.label for p in debate.participants}, key=len, reverse=True)
    attacks: list[Attack] = []
    unresolved: list[str] = []
    for claim, target, kind in pending:
        resolved = _resolve_target(target, labels, ids)
        if resolved is None:
            if target:
                unresolved.append(target)
            continue
        attacks.append(Attack(source=claim.id, target=resolved, speaker=claim.speaker, round=claim.round,
                              kind=_KINDS.get(kind.strip(), kind.strip() or "rebuttal")))
    return claims, attacks, unresolved


_KINDS = {"反驳": "rebuttal", "质疑": "challenge", "让步": "concession"}


def _resolve_target(target: str, labels: list[str], ids: set[str]) -> Optional[str]:
    t = " ".join(target.replace("：", " ").replace(":", " ").split())
    for label in labels:
        if t.startswith(label):
            rest = t[len(label):].strip(" ,，的")
            m = re.search(r"[A-Za-z]*\d+(?:\.\d+)?", rest)
            if m and f"{label} {m.group(0)}" in ids:
                return f"{label} {m.group(0)}"
    return None


def _master(debate: Debate) -> tuple[list[Claim], list[Attack], list[str]]:
    names = _names(debate)
    summary = {(s.round, s.speaker): s.text for s in debate.summaries}
    claims: list[Claim] = []
    attacks: list[Attack] = []
    previous: Optional[Claim] = None
    for s in sorted(debate.rounds, key=lambda x: x.round):
        if s.status == "failed" or not s.text.strip():
            continue
        text = summary.get((s.round, s.speaker)) or _first_sentence(s.text)
        claim = _claim(debate, names, s.speaker, id=f"R{s.round}", round=s.round, text=text, phase=s.role)
        claims.append(claim)
        restated = next((f for f in s.findings if f.rule == "restatement"), None)
        if previous is not None and previous.speaker != s.speaker and (restated is None or restated.passed):
            attacks.append(Attack(source=claim.id, target=previous.id, speaker=s.speaker, round=s.round,
                                  kind="restatement"))
        previous = claim
    return claims, attacks, []


def _first_sentence(text: str) -> str:
    t = " ".join(text.split())
    m = _SENTENCE.match(t)
    return (m.group(1) if m else t)[:120]


def _speeches(debate: Debate) -> tuple[list[Claim], list[Attack], list[str]]:
    names = _names(debate)
    return [_claim(debate, names, s.speaker, id=f"{s.speaker} {s.round}", round=s.round,
                   text=_first_sentence(s.text), phase=s.role) for s in debate.rounds if s.text.strip()], [], []


BUILDERS = {"benchmark": ("claim ids", _benchmark), "topic": ("envelopes", _topic),
            "master": ("restatements", _master)}


def build_ledger(debate: Debate) -> Ledger:
    """The argument ledger of one debate."""
    basis, build = BUILDERS.get(debate.protocol, ("none", _speeches))
    claims, attacks, unresolved = build(debate)
    order = {(s.round, s.speaker): i for i, s in enumerate(debate.rounds)}
    turns = sorted(order.items(), key=lambda kv: kv[1])
    answered = {a.target for a in attacks}
    dropped: list[Claim] = []
    if basis != "none":
        for c in claims:
            pos = order.get((c.round, c.speaker), -1)
            later_others = any(sp != c.speaker for (r, sp), i in turns if i > pos)
            if later_others and c.id not in answered:
                dropped.append(c)
    return Ledger(debate_id=debate.id, protocol=debate.protocol, basis=basis, claims=claims, attacks=attacks,
                  dropped=dropped, unresolved=unresolved)


def ledger_json(ledger: Ledger) -> dict[str, Any]:
    """What ``ledger ID --format json`` prints: ``{"claims": [...], "attacks": [...], "dropped": [...]}``."""
    data = ledger.model_dump(mode="json")
    return {"claims": data["claims"], "attacks": data["attacks"], "dropped": data["dropped"]}


def ledger_markdown(ledger: Ledger) -> str:
    by_target: dict[str, list[str]] = {}
    for a in ledger.attacks:
        by_target.setdefault(a.target, []).append(a.source)
    dropped = {c.id for c in ledger.dropped}
    out = [f"# Argument ledger: {ledger.debate_id}", "",
           f"{len(ledger.claims)} claims, {len(ledger.attacks)} attacks, {len(ledger.dropped)} dropped "
           f"(read from {ledger.basis})", "", "| Claim | Speaker | Round | Answered by | Text |",
           "| --- | --- | ---: | --- | --- |"]
    for c in ledger.claims:
        status = ", ".join(by_target.get(c.id, [])) or ("**dropped**" if c.id in dropped else "")
        text = " ".join(c.text.split()).replace("|", "\\|")
        out.append(f"| {c.id} | {c.name or c.speaker} | {c.round} | {status} | "
                   f"{text[:160] + ('…' if len(text) > 160 else '')} |")
    if ledger.unresolved:
        out += ["", "Cited but not found: " + ", ".join(ledger.unresolved)]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ per model


def dropped_rates(debates: Iterable[Debate]) -> pd.DataFrame:
    """Per model: of the opponents' claims it could have answered, how many it left unanswered.

    Columns: model, name, debates, answerable (opponent claims made before one of its later
    turns), dropped, dropped_rate, claims_made, own_dropped (its claims the opponents dropped)."""
    stats: dict[str, dict[str, Any]] = {}
    for d in debates:
        led = build_ledger(d)
        if led.basis == "none":
            continue
        order = {(s.round, s.speaker): i for i, s in enumerate(d.rounds)}
        last_turn: dict[str, int] = {}
        for (r, sp), i in order.items():
            last_turn[sp] = max(last_turn.get(sp, -1), i)
        answered_by: dict[str, set[str]] = {}
        for a in led.attacks:
            answered_by.setdefault(a.speaker, set()).add(a.target)
        parts = {p.label: p for p in d.participants}
        for label, p in parts.items():
            model = p.model or p.name or label
            st = stats.setdefault(model, {"model": model, "name": p.name or model, "debates": set(), "answerable": 0,
                                          "dropped": 0, "claims_made": 0, "own_dropped": 0})
            st["debates"].add(d.id)
            for c in led.claims:
                if c.speaker == label:
                    st["claims_made"] += 1
                    continue
                pos = order.get((c.round, c.speaker), -1)
                if last_turn.get(label, -1) > pos:
                    st["answerable"] += 1
                    st["dropped"] += c.id not in answered_by.get(label, set())
            st["own_dropped"] += sum(1 for c in led.dropped if c.speaker == label)
    rows = [{**st, "debates": len(st["debates"]),
             "dropped_rate": round(st["dropped"] / st["answerable"], 4) if st["answerable"] else float("nan")}
            for st in stats.values()]
    cols = ["model", "name", "debates", "answerable", "dropped", "dropped_rate", "claims_made", "own_dropped"]
    return pd.DataFrame(rows, columns=cols).sort_values("dropped_rate").reset_index(drop=True)
