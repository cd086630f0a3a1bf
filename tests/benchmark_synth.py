"""A deterministic synthetic archive in the lechmazur/debate benchmark layout.

``write_benchmark(root)`` writes, under ``root``:

- ``transcripts/prop_NNNN__<pro>__<con>__s0|s1__tpl_<debate tpl>.md`` -- ten turns each, with
  claim ids, inline citations of the opponent's claims, pressure questions (``Q1:``) and their
  answers (``A1:``);
- ``reports/debate_matchup_judgments/<template>/matchup-judgment-prop_NNNN-<a>-vs-<b>.md`` --
  one per side-swap group, with the judge table and judge notes for Debate A and Debate B
  (Debate A only for an incomplete group);
- ``reports/debate_leaderboard__<template>.md`` -- the models ordered by their true strengths.

Every judge's verdict is drawn from a Bradley-Terry model of latent strengths, so a fit on the
written judgments should recover the leaderboard's order.  The prose is made-up words: only the
layout is meant to be realistic.  Standard library only; the same arguments always write the same
bytes.

Run as a script: ``python tests/benchmark_synth.py OUTDIR --groups N``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

TURNS = (
    ("PRO", "Opening"),
    ("CON", "Opening"),
    ("PRO", "Rebuttal 1"),
    ("CON", "Rebuttal 1"),
    ("PRO", "Pressure Questions"),
    ("CON", "Pressure Questions"),
    ("PRO", "Rebuttal 2"),
    ("CON", "Rebuttal 2"),
    ("PRO", "Closing"),
    ("CON", "Closing"),
)
QUESTION_TURNS = (4, 5)  # 0-based indices into TURNS
ANSWER_TURNS = (6, 7)

# A group's overall result names a winner only when the mean signed margin is beyond this.
OVERALL_TIE_BAND = 0.45
TIE_PROBABILITY = 0.02
GENERATED_AT = "2026-01-01T00:00:00+00:00"

CLAIM_REF = re.compile(r"\[([PC]\d+\.\d+)\]")

# Made-up vocabulary: pronounceable nonsense plus a few connectives so sentences read as prose.
_SYLLABLES = (
    "ba", "ko", "ri", "tel", "mun", "sa", "vor", "le", "qui", "dan", "pe", "zor", "fi", "lam",
    "tro", "ne", "gul", "ash", "mi", "rod", "ul", "ven", "ska", "po",
)
_CONNECTIVES = (
    "the", "a", "and", "of", "to", "in", "is", "that", "for", "not", "with", "because", "but",
    "which", "more", "than", "every", "their", "this", "can", "should", "would", "only", "when",
)


def _vocabulary() -> tuple[str, ...]:
    rng = random.Random(20260101)
    made_up: set[str] = set()
    while len(made_up) < 360:
        made_up.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((1, 2, 2, 3)))))
    words = sorted(made_up) + list(_CONNECTIVES) * 6
    return tuple(words)


WORDS = _vocabulary()


# --------------------------------------------------------------------------- rendering


def turn_claim_prefix(turn_index: int) -> str:
    side, _ = TURNS[turn_index]
    return f"{side[0]}{turn_index // 2 + 1}"


def _id_list(ids: list[str]) -> str:
    return ", ".join(f"[{i}]" for i in ids) if ids else "(none)"


def render_transcript(
    debate_id: str,
    topic_id: str,
    proposition: str,
    model_pro: str,
    model_con: str,
    side_swap: bool,
    turns: list[list[str]],
) -> str:
    """One transcript. ``turns`` holds ten lists of paragraph texts (without claim markers).

    Claim ids, cited ids (inline references in order of first appearance), references to ids that
    exist nowhere in the debate, and word counts are all derived from the text.
    """
    if len(turns) != len(TURNS):
        raise ValueError(f"a transcript has {len(TURNS)} turns, got {len(turns)}")
    all_ids = {
        f"{turn_claim_prefix(t)}.{i}" for t, paras in enumerate(turns) for i in range(1, len(paras) + 1)
    }
    out = [
        f"# Debate {debate_id}",
        "",
        f"- topic_id: {topic_id}",
        f"- proposition: {proposition}",
        f"- model_pro: {model_pro}",
        f"- model_con: {model_con}",
        f"- side_swap: {side_swap}",
    ]
    for t, paras in enumerate(turns):
        side, phase = TURNS[t]
        prefix = turn_claim_prefix(t)
        ids = [f"{prefix}.{i}" for i in range(1, len(paras) + 1)]
        cited = list(dict.fromkeys(m for p in paras for m in CLAIM_REF.findall(p)))
        missing = [c for c in cited if c not in all_ids]
        words = sum(len(p.split()) for p in paras)
        out += [
            "",
            f"## Turn {t + 1}: {side} {phase}",
            "",
            f"- model: {model_pro if side == 'PRO' else model_con}",
            f"- raw_words: {words}",
            f"- clipped_words: {words}",
            f"- claim_ids: {_id_list(ids)}",
            f"- cited_claim_ids: {_id_list(cited)}",
            f"- missing_claim_id_refs: {_id_list(missing)}",
            "",
        ]
        out += [f"[{cid}] {p}" for cid, p in zip(ids, paras)]
    return "\n".join(out) + "\n"


def _fmt_mean(values: list[float]) -> str:
    m = round(sum(values) / len(values), 2) if values else 0.0
    return f"{m + 0.0:+.2f}" if m else "+0.00"


def _overall(mean: float, disp_a: str, disp_b: str) -> str:
    if mean > OVERALL_TIE_BAND:
        return disp_a
    if mean < -OVERALL_TIE_BAND:
        return disp_b
    return "Tie"


def judged_result(winners: list[str], pro: str, con: str) -> str:
    n_pro, n_con = winners.count(pro), winners.count(con)
    if n_pro == n_con:
        return f"Split `{n_pro}-{n_con}`."
    leader = pro if n_pro > n_con else con
    hi, lo = max(n_pro, n_con), min(n_pro, n_con)
    kind = "Unanimous" if lo == 0 and hi == len(winners) else "Split"
    return f"{kind} `{hi}-{lo}` for **{leader}**."


def render_report(
    *,
    template: str,
    group_id: str,
    topic_id: str,
    motion: str,
    display_a: str,
    display_b: str,
    debates: list[dict],
    complete: bool,
) -> str:
    """One matchup report.

    ``debates``: Debate A first; each a dict with ``debate_id``, ``pro`` and ``con`` (display
    names) and ``rows``: ``(judge, winner or "Tie", raw margin str, normalized str,
    entertainment int, note, decisive rebuttal)``.  Margins are PRO+ signed strings like ``+1.5``.
    """
    judge_tpl = _template_parts(template)[0]
    link = "../../../transcripts/{}.md"
    raw_a: list[float] = []
    norm_a: list[float] = []
    ents: list[int] = []
    for d in debates:
        sign = 1.0 if d["pro"] == display_a else -1.0
        for _, _, raw, norm, ent, _, _ in d["rows"]:
            raw_a.append(sign * float(raw))
            norm_a.append(sign * float(norm))
            ents.append(ent)
    mean_norm = sum(norm_a) / len(norm_a)
    mean_raw = sum(raw_a) / len(raw_a)
    out = [
        "# Debate Matchup Judgment Report",
        "",
        f"- template_id: `{template}`",
        f"- side_swap_group_id: `{group_id}`",
        f"- topic_id: `{topic_id}`",
        f"- matchup: **{display_a}** vs **{display_b}**",
        f"- overall judged result (normalized): **{_overall(round(mean_norm, 2), display_a, display_b)}**",
        f"- overall judged result (raw): **{_overall(round(mean_raw, 2), display_a, display_b)}**",
        f"- mean entertainment: `{sum(ents) / len(ents):.2f} / 10`",
        f"- mean signed normalized margin for `{display_a}`: `{_fmt_mean(norm_a)}`",
        f"- judgment rows: `{len(ents)}`",
        f"- swap_complete: `{int(complete)}`",
        f"- rating_eligible: `{int(complete)}`",
        "",
        f"**Motion:** {motion}",
        "",
        "## Source Links",
        "",
    ]
    for label, d in zip("AB", debates):
        out.append(
            f"- [Debate {label} transcript]({link.format(d['debate_id'])}): "
            f"PRO = **{d['pro']}**, CON = **{d['con']}**"
        )
    out += [
        f"- [Rolling judgment CSV](../../../judgments/judge_results__{judge_tpl}.csv)",
        f"  Search for `side_swap_group_id={group_id}` or topic `{topic_id}`.",
    ]
    for label, d in zip("AB", debates):
        rows = d["rows"]
        out += [
            "",
            f"## Debate {label}",
            "",
            f"- debate_id: `{d['debate_id']}`",
            f"- transcript: [read transcript]({link.format(d['debate_id'])})",
            f"- roles: PRO = **{d['pro']}**, CON = **{d['con']}**",
            f"- judged result: {judged_result([r[1] for r in rows], d['pro'], d['con'])}",
            "- entertainment scores: " + ", ".join(f"`{r[4]}`" for r in rows),
            f"- mean signed raw margin (PRO+): `{_fmt_mean([float(r[2]) for r in rows])}`",
            "",
            "| Judge | Winner | Signed Margin (PRO+) | Normalized | Entertainment |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        out += [f"| {j} | {w} | {raw} | {norm} | {ent:.1f} |" for j, w, raw, norm, ent, _, _ in rows]
        out += ["", "### Judge Notes", ""]
        for j, _, _, _, _, note, decisive in rows:
            out += [f"- **{j}**: {note}", f"  Most decisive rebuttal noted: {decisive}"]
    return "\n".join(out) + "\n"


def render_leaderboard(template: str, rows: list[tuple]) -> str:
    """``rows``: (display, bt, glicko, rd, avail, adj_bt, pair_groups, topics, opponents), best first."""
    out = [
        "# Debate Leaderboard",
        "",
        f"- template_id: `{template}`",
        f"- generated_at: `{GENERATED_AT}`",
        "- Models are ranked by the Bradley-Terry column.",
        "- Glicko-2 and RD are shown for comparison only.",
        "",
        "| Rank | Model | BT | Glicko-2 | RD | Avail | Adj BT | Pair Groups | Topics | Opponents |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for rank, (disp, bt, gl, rd, avail, adj, pg, topics, opp) in enumerate(rows, 1):
        out.append(
            f"| {rank} | {disp} | {bt:.1f} | {gl:.1f} | {rd:.1f} | {avail:.1f} | {adj:.1f} "
            f"| {pg} | {topics} | {opp} |"
        )
    return "\n".join(out) + "\n"


def _template_parts(template: str) -> tuple[str, str]:
    """``judge_X__debate_Y`` -> (``X``, ``Y``); transcripts carry ``tpl_Y``."""
    m = re.fullmatch(r"judge_(.+?)__debate_(.+)", template)
    if m:
        return m.group(1), m.group(2)
    return template, template


# --------------------------------------------------------------------------- synthetic text


class _Prose:
    """Sentences drawn from a per-archive pool of made-up sentences (fast for large archives)."""

    POOL = 6000

    def __init__(self, rng: random.Random):
        self.rng = rng
        pool = []
        for _ in range(self.POOL):
            w = rng.choices(WORDS, k=rng.randint(8, 16))
            w[0] = w[0].capitalize()
            pool.append(w)
        self.pool = pool
        self.pool_text = [" ".join(w) for w in pool]

    def sentence(self, n: int, end: str = ".") -> str:
        w = self.rng.choices(WORDS, k=max(1, n))
        w[0] = w[0].capitalize()
        return " ".join(w) + end

    def paragraph(self, n: int, end: str = ".") -> str:
        """Exactly ``max(1, n)`` words in whole pool sentences plus one cut to fit; ends with ``end``."""
        left = max(1, n)
        idx = self.rng.choices(range(self.POOL), k=left // 8 + 1)
        parts = []
        for i in idx:
            w = self.pool[i]
            if left <= len(w) + 3:  # last sentence: cut to fit, never a stub of 1-3 words
                if left > len(w):
                    w = w + self.pool[i - 1][1:]
                parts.append(" ".join(w[:left]) + end)
                break
            parts.append(self.pool_text[i] + ".")
            left -= len(w)
        return " ".join(parts)


def _debate_turns(
    prose: _Prose, rng: random.Random, paragraphs: int, words: int
) -> list[list[str]]:
    """Ten turns of synthetic paragraphs with citations, questions and answers.

    The last claim of each side's opening is never cited by the other side.
    """
    n_q = min(3, paragraphs)
    turns: list[list[str]] = []
    for t in range(len(TURNS)):
        side = TURNS[t][0]
        opp = "C" if side == "PRO" else "P"
        # Opponent claims made so far, except the protected last opening claim.
        citable = []
        for u in range(t):
            if TURNS[u][0] == side:
                continue
            ids = [f"{turn_claim_prefix(u)}.{i}" for i in range(1, len(turns[u]) + 1)]
            if u < 2:
                ids = ids[:-1]
            citable += ids
        n_cite = min(len(citable), rng.randint(1, 3)) if t >= 2 and citable else 0
        cites = rng.sample(citable, n_cite) if n_cite else []
        paras = []
        for i in range(paragraphs):
            n = max(4, words + rng.randint(-words // 5, words // 5))
            label = ""
            if t in QUESTION_TURNS and i < n_q:
                label = f"Q{i + 1}: "
            elif t in ANSWER_TURNS and i < n_q:
                label = f"A{i + 1}: "
            cite = ""
            if i < len(cites):
                assert cites[i][0] == opp
                cite = f"On [{cites[i]}], "
            body = prose.paragraph(n - bool(label) - 2 * bool(cite), "?" if label.startswith("Q") else ".")
            if cite:
                body = body[0].lower() + body[1:]
            paras.append(label + cite + body)
        turns.append(paras)
    return turns


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


# --------------------------------------------------------------------------- archive


def write_benchmark(
    root: Path,
    *,
    models: int = 30,
    groups: int = 750,
    judges: int = 3,
    paragraphs: int = 6,
    words: int = 45,
    seed: int = 0,
    incomplete: int = 0,
    pro_bias: float = 0.0,
    template: str = "judge_synth__debate_synth",
) -> dict:
    """Write a synthetic benchmark checkout under ``root``; see the module docstring.

    ``groups`` counts every side-swap group, ``incomplete`` of them (chosen at random) having only
    the s0 debate.  ``judgments`` in the result counts judge rows (one per judge per debate).
    """
    if models < 2:
        raise ValueError("need at least two models")
    if not 0 <= incomplete <= groups:
        raise ValueError("incomplete must be between 0 and groups")
    root = Path(root)
    rng = random.Random(seed)
    prose = _Prose(rng)
    _, debate_tpl = _template_parts(template)
    tpl = f"tpl_{debate_tpl}"

    width = max(2, len(str(models)))
    slugs = [f"model-{i:0{width}d}" for i in range(1, models + 1)]
    display = {s: f"Model {s.split('-')[1]} (synthetic)" for s in slugs}
    strengths = {s: rng.gauss(0.0, 1.0) for s in slugs}
    judge_names = [f"Judge {i}" for i in range(1, judges + 1)]
    incomplete_set = set(rng.sample(range(groups), incomplete))

    tdir = root / "transcripts"
    rdir = root / "reports" / "debate_matchup_judgments" / template
    tdir.mkdir(parents=True, exist_ok=True)
    rdir.mkdir(parents=True, exist_ok=True)

    # Two groups share a topic (as in the real archive) unless there is only one pair.
    per_topic = 2 if models > 2 else 1
    n_transcripts = n_rows = 0
    pair_groups: Counter = Counter()
    topics_of: dict[str, set] = {s: set() for s in slugs}
    opponents_of: dict[str, set] = {s: set() for s in slugs}
    last_pair: tuple[str, str] | None = None
    for g in range(groups):
        topic_id = f"prop_{g // per_topic + 1:04d}"
        while True:
            a, b = sorted(rng.sample(slugs, 2))
            if g % per_topic == 0 or (a, b) != last_pair:
                break
        last_pair = (a, b)
        motion = prose.sentence(rng.randint(10, 18))
        complete = g not in incomplete_set
        # As in the real archive, Debate A (s0) usually has the first slug as PRO.
        first_pro = (a, b) if rng.random() < 0.95 else (b, a)
        orders = [first_pro, first_pro[::-1]][: 2 if complete else 1]
        group_id = f"{topic_id}__{a}__{b}__{tpl}"
        debates = []
        for k, (pro, con) in enumerate(orders):
            debate_id = f"{topic_id}__{pro}__{con}__s{k}__{tpl}"
            turns = _debate_turns(prose, rng, paragraphs, words)
            text = render_transcript(debate_id, topic_id, motion, pro, con, k == 1, turns)
            (tdir / f"{debate_id}.md").write_text(text, encoding="utf-8")
            n_transcripts += 1
            p_pro = _sigmoid(strengths[pro] - strengths[con] + pro_bias)
            rows = []
            for j in judge_names:
                if rng.random() < TIE_PROBABILITY:
                    winner, margin = "Tie", 0.0
                else:
                    pro_wins = rng.random() < p_pro
                    mag = round(rng.uniform(0.5, 3.0), 1)
                    winner = display[pro] if pro_wins else display[con]
                    margin = mag if pro_wins else -mag
                side = "PRO" if margin > 0 else "CON" if margin < 0 else "Neither side"
                rows.append(
                    (
                        j,
                        winner,
                        f"{margin:+.1f}",
                        f"{margin / 2:+.2f}",
                        rng.randint(4, 9),
                        f"{side} {'won' if margin else 'pulled ahead'}: " + prose.sentence(rng.randint(12, 24)),
                        prose.sentence(rng.randint(8, 16)),
                    )
                )
            n_rows += len(rows)
            debates.append(
                {"debate_id": debate_id, "pro": display[pro], "con": display[con], "rows": rows}
            )
        report = render_report(
            template=template,
            group_id=group_id,
            topic_id=topic_id,
            motion=motion,
            display_a=display[a],
            display_b=display[b],
            debates=debates,
            complete=complete,
        )
        (rdir / f"matchup-judgment-{topic_id}-{a}-vs-{b}.md").write_text(report, encoding="utf-8")
        if complete:
            for x, y in ((a, b), (b, a)):
                pair_groups[x] += 1
                topics_of[x].add(topic_id)
                opponents_of[x].add(y)

    scale = 400.0 / math.log(10.0)
    board = []
    for s in sorted(slugs, key=lambda s: (-strengths[s], s)):
        bt = 1500.0 + scale * strengths[s]
        pg = pair_groups[s]
        board.append(
            (
                display[s],
                bt,
                1500.0 + 0.8 * (bt - 1500.0),
                50.0 + 350.0 / math.sqrt(pg + 1),
                100.0,
                bt,
                pg,
                len(topics_of[s]),
                len(opponents_of[s]),
            )
        )
    (root / "reports" / f"debate_leaderboard__{template}.md").write_text(
        render_leaderboard(template, board), encoding="utf-8"
    )
    return {
        "strengths": strengths,
        "display": display,
        "transcripts": n_transcripts,
        "judgments": n_rows,
        "groups": groups,
        "template": template,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write a synthetic lechmazur/debate-style archive.")
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--models", type=int, default=30)
    ap.add_argument("--groups", type=int, default=750)
    ap.add_argument("--judges", type=int, default=3)
    ap.add_argument("--paragraphs", type=int, default=6)
    ap.add_argument("--words", type=int, default=45)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--incomplete", type=int, default=0)
    ap.add_argument("--pro-bias", type=float, default=0.0)
    ap.add_argument("--template", default="judge_synth__debate_synth")
    args = ap.parse_args(argv)
    info = write_benchmark(
        args.outdir,
        models=args.models,
        groups=args.groups,
        judges=args.judges,
        paragraphs=args.paragraphs,
        words=args.words,
        seed=args.seed,
        incomplete=args.incomplete,
        pro_bias=args.pro_bias,
        template=args.template,
    )
    summary = {k: v for k, v in info.items() if k not in ("strengths", "display")}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
