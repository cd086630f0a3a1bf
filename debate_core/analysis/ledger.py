"""The argument ledger: every claim of a debate, which earlier claims of another speaker each one
answers, and the claims left unanswered.

Every attack carries its **evidence**:

* ``explicit`` — recorded by the speaker: a cited claim id or an ``A1:`` answer to a ``Q1:``
  question (benchmark), a rebuttal's typed ``target`` (topic), a speech plan's target (an offline
  master round: ``answer`` / ``accept`` / ``partly`` / ``hold`` / ``contrast`` points);
* ``inferred`` — a paragraph that engages an earlier claim of another speaker without citing it,
  found by the offline aligner (:mod:`debate_core.analysis.align`);
* ``model`` — labelled by a model (``ledger ID --model M``, :mod:`debate_core.analysis.ledger_model`),
  passed in as ``labels``.

What the claims are, per protocol:

* **benchmark** (imported): each paragraph tagged ``[P2.3]``;
* **topic**: each envelope argument ``<label> <id>`` (an id a debater reuses is one claim, the
  first) and each rebuttal ``<label> R<round>.<n>``.  Debaters of a round speak at once, blind
  to each other: an attack reaches only a claim of *another* debater made in an *earlier* round;
  a rebuttal aimed at its own side or at a claim not yet made is listed under ``refused``;
* **master**: an offline round with a speech plan has one claim per plan point that says
  something (stance, reason, objection, answer, reply, concession, difference) and its attacks
  are the plan's targets; any other round (a model's) has one claim per passage of its text
  (its opening restatement left out: an echo answers nothing), and its attacks are inferred.

Benchmark and master turns are sequential: an attack reaches any earlier turn of the other side.

A claim is *dropped* when another speaker spoke after it (a later turn; in a topic debate a
later round) and no attack of the evidence used reaches it; a claim after which nobody else
spoke could not be answered and is not counted.  Trials record no claim structure: their
ledger has one claim per speech and no attacks (``basis`` ``none``), and nothing is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from debate_core.analysis.align import Aligner, Params
from debate_core.content.text import cjk_len, split_sentences
from debate_core.models import Attack, Claim, Debate, Ledger

EVIDENCE = ("explicit", "inferred", "model")
DEFAULT_EVIDENCE = ("explicit", "inferred")
OFFLINE_ENGINES = ("offline", "")  # speeches and participants that no model wrote

_REF = re.compile(r"\[([A-Z]\d+(?:\.\d+)+)\]")
_TAG = re.compile(r"^\s*\[([A-Z]\d+(?:\.\d+)+)\]\s*")
_QA = re.compile(r"^\s*(?:\[[^\]]+\]\s*)?\**([QA])(\d+)\**\s*[:：.]")
_SENTENCE = re.compile(r"^(.+?[。！？!?.])(?:\s|$)")

# plan points that put something forward (a claim), and those that answer an earlier claim
_PLAN_CLAIMS = (
    "stance",
    "reason",
    "support",
    "contrast",
    "answer",
    "accept",
    "partly",
    "hold",
    "concede",
    "difference",
    "case",
    "case_then",
)
_PLAN_EDGES = {
    "answer": "rebuttal",
    "accept": "concession",
    "partly": "partly",
    "hold": "hold",
    "contrast": "objection",
}
_RESTATING = ("反驳", "回应")
UNIT_CHARS = 60  # a model's master speech is cut into passages of about this many characters (or more)


@dataclass
class _Meta:
    speaker: str
    slot: int  # a claim reaches only claims of a smaller slot: its turn (benchmark, master) or round (topic)
    inferable: bool  # may be the source of an inferred or model attack (model-written text)


@dataclass
class Draft:
    """A debate's claims and explicit attacks, before inference: what the aligner and a labelling
    model work on.  ``speech_slots`` holds (speaker, slot) of every speech."""

    basis: str
    claims: list[Claim] = field(default_factory=list)
    meta: dict[str, _Meta] = field(default_factory=dict)
    explicit: list[Attack] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    speech_slots: list[tuple[str, int]] = field(default_factory=list)
    _by_id: dict[str, Claim] = field(default_factory=dict, repr=False)

    def add(self, claim: Claim, slot: int, inferable: bool = True) -> bool:
        if claim.id in self.meta:
            return False
        self.claims.append(claim)
        self._by_id[claim.id] = claim
        self.meta[claim.id] = _Meta(claim.speaker, slot, inferable)
        return True

    def reaches(self, source: str, target: str) -> bool:
        """May ``source`` answer ``target``: another speaker's claim, made earlier."""
        s, t = self.meta.get(source), self.meta.get(target)
        return bool(s and t and s.speaker != t.speaker and t.slot < s.slot)

    def candidates(self, source: str) -> list[Claim]:
        return [c for c in self.claims if self.reaches(source, c.id)]

    def sources(self) -> list[Claim]:
        """The claims an inferred or model attack may come from."""
        return [c for c in self.claims if self.meta[c.id].inferable]

    def by_id(self) -> dict[str, Claim]:
        return self._by_id


