"""A topic debate's stances: split from the topic by one model call, cleaned, labelled as the seed
assigns them, and the rebuttals a debater may not make (against itself, or in the blind openings)."""

from __future__ import annotations

import json
import re
from typing import Any

from debate_core.engines.envelopes import extract_json
from debate_core.engines.gateway import Gateway, GatewayError
from debate_core.engines.judged_prompts import for_lang
from debate_core.protocols.judged_common import cut_words

MAX_STANCE_CHARS = 200  # a Chinese stance is cut at 200 characters
MAX_STANCE_WORDS = 60  # an English stance is cut at 60 words


_TARGET_LABEL = re.compile(r"辩手\s*([甲乙丙丁])|\bDebater\s+([A-D])\b", re.I)


def target_seats(target: str) -> set[int]:
    """The seats (0 for 辩手甲 / Debater A, …) a rebuttal's target names, in either language."""
    return {
        "甲乙丙丁".index(m.group(1)) if m.group(1) else "ABCD".index(m.group(2).upper())
        for m in _TARGET_LABEL.finditer(target or "")
    }


def drop_rebuttals(env, label: str, round_no: int, lang: str) -> list[str]:
    """Drop what a debater may not rebut, in place, and say so (the notes for the speech's warnings):
    every rebuttal of round 1 (a blind opening: nobody has seen the others yet), and from round 2 on
    a rebuttal whose target names the debater's own label and no other."""
    P = for_lang(lang)
    if not env.rebuttals:
        return []
    if round_no == 1:
        n, env.rebuttals = len(env.rebuttals), []
        return [P.NOTES["opening_rebuttals_dropped"].format(n=n)]
    seat = P.LABELS.index(label) if label in P.LABELS else -1
    own = [r for r in env.rebuttals if target_seats(r.target) == {seat}]
    if not own:
        return []
    env.rebuttals = [r for r in env.rebuttals if r not in own]
    targets = P.LIST_SEP.join(dict.fromkeys(r.target for r in own))
    return [P.NOTES["self_rebuttals_dropped"].format(n=len(own), targets=targets)]


def label_stances(stances: list[str], lang: str = "zh") -> dict[str, str]:
    """Label → stance as the seed assigns them (stance 1 → 辩手乙, 2 → 辩手甲, 3 → 辩手丙, 4 → 辩手丁;
    Debater B, A, C, D in English), in label order."""
    P = for_lang(lang)
    by_label = {P.STANCE_LABELS[i]: s for i, s in enumerate(stances[: len(P.STANCE_LABELS)])}
    return {lab: by_label[lab] for lab in P.LABELS if lab in by_label}


def clean_stances(raw: list[Any], lang: str = "zh") -> list[str]:
    out: list[str] = []
    for s in raw:
        if isinstance(s, dict):
            s = s.get("stance") or s.get("text") or s.get("name") or ""
        s = str(s).strip().strip("「」\"'").strip()
        s = cut_words(s, MAX_STANCE_WORDS) if lang == "en" else s[:MAX_STANCE_CHARS]
        if s and s not in out:
            out.append(s)
    return out


def split_stances(topic: str, gateway: Gateway, lang: str = "zh") -> tuple[list[str], str]:
    """(stances, reason) from one model call (asked once more when the reply is not JSON)."""
    P = for_lang(lang)
    messages = P.stance_split_messages(topic)
    last = ""
    for _attempt in range(2):
        gen = gateway.complete(messages, purpose="stance_split")
        last = gen.text
        candidate = extract_json(gen.text)
        data: Any = None
        if candidate is not None:
            try:
                data = json.loads(candidate)
            except json.JSONDecodeError:
                data = None
        if isinstance(data, dict) and isinstance(data.get("stances"), list):
            return clean_stances(data["stances"], lang), str(data.get("reason") or "").strip()
        if isinstance(data, list):
            return clean_stances(data, lang), ""
        messages = messages + [
            {"role": "assistant", "content": gen.text or P.EMPTY_REPLY},
            {"role": "user", "content": P.STANCE_SPLIT_RETRY},
        ]
    raise GatewayError(f"the stance split returned no usable JSON: {last[:120]!r}")
