"""The verdict (``verdict.md``) of a topic-debate artifact folder: the winner, the judgement,
the per-debater table and a note to readers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from debate_core.io.importers.common import ImportFormatError, is_separator, parse_float, split_row, unbold
from debate_core.io.importers.topic_log import LABEL_RE
from debate_core.models import RoundComment, Verdict, VerdictRow


def _verdict_sections(lines: list[str]) -> list[tuple[int, str, list[str]]]:
    out: list[tuple[int, str, list[str]]] = []
    for i, line in enumerate(lines):
        if line.startswith("## "):
            out.append((i, line[3:].strip(), []))
        elif out:
            out[-1][2].append(line)
    return out


def parse_verdict(path: Path, text: str, labels: Iterable[str]) -> Verdict:
    lines = text.splitlines()
    labels = list(labels)
    sections = _verdict_sections(lines)
    if not sections:
        raise ImportFormatError(path, 1, "no '## …' section: expected 判赢结论, 判词 and 逐方点评表")
    v = Verdict(raw=text.strip())
    judge = [ln.lstrip(">").strip() for ln in lines[: sections[0][0]] if ln.startswith(">")]
    reasons_body = ""
    have_conclusion = False
    for start, title, body in sections:
        name = re.sub(r"^[一二三四五六七八九十]+[、.]\s*", "", title)
        joined = "\n".join(body).strip()
        if "判赢" in name or "结论" in name:
            have_conclusion = True
            v.summary = joined
            found = [m.group(0) for m in LABEL_RE.finditer(joined) if m.group(0) in labels]
            if found:
                v.winner = found[0]
            elif re.search(r"平局|draw", joined, re.I):
                v.winner = "draw"
        elif "逐轮" in name:  # before the table: 逐轮点评 is the per-round commentary, 逐方点评表 the table
            for _k, line in enumerate(body):
                m = re.match(r"^[-*]\s*第\s*(\d+)\s*轮\s*[：:]\s*(.*)$", line.strip())
                if m:
                    v.per_round.append(RoundComment(round=int(m.group(1)), comment=m.group(2).strip()))
        elif "点评" in name or "表" in name:
            v.rows = _verdict_rows(path, start, body)
        elif "判词" in name or "理由" in name:
            reasons_body = joined
        elif "读者" in name or "寄语" in name:
            v.note = joined
    if not have_conclusion:
        raise ImportFormatError(path, sections[0][0] + 1, "no '## …判赢结论' section naming the winner")
    if v.winner is None:
        v.parsed = False
    if reasons_body:
        v.reasons = _reasons(reasons_body)
    v.judge = judge[0] if judge else ""
    return v


def _reasons(body: str) -> dict[str, str]:
    """``**论点强度**：…`` paragraphs become one entry each; anything else is kept whole."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", body) if p.strip()]
    out: dict[str, str] = {}
    for p in paras:
        m = re.match(r"^\*\*([^*：:\n]{1,12})\*\*\s*[：:]\s*(.*)$", p, re.S)
        if not m or m.group(1) in out:
            return {"判词": body}
        out[m.group(1)] = m.group(2).strip()
    return out or {"判词": body}


def _verdict_rows(path: Path, start: int, body: list[str]) -> list[VerdictRow]:
    rows: list[VerdictRow] = []
    header: list[str] | None = None
    for k, line in enumerate(body):
        i = start + 1 + k
        s = line.strip()
        if not s.startswith("|"):
            continue
        cells = split_row(s)
        if header is None:
            header = [unbold(c) for c in cells]
            continue
        if is_separator(s):
            continue
        if len(cells) != len(header):
            raise ImportFormatError(path, i + 1, f"table row has {len(cells)} cells; the header has {len(header)}")
        cell = dict(zip(header, cells, strict=True))

        def pick(*names: str, header: list[str] = header, cell: dict[str, str] = cell) -> str:
            for n in names:
                for h in header:
                    if n in h:
                        return cell[h]
            return ""

        label = unbold(pick("辩手", "标签", "label"))
        if not label:
            raise ImportFormatError(path, i + 1, "table row names no debater")
        raw_score = pick("评分", "得分", "score")
        try:
            score = parse_float(raw_score)
        except ValueError:
            raise ImportFormatError(path, i + 1, f"score {raw_score!r} is not a number") from None
        rows.append(
            VerdictRow(
                label=label,
                stance=unbold(pick("立场", "stance")),
                strongest=unbold(pick("最强", "strongest")),
                weakness=unbold(pick("弱点", "weakness")),
                score=score,
            )
        )
    if header is None:
        raise ImportFormatError(path, start + 1, "the section holds no '| 辩手 | 立场 | … | 评分 |' table")
    return rows