def _names(debate: Debate) -> dict[str, tuple[str, str]]:
    return {p.label: (p.name or p.label, p.model) for p in debate.participants}


def _claim(names, speaker: str, **kw) -> Claim:
    name, model = names.get(speaker, (speaker, ""))
    return Claim(speaker=speaker, name=name, model=model, **kw)


def _attack(
    draft: Draft, source: str, target: str, kind: str, evidence: str = "explicit", score: float | None = None
) -> Attack | None:
    """An attack, or None when the pair is already recorded or cannot be one (own side, not earlier)."""
    if any(a.source == source and a.target == target for a in draft.explicit) or not draft.reaches(source, target):
        return None
    c = draft.by_id()[source]
    a = Attack(
        source=source, target=target, speaker=c.speaker, round=c.round, kind=kind, evidence=evidence, score=score
    )
    return a


# ---------------------------------------------------------------------- benchmark


def _benchmark(debate: Debate) -> Draft:
    names = _names(debate)
    draft = Draft("claim ids")
    owner: dict[str, str] = {}
    questions: dict[tuple[str, int], str] = {}  # (asking side, question number) -> claim id
    for turn, s in enumerate(debate.rounds):
        draft.speech_slots.append((s.speaker, turn))
        env = s.envelope or {}
        items = env.get("claims") or [
            {"id": m.group(1), "text": _TAG.sub("", para)} for para in s.text.split("\n\n") if (m := _TAG.match(para))
        ]
        turn_claims = []
        for c in items:
            claim = _claim(names, s.speaker, id=c["id"], round=s.round, text=c["text"], phase=s.role)
            if draft.add(claim, turn):
                owner[c["id"]] = s.speaker
                turn_claims.append(claim)
        cited_inline: set[str] = set()
        for claim in turn_claims:
            for ref in dict.fromkeys(_REF.findall(claim.text)):
                if ref == claim.id:
                    continue
                if ref not in owner:
                    draft.unresolved.append(ref)
                    continue
                cited_inline.add(ref)
                if (a := _attack(draft, claim.id, ref, "cites")) is not None:
                    draft.explicit.append(a)
            qa = _QA.match(claim.text)
            if qa and qa.group(1) == "Q":
                questions[(s.speaker, int(qa.group(2)))] = claim.id
            elif qa and qa.group(1) == "A":
                asked = next(
                    (q for (side, n), q in reversed(questions.items()) if side != s.speaker and n == int(qa.group(2))),
                    None,
                )
                if asked and (a := _attack(draft, claim.id, asked, "answer")) is not None:
                    draft.explicit.append(a)
        for ref in env.get("cited") or []:
            if ref in cited_inline:
                continue
            if ref not in owner:
                draft.unresolved.append(ref)
            elif turn_claims and (a := _attack(draft, turn_claims[0].id, ref, "cites")) is not None:
                draft.explicit.append(a)
    draft.unresolved = list(dict.fromkeys(draft.unresolved))
    return draft


