"""An imported benchmark debate as Markdown: the motion, the sides, each turn with its phase,
model and claims, then the judge panel (one row per judge, signed margins with PRO positive)."""

from __future__ import annotations

from debate_core.models import Debate

PHASE_TITLES = {
    "opening": "Opening",
    "rebuttal": "Rebuttal",
    "pressure_questions": "Pressure questions",
    "answers": "Answers",
    "closing": "Closing",
}


def _num(value, fmt: str = "{:+.2f}") -> str:
    return "" if value is None else fmt.format(value)


def render_benchmark(debate: Debate) -> str:
    side = {p.label: p for p in debate.participants}
    pro, con = side.get("pro"), side.get("con")
    out = [f"# {debate.topic}", ""]
    out.append(f"- PRO: **{pro.name if pro else '?'}** (`{pro.model if pro else ''}`)")
    out.append(f"- CON: **{con.name if con else '?'}** (`{con.model if con else ''}`)")
    if debate.group:
        out.append(f"- side-swap group: `{debate.group}`")
    out.append(f"- source: `{debate.source}`")
    out.append("")
    for s in debate.rounds:
        env = s.envelope or {}
        heading = env.get("heading") or f"{s.speaker.upper()} {PHASE_TITLES.get(s.role, s.role)}"
        out.append(f"## {heading} ({PHASE_TITLES.get(s.role, s.role).lower()}, round {s.round})")
        out.append("")
        out.append(f"*{s.speaker_name}*" + (f" · {env['clipped_words']} words" if env.get("clipped_words") else ""))
        if env.get("cited"):
            out.append(f"answers: {', '.join(env['cited'])}")
        out.append("")
        out.append(s.text)
        out.append("")
    if debate.judgments:
        out.append("## Judges")
        out.append("")
        if debate.verdict is not None and debate.verdict.summary:
            out.append(debate.verdict.summary)
            out.append("")
        out.append("| Judge | Winner | Signed margin (PRO+) | Normalized | Entertainment |")
        out.append("| --- | --- | ---: | ---: | ---: |")
        for j in debate.judgments:
            out.append(
                f"| {j.judge} | {j.winner_name or j.winner} | {_num(j.margin, '{:+.1f}')} | "
                f"{_num(j.normalized)} | {_num(j.entertainment, '{:.1f}')} |"
            )
        notes = [j for j in debate.judgments if j.notes or j.decisive]
        if notes:
            out.append("")
            for j in notes:
                out.append(f"- **{j.judge}**: {j.notes}")
                if j.decisive:
                    out.append(f"  Most decisive rebuttal: {j.decisive}")
    return "\n".join(out).rstrip() + "\n"
