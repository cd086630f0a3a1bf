"""Loads the rule corpus (tests/fixtures/check_corpus): bases, violations and traps, as checkable cases.

Used by tests/test_check_corpus.py and bench/check_corpus.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import yaml

CORPUS = Path(__file__).resolve().parent / "fixtures" / "check_corpus"


@dataclass
class Case:
    id: str
    kind: str  # "violation" or "trap"
    rule: Optional[str]  # the rule expected to fail; None for a trap
    text: str
    speaker: str
    opponent: str
    role: str
    opponent_summary: str
    source_text: dict[str, str] = field(default_factory=dict)
    also: list[str] = field(default_factory=list)
    why: str = ""


def _build(raw: dict, bases: dict) -> tuple[str, dict]:
    base = bases.get(raw.get("base", ""), {}) if raw.get("base") else {}
    if "text" in raw:
        text = raw["text"]
    else:
        if not base:
            raise ValueError(f"case {raw.get('id')}: unknown base {raw.get('base')!r}")
        lines = base["text"].split("\n")
        for i in sorted(raw.get("drop", []), reverse=True):
            del lines[i]
        if raw.get("add"):
            lines[-1:-1] = raw["add"].split("\n")
        if raw.get("prepend"):
            lines[0:0] = [raw["prepend"]]
        text = "\n".join(lines)
        for old, new in raw.get("replace", []):
            if old not in text:
                raise ValueError(f"case {raw.get('id')}: {old!r} is not in base {raw['base']}")
            text = text.replace(old, new)
    meta = {k: raw.get(k, base.get(k, "")) for k in ("speaker", "opponent", "role")}
    meta["opponent_summary"] = raw.get("summary", base.get("summary", ""))
    return text, meta


def load_corpus(corpus: Optional[Path] = None) -> list[Case]:
    """The cases of a corpus directory (bases.yaml, violations.yaml, traps.yaml); ours by default.
    A corpus without bases.yaml builds on ours (the sealed sets are written over our bases)."""
    corpus = Path(corpus) if corpus is not None else CORPUS
    bases_file = corpus / "bases.yaml" if (corpus / "bases.yaml").exists() else CORPUS / "bases.yaml"
    bases = yaml.safe_load(bases_file.read_text(encoding="utf-8"))["bases"] if bases_file.exists() else {}
    out: list[Case] = []
    for fname, kind in (("violations.yaml", "violation"), ("traps.yaml", "trap")):
        if not (corpus / fname).exists():
            continue
        for raw in yaml.safe_load((corpus / fname).read_text(encoding="utf-8"))["cases"]:
            text, meta = _build(raw, bases)
            out.append(Case(id=raw["id"], kind=kind, rule=raw.get("rule"), text=text,
                            source_text=raw.get("source_text") or {}, also=raw.get("also") or [],
                            why=raw.get("why", ""), **meta))
    return out


def base_cases() -> list[Case]:
    bases = yaml.safe_load((CORPUS / "bases.yaml").read_text(encoding="utf-8"))["bases"]
    return [Case(id=k, kind="base", rule=None, text=b["text"], speaker=b["speaker"], opponent=b["opponent"],
                 role=b["role"], opponent_summary=b.get("summary", "")) for k, b in bases.items()]


def context(case: Case, pack):
    """The CheckContext for a case; ``source_text`` is added to the speaker as the pack's text."""
    from debate_core.checks import CheckContext
    from debate_core.models import Excerpt

    speaker, opponent = pack.masters[case.speaker], pack.masters[case.opponent]
    if case.source_text:
        speaker = speaker.model_copy(deep=True)
        speaker.excerpts = list(speaker.excerpts) + [
            Excerpt(file="corpus.md", heading="原典", source_id=sid, text=t) for sid, t in case.source_text.items()]
    return CheckContext(speaker=speaker, opponent=opponent, role=case.role, ammo=speaker.ammo_against(opponent.slug),
                        opponent_summary=case.opponent_summary, pack_source_ids=pack.all_source_ids(), pack=pack)


def opening_context(pack, speaker: str, opponent: str):
    """A bare 立论 context between two masters of ``pack``, with no ammo: what a rule reads a lone sentence in."""
    from debate_core.checks import CheckContext

    m = pack.masters
    return CheckContext(
        speaker=m[speaker], opponent=m[opponent], role="立论", ammo=[], pack=pack, pack_source_ids=pack.all_source_ids()
    )