# -------------------------------------------------------------------------- topic

_KINDS = {"反驳": "rebuttal", "质疑": "challenge", "让步": "concession"}


def _topic(debate: Debate) -> Draft:
    names = _names(debate)
    draft = Draft("envelopes")
    pending: list[tuple[Claim, str, str]] = []
    for s in debate.rounds:
        draft.speech_slots.append((s.speaker, s.round))
        env = s.envelope or {}
        for a in env.get("arguments") or []:
            aid = str(a.get("id") or f"A{len(draft.claims) + 1}")
            text = str(a.get("point") or a.get("content") or "")
            # an id the debater reuses names the claim it already made: one row, the first
            draft.add(
                _claim(names, s.speaker, id=f"{s.speaker} {aid}", round=s.round, text=text, phase="argument"), s.round
            )
        for k, r in enumerate(env.get("rebuttals") or [], 1):
            claim = _claim(
                names,
                s.speaker,
                id=f"{s.speaker} R{s.round}.{k}",
                round=s.round,
                text=str(r.get("content") or ""),
                phase="rebuttal",
            )
            if draft.add(claim, s.round):
                pending.append((claim, str(r.get("target") or ""), str(r.get("type") or "rebuttal")))
    ids = set(draft.meta)
    labels = sorted({c.speaker for c in draft.claims} | {p.label for p in debate.participants}, key=len, reverse=True)
    for claim, target, kind in pending:
        resolved = _resolve_target(target, labels, ids)
        if resolved is None:
            if target:
                draft.unresolved.append(target)
            continue
        t = draft.meta[resolved]
        if t.speaker == claim.speaker:
            draft.refused.append(f"{claim.id} → {resolved}: a rebuttal of its own side")
            continue
        if t.slot >= draft.meta[claim.id].slot:
            draft.refused.append(f"{claim.id} → {resolved}: not made in an earlier round")
            continue
        if a := _attack(draft, claim.id, resolved, _KINDS.get(kind.strip(), kind.strip() or "rebuttal")):
            draft.explicit.append(a)
    return draft


def _resolve_target(target: str, labels: list[str], ids: set[str]) -> str | None:
    t = " ".join(target.replace("：", " ").replace(":", " ").split())
    for label in labels:
        if t.startswith(label):
            rest = t[len(label) :].strip(" ,，的")
            m = re.search(r"[A-Za-z]*\d+(?:\.\d+)?", rest)
            if m and f"{label} {m.group(0)}" in ids:
                return f"{label} {m.group(0)}"
    return None


# ------------------------------------------------------------------------- master


def _units(text: str, skip_first: bool) -> list[str]:
    """A model's speech cut into passages: its sentences, joined until a passage holds about
    :data:`UNIT_CHARS` characters; the opening restatement (``skip_first``) left out."""
    sents = [x for para in re.split(r"\n\s*\n", text) for x in split_sentences(para)]
    if skip_first and sents:
        first = sents.pop(0)
        if sents and cjk_len(first) < 15 and len(first.split()) < 8:  # it only announced the restatement
            sents.pop(0)
    out: list[str] = []
    buf = ""
    for x in sents:
        buf = f"{buf} {x}".strip() if buf and not cjk_len(x) else buf + x
        if max(cjk_len(buf), len(buf.split()) * 4) >= UNIT_CHARS:
            out.append(buf)
            buf = ""
    if buf:
        if out and max(cjk_len(buf), len(buf.split()) * 4) < UNIT_CHARS / 2:
            out[-1] += buf
        else:
            out.append(buf)
    return out


