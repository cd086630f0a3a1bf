"""Scoring argument ledgers against a hand-annotated gold set.

A gold set is a folder in the benchmark layout (``transcripts/*.md``) with a ``gold.json`` beside
it: per transcript stem, its ``split`` (``dev`` to tune on, ``test`` to report), its ``lang`` and
``answers``: for *every* claim id, the ids of the earlier claims of the other side it answers
(rebuts, concedes, qualifies, questions or answers), cited or not.  The project's own gold set is
tests/fixtures/ledger_gold (README.md there gives the annotation rules).

An attack is scored as a (source, target) pair: precision is the share of the ledger's pairs the
annotator also drew, recall the share of the annotator's pairs the ledger found.  A dropped
claim is scored the same way against the claims the gold leaves unanswered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from debate_core.analysis.ledger import build_ledger, draft
from debate_core.io.importers.benchmark import parse_transcript
from debate_core.models import Debate, Ledger


@dataclass
class GoldDebate:
    stem: str
    split: str
    lang: str
    debate: Debate
    answers: dict[str, list[str]]

    @property
    def edges(self) -> set[tuple[str, str]]:
        return {(s, t) for s, ts in self.answers.items() for t in ts}

    def dropped(self) -> set[str]:
        """The claims the annotator left unanswered though the other side spoke after them."""
        d = draft(self.debate)
        answered = {t for ts in self.answers.values() for t in ts}
        return {
            c.id
            for c in d.claims
            if c.id not in answered
            and any(sp != d.meta[c.id].speaker and slot > d.meta[c.id].slot for sp, slot in d.speech_slots)
        }


def load_gold(folder: Path) -> list[GoldDebate]:
    """The gold set in ``folder``: its transcripts read by the benchmark importer, with their answers."""
    folder = Path(folder)
    gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
    out = []
    for stem, g in sorted(gold.items()):
        path = folder / "transcripts" / f"{stem}.md"
        debate = parse_transcript(path, path.read_text(encoding="utf-8"))
        out.append(
            GoldDebate(
                stem=stem,
                split=g["split"],
                lang=g.get("lang", "en"),
                debate=debate,
                answers={k: list(v) for k, v in g["answers"].items()},
            )
        )
    return out


@dataclass
class Score:
    tp: int = 0
    predicted: int = 0
    gold: int = 0
    misses: list[tuple[str, str, str]] = field(default_factory=list)  # (stem, source, target) the ledger missed
    extras: list[tuple[str, str, str]] = field(default_factory=list)  # (stem, source, target) not in the gold

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else float("nan")

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else float("nan")

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p == p and r == r and p + r else 0.0

    def row(self) -> dict:
        return {
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "f1": round(self.f1, 3),
            "found": self.tp,
            "predicted": self.predicted,
            "gold": self.gold,
        }


def score(gold: Iterable[GoldDebate], ledger_of: Callable[[GoldDebate], Ledger]) -> tuple[Score, Score]:
    """(attack score, dropped-claim score) of ``ledger_of`` over ``gold``."""
    edges, dropped = Score(), Score()
    for g in gold:
        led = ledger_of(g)
        pred = {(a.source, a.target) for a in led.attacks}
        true = g.edges
        edges.tp += len(pred & true)
        edges.predicted += len(pred)
        edges.gold += len(true)
        edges.misses += [(g.stem, s, t) for s, t in sorted(true - pred)]
        edges.extras += [(g.stem, s, t) for s, t in sorted(pred - true)]
        pd_, td = {c.id for c in led.dropped}, g.dropped()
        dropped.tp += len(pd_ & td)
        dropped.predicted += len(pd_)
        dropped.gold += len(td)
    return edges, dropped


def ledger_for(
    evidence: tuple[str, ...], labels: dict[str, list[dict]] | None = None, params=None, labeller: str = ""
) -> Callable[[GoldDebate], Ledger]:
    """A ``ledger_of`` for :func:`score`: the ledger from ``evidence`` (and model ``labels`` per stem)."""

    def ledger_of(g: GoldDebate) -> Ledger:
        return build_ledger(
            g.debate, evidence=evidence, labels=(labels or {}).get(g.stem), params=params, labeller=labeller
        )

    return ledger_of
