"""A simulated model for the judged protocols: a script for the scripted server, so demos,
notebooks, tests and benchmarks can run batches with no real model."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Callable
from typing import Any


def simulated_model(
    strengths: dict[str, float] | None = None,
    *,
    judges: dict[str, str] | None = None,
    default_judge: str = "fair",
    delay: float = 0.0,
    faults: Callable[[dict], Any] | None = None,
    stances: tuple[str, str] = ("正方立场", "反方立场"),
):
    """A script for :class:`~debate_core.engines.scripted_server.ScriptedServer` that plays the judged protocols.

    For demos, notebooks, tests and benchmarks with no real model: debaters answer
    valid envelopes (topic debates) or speeches (trials) carrying a visible
    ``力度=<strength>`` marker, where the strength is ``strengths[<model name>]``
    (default 1.0); the judge reads the markers from the anonymous log and rules:

    * ``fair`` — the strongest wins (a tie is broken by a hash of the log);
    * ``noisy`` — a Bradley-Terry draw (P ∝ strength), seeded by the log and the judge;
    * ``first`` — whoever is presented first (a position-biased judge);
    * ``label`` — always 辩手甲 / pro (a label-biased judge).

    ``judges`` maps a judge model name to its mode; ``faults(body)`` may return a
    :class:`~debate_core.engines.scripted_server.Reply` (an error, a delay) that replaces the answer.
    Model names are the server-side names (``openai/m1`` reaches the server as ``m1``).
    """
    import random

    from debate_core.engines.scripted_server import Reply

    strengths = dict(strengths or {})
    judges = dict(judges or {})
    seen: dict[str, int] = {}
    lock = threading.Lock()

    def strength_of(model: str) -> float:
        return float(strengths.get(model, strengths.get(model.split("/")[-1], 1.0)))

    def pick(mode: str, ranked: list[tuple[str, float]], seed_text: str, first: str, label: str) -> str:
        if mode == "first":
            return first
        if mode == "label":
            return label
        if mode == "noisy":
            digest = hashlib.sha256(seed_text.encode()).hexdigest()
            with lock:  # the n-th judging of the same log draws anew (repeats are identical logs)
                seen[digest] = seen.get(digest, 0) + 1
                nth = seen[digest]
            rng = random.Random(f"{digest}:{nth}")
            total = sum(max(v, 1e-9) for _, v in ranked)
            x = rng.random() * total
            for name, v in ranked:
                x -= max(v, 1e-9)
                if x <= 0:
                    return name
            return ranked[-1][0]
        best = max(v for _, v in ranked)
        tied = sorted(n for n, v in ranked if v == best)
        return tied[int(hashlib.sha256(seed_text.encode()).hexdigest(), 16) % len(tied)]

    def answer(body: dict) -> Any:
        msgs = body.get("messages") or []
        system = str(msgs[0].get("content") or "") if msgs else ""
        user = str(msgs[1].get("content") or "") if len(msgs) > 1 else ""
        model = str(body.get("model") or "")
        if "中立编排者" in system:
            return json.dumps({"stances": list(stances), "reason": "simulated split"}, ensure_ascii=False)
        if "独立裁判" in system:  # topic-debate judge
            listed = re.findall(r'"label": "(辩手.)"', user)
            marks: dict[str, list[float]] = {}
            for lab, block in re.findall(r"### (辩手.)（[^\n]*\n(.*?)(?=\n### |\n## |\Z)", user, re.S):
                marks.setdefault(lab, []).extend(float(x) for x in re.findall(r"力度=([0-9.]+)", block))
            ranked = [(lab, sum(marks.get(lab, [0.0])) / max(len(marks.get(lab, [])), 1)) for lab in listed]
            if not ranked:
                return "无法裁决"
            winner = pick(judges.get(model, default_judge), ranked, model + user, listed[0], "辩手甲")
            rows = [
                {
                    "label": lab,
                    "stance": "",
                    "strongest": "论点",
                    "weakness": "弱点",
                    "score": 8.0 if lab == winner else 5.0,
                }
                for lab, _ in ranked
            ]
            return (
                "```json\n"
                + json.dumps(
                    {
                        "winner": winner,
                        "summary": f"{winner}胜出",
                        "reasons": {"论点强度": "见日志", "攻防表现": "见日志", "逻辑硬伤": "见日志"},
                        "rows": rows,
                        "note": "",
                    },
                    ensure_ascii=False,
                )
                + "\n```"
            )
        if "庭审式辩论的裁判" in system:  # trial judge
            blocks = re.findall(r"### 第 (\d+) 轮 · (正方|反方)\n(.*?)(?=\n### 第|\Z)", user, re.S)
            order: list[str] = []
            marks = {}
            for _r, side, text in blocks:
                key = "pro" if side == "正方" else "con"
                if key not in order:
                    order.append(key)
                marks.setdefault(key, []).extend(float(x) for x in re.findall(r"力度=([0-9.]+)", text))
            ranked = [(k, sum(marks.get(k, [0.0])) / max(len(marks.get(k, [])), 1)) for k in order] or [
                ("pro", 1.0),
                ("con", 1.0),
            ]
            winner = pick(judges.get(model, default_judge), ranked, model + user, ranked[0][0], "pro")
            rounds = sorted({int(r) for r, _s, _t in blocks}) or [1]
            return json.dumps(
                {
                    "per_round": [{"round": r, "comment": f"第{r}轮交锋"} for r in rounds],
                    "winner": winner,
                    "summary": f"{winner} wins",
                    "reasons": "力度更强",
                },
                ensure_ascii=False,
            )
        if "庭审式辩论中担任" in system:  # trial speaker
            side = "正方" if "担任正方" in system else "反方"
            return (
                f"{side}陈词：命题{'成立' if side == '正方' else '不成立'}，理由如下。力度={strength_of(model):.4f}。"
            ) + "论证展开。" * 10
        m = re.search(r"你是(辩手.)", system)
        if m:  # topic debater: this round's request is the last user message naming a round
            r = next(
                (
                    r
                    for x in reversed(msgs)
                    if x.get("role") == "user" and (r := re.search(r"第 (\d+) 轮", str(x.get("content") or "")))
                ),
                None,
            )
            round_no = int(r.group(1)) if r else 1
            st = re.search(r"立场是：\n```data\n(.*?)\n```", system, re.S)
            env = {
                "stance": json.loads(st.group(1)) if st else "",
                "no_new_points": round_no >= 2,
                "arguments": [
                    {
                        "id": f"A{round_no}",
                        "point": f"{m.group(1)}第{round_no}轮论点",
                        "reasoning": f"力度={strength_of(model):.4f}",
                        "evidence": "",
                    }
                ],
                "rebuttals": [],
            }
            return "```json\n" + json.dumps(env, ensure_ascii=False) + "\n```"
        return "好的。"

    def script(body: dict):
        if faults is not None:
            fault = faults(body)
            if fault is not None:
                return fault
        reply = answer(body)
        return Reply(text=reply, delay=delay) if delay else reply

    return script