def _master(debate: Debate) -> Draft:
    names = _names(debate)
    draft = Draft("speech plans")
    refs: list[tuple[str, str, str]] = []  # (bank ref, speaker, claim id), in order
    used_plan = used_text = False
    turn = -1
    for s in sorted(debate.rounds, key=lambda x: x.round):
        if s.status == "failed" or not s.text.strip():
            continue
        turn += 1
        draft.speech_slots.append((s.speaker, turn))
        plan = s.plan
        if plan is not None and s.engine in OFFLINE_ENGINES and plan.points:
            used_plan = True
            k = 0
            for p in plan.points:
                if p.kind not in _PLAN_CLAIMS:
                    continue
                k += 1
                cid = f"R{s.round}.{k}"
                draft.add(
                    _claim(names, s.speaker, id=cid, round=s.round, text=p.text or p.gist, phase=s.role),
                    turn,
                    inferable=False,
                )
                if p.kind in _PLAN_EDGES and p.target:
                    hit = next((c for ref, sp, c in reversed(refs) if ref == p.target and sp != s.speaker), None)
                    if hit and (a := _attack(draft, cid, hit, _PLAN_EDGES[p.kind])) is not None:
                        draft.explicit.append(a)
                if p.ref and p.kind not in ("accept", "partly", "hold"):
                    refs.append((p.ref, s.speaker, cid))
            continue
        used_text = True
        for k, unit in enumerate(_units(s.text, s.role in _RESTATING), 1):
            draft.add(_claim(names, s.speaker, id=f"R{s.round}.{k}", round=s.round, text=unit, phase=s.role), turn)
    if used_text:
        draft.basis = "speech plans and passages" if used_plan else "passages"
    return draft


# ------------------------------------------------------------------------ others


def _first_sentence(text: str) -> str:
    t = " ".join(text.split())
    m = _SENTENCE.match(t)
    return (m.group(1) if m else t)[:120]


def _speeches(debate: Debate) -> Draft:
    names = _names(debate)
    draft = Draft("none")
    for turn, s in enumerate(debate.rounds):
        draft.speech_slots.append((s.speaker, turn))
        if s.text.strip():
            draft.add(
                _claim(
                    names,
                    s.speaker,
                    id=f"{s.speaker} {s.round}",
                    round=s.round,
                    text=_first_sentence(s.text),
                    phase=s.role,
                ),
                turn,
                inferable=False,
            )
    return draft


BUILDERS = {"benchmark": _benchmark, "topic": _topic, "master": _master}


def draft(debate: Debate) -> Draft:
    """The debate's claims and explicit attacks (what inference and labelling start from)."""
    return BUILDERS.get(debate.protocol, _speeches)(debate)


def infer(d: Draft, topic: str = "", params: Params | None = None) -> list[Attack]:
    """Attacks the aligner finds: each model-written claim that cites nothing, against the earlier
    claims of the other speakers (at most one per claim, see :mod:`debate_core.analysis.align`)."""
    if d.basis == "none":
        return []
    aligner = Aligner([c.text for c in d.claims] + ([topic] if topic else []), params)
    citing = {a.source for a in d.explicit}
    out: list[Attack] = []
    for c in d.sources():
        if c.id in citing:  # a paragraph that cites answers what it cites
            continue
        targets = [(t.id, t.text) for t in d.candidates(c.id)]
        for tid, score in aligner.engaged(c.text, targets):
            if (a := _attack(d, c.id, tid, "engages", "inferred", score)) is not None:
                out.append(a)
    return out


def from_labels(d: Draft, labels: Iterable[dict]) -> list[Attack]:
    """Model labels ({source, target, kind}) as attacks: only pairs the debate allows (another
    speaker's earlier claim), one per pair."""
    out: list[Attack] = []
    seen: set[tuple[str, str]] = set()
    for lab in labels:
        s, t = str(lab.get("source", "")), str(lab.get("target", ""))
        if (s, t) in seen:
            continue
        seen.add((s, t))
        if (
            s in d.meta
            and d.meta[s].inferable
            and (a := _attack(d, s, t, str(lab.get("kind") or "engages"), "model")) is not None
        ):
            out.append(a)
    return out


def build_ledger(
    debate: Debate,
    *,
    evidence: Sequence[str] = DEFAULT_EVIDENCE,
    labels: Iterable[dict] | None = None,
    labeller: str = "",
    params: Params | None = None,
) -> Ledger:
    """The argument ledger of one debate, from the evidence kinds asked for (explicit is always
    read; ``inferred`` runs the aligner; ``model`` uses ``labels``, a labelling model's
    {source, target, kind} rows, see :mod:`debate_core.analysis.ledger_model`)."""
    return _build(debate, evidence, labels, labeller, params)[0]


def _build(
    debate: Debate, evidence: Sequence[str], labels: Iterable[dict] | None, labeller: str, params: Params | None
) -> tuple[Ledger, Draft]:
    d = draft(debate)
    kinds = ["explicit"]
    attacks = list(d.explicit)
    seen = {(a.source, a.target) for a in attacks}
    if "model" in evidence and labels is not None and d.basis != "none" and d.sources():
        kinds.append("model")
        for a in from_labels(d, labels):
            if (a.source, a.target) not in seen:
                seen.add((a.source, a.target))
                attacks.append(a)
    if "inferred" in evidence and d.basis != "none" and d.sources():  # model-written text to read
        kinds.insert(1, "inferred")
        for a in infer(d, debate.topic, params):
            if (a.source, a.target) not in seen:
                seen.add((a.source, a.target))
                attacks.append(a)
    if d.basis == "none":
        kinds = []
    order = {c.id: i for i, c in enumerate(d.claims)}
    attacks.sort(key=lambda a: (order.get(a.source, 0), order.get(a.target, 0)))
    return Ledger(
        debate_id=debate.id,
        protocol=debate.protocol,
        basis=d.basis,
        claims=d.claims,
        attacks=attacks,
        dropped=dropped_claims(d, attacks),
        unresolved=d.unresolved,
        refused=d.refused,
        evidence=kinds,
        labeller=labeller if "model" in kinds else "",
    ), d


def dropped_claims(d: Draft, attacks: Iterable[Attack]) -> list[Claim]:
    """Claims another speaker could still answer (spoke in a later slot) that no attack reaches."""
    if d.basis == "none":
        return []
    answered = {a.target for a in attacks}
    out = []
    for c in d.claims:
        m = d.meta[c.id]
        if c.id not in answered and any(sp != m.speaker and slot > m.slot for sp, slot in d.speech_slots):
            out.append(c)
    return out


def evidence_counts(ledger: Ledger) -> dict[str, int]:
    """Attacks per evidence kind, for every kind the ledger consulted (0 when none was found)."""
    counts = {k: 0 for k in ledger.evidence}
    for a in ledger.attacks:
        counts[a.evidence] = counts.get(a.evidence, 0) + 1
    return counts


def evidence_line(ledger: Ledger) -> str:
    """``explicit 12, inferred 9`` (``model 3 (model-x)``): what the ledger's attacks rest on."""
    if not ledger.evidence:
        return "none (no claim structure recorded)"
    counts = evidence_counts(ledger)
    return ", ".join(
        f"{k} {counts[k]}" + (f" ({ledger.labeller})" if k == "model" and ledger.labeller else "")
        for k in ledger.evidence
    )


def ledger_json(ledger: Ledger) -> dict[str, Any]:
    """What ``ledger ID --format json`` prints: ``{"claims", "attacks", "dropped", "evidence"}``;
    ``evidence`` says which kinds were consulted, how many attacks each found, and the labelling model."""
    data = ledger.model_dump(mode="json")
    return {
        "claims": data["claims"],
        "attacks": data["attacks"],
        "dropped": data["dropped"],
        "evidence": {
            "used": list(ledger.evidence),
            "attacks": evidence_counts(ledger),
            "model": ledger.labeller or None,
        },
    }


def ledger_markdown(ledger: Ledger) -> str:
    by_target: dict[str, list[str]] = {}
    for a in ledger.attacks:
        mark = "" if a.evidence == "explicit" else f" ({a.evidence})"
        by_target.setdefault(a.target, []).append(a.source + mark)
    dropped = {c.id for c in ledger.dropped}
    out = [
        f"# Argument ledger: {ledger.debate_id}",
        "",
        f"{len(ledger.claims)} claims, {len(ledger.attacks)} attacks, {len(ledger.dropped)} dropped "
        f"(read from {ledger.basis}; evidence: {evidence_line(ledger)})",
        "",
        "A claim is dropped when another speaker spoke after it and no attack of this evidence reaches it.",
        "",
        "| Claim | Speaker | Round | Answered by | Text |",
        "| --- | --- | ---: | --- | --- |",
    ]
    for c in ledger.claims:
        status = ", ".join(by_target.get(c.id, [])) or ("**dropped**" if c.id in dropped else "")
        text = " ".join(c.text.split()).replace("|", "\\|")
        out.append(
            f"| {c.id} | {c.name or c.speaker} | {c.round} | {status} | "
            f"{text[:160] + ('…' if len(text) > 160 else '')} |"
        )
    if ledger.unresolved:
        out += ["", "Cited but not found: " + ", ".join(ledger.unresolved)]
    if ledger.refused:
        out += ["", "Not counted as attacks: " + "; ".join(ledger.refused)]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ per model


def is_offline(model: str) -> bool:
    return (model or "").strip().lower() in OFFLINE_ENGINES


def dropped_rates(
    debates: Iterable[Debate],
    names: dict[str, str] | None = None,
    *,
    evidence: Sequence[str] = DEFAULT_EVIDENCE,
    labels: dict[str, list[dict]] | None = None,
) -> pd.DataFrame:
    """Per model: of the opponents' claims it could have answered, how many it left unanswered.

    One row per model id, named by its display name (``names``: model id -> name, e.g. the
    archive's ``model_names``; else the name a benchmark import gives it; else the id).  The
    offline engine is no model and is left out (its rows would rank a template).

    Columns: model, name, debates, answerable (opponent claims made before one of its later
    turns), dropped, dropped_rate, claims_made, own_dropped (its claims the opponents dropped)."""
    names = dict(names or {})
    stats: dict[str, dict[str, Any]] = {}
    for deb in debates:
        led, d = _build(deb, evidence, (labels or {}).get(deb.id), "", None)
        if led.basis == "none":
            continue
        last_slot: dict[str, int] = {}
        for sp, slot in d.speech_slots:
            last_slot[sp] = max(last_slot.get(sp, -1), slot)
        answered_by: dict[str, set[str]] = {}
        for a in led.attacks:
            answered_by.setdefault(a.speaker, set()).add(a.target)
        for p in deb.participants:
            model = p.model or ""
            if is_offline(model):
                continue
            if model not in names and deb.protocol == "benchmark" and p.name:
                names[model] = p.name
            st = stats.setdefault(
                model,
                {"model": model, "debates": set(), "answerable": 0, "dropped": 0, "claims_made": 0, "own_dropped": 0},
            )
            st["debates"].add(deb.id)
            for c in led.claims:
                if c.speaker == p.label:
                    st["claims_made"] += 1
                    continue
                if last_slot.get(p.label, -1) > d.meta[c.id].slot:
                    st["answerable"] += 1
                    st["dropped"] += c.id not in answered_by.get(p.label, set())
            st["own_dropped"] += sum(1 for c in led.dropped if c.speaker == p.label)
    rows = [
        {
            **st,
            "name": names.get(st["model"]) or st["model"],
            "debates": len(st["debates"]),
            "dropped_rate": round(st["dropped"] / st["answerable"], 4) if st["answerable"] else float("nan"),
        }
        for st in stats.values()
    ]
    cols = ["model", "name", "debates", "answerable", "dropped", "dropped_rate", "claims_made", "own_dropped"]
    return pd.DataFrame(rows, columns=cols).sort_values(["dropped_rate", "model"]).reset_index(drop=True)
