"""The debate log (``debate-log.md``) of a topic-debate artifact folder: a header with the topic
and the anonymous stance mapping, ``## 第 N 轮：…`` rounds with one ``### 辩手X`` section per
debater, argument tables, rebuttal bullets, ``no_new_points`` flags, round observations, the stop line."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from debate_core.engines.envelopes import FLAG_LINE, without_flag_lines
from debate_core.io.importers.common import ID_MARK, ImportFormatError, is_separator, split_row, unbold
from debate_core.models import RoundSummary, Speech

ORCHESTRATOR = "编排器"
_ROUND_RE = re.compile(r"^##\s*第\s*(\S+?)\s*轮\s*[：:]\s*(.*)$")
LABEL_RE = re.compile(r"辩手[甲乙丙丁戊己庚辛]")
_FIELD_RE = re.compile(r"^[-*]\s*\*\*(.+?)\*\*\s*([（(][^）)]*[)）])?\s*[：:]\s*(.*)$")
_STANCE_RE = re.compile(r"^\s+[-*]\s*(\S+?)\s*(?:→|->|=>|：|:)\s*(.+?)\s*$")
_BULLET_RE = re.compile(r"^[-*]\s+(.*)$")
_SUB_RE = re.compile(r"^\s{2,}[-*]\s+(.*)$")
_NNP_RE = FLAG_LINE
_OBS_RE = re.compile(r"^\*\*第\s*(\d+)\s*轮观察\*\*\s*[：:]\s*(.*)$")
_STOP_RE = re.compile(r"^\*\*停机\*\*\s*[：:]\s*(.*)$")
_ARG_COLS = {
    "id": "id",
    "编号": "id",
    "论点": "point",
    "point": "point",
    "论证要点": "reasoning",
    "论证": "reasoning",
    "reasoning": "reasoning",
    "论据": "evidence",
    "evidence": "evidence",
}
_REBUT_TYPES = (("反驳", "反驳"), ("驳", "反驳"), ("质疑", "质疑"), ("让步", "让步"))
_CN_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def _strip_quotes(s: str) -> str:
    s = s.strip()
    for a, b in (("「", "」"), ("“", "”"), ('"', '"'), ("『", "』"), ("《", "》")):
        if s.startswith(a) and s.endswith(b) and len(s) >= 2:
            return s[len(a) : -len(b)].strip()
    return s


def _warning(line: str) -> str:
    """A run warning as stored: the renderers add the "⚠️" marker themselves."""
    return re.sub(r"^(?:⚠️\s*)+", "", line.lstrip("> ").strip())


def _role_for(title: str, round_no: int) -> str:
    t = re.sub(r"[（(].*$", "", title).strip()
    if "立论" in t and "结" not in t:
        return "立论"
    if "结辩" in t or "总结" in t:
        return "结辩"
    if "反驳" in t or "交叉" in t:
        return "反驳"
    if t:
        return t.rstrip("轮").strip() or ("立论" if round_no == 1 else "反驳")
    return "立论" if round_no == 1 else "反驳"


def _rebuttal_from(label: str, content: str) -> dict | None:
    for prefix, kind in _REBUT_TYPES:
        if label.startswith(prefix):
            rest = label[len(prefix) :].strip()
            m = re.match(r"^(?:辩手)?([甲乙丙丁戊己庚辛])(?:\s*([A-Z]\d+))?", rest)
            if m and (m.group(2) or rest.startswith("辩手")):
                target = f"辩手{m.group(1)}" + (f" {m.group(2)}" if m.group(2) else "")
                note = rest[m.end() :].strip()
            else:
                target, note = "", rest
            body = f"{note} {content}".strip() if note else content
            return {"target": target, "type": kind, "content": body}
    return None


class TopicLogParser:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()
        self.topic = ""
        self.title = ""
        self.stances: dict[str, str] = {}
        self.mode = ""
        self.created: datetime | None = None
        self.warnings: list[str] = []
        self.rounds: list[Speech] = []
        self.summaries: list[RoundSummary] = []
        self.stop = ""
        self.round_titles: dict[int, str] = {}
        self.id: str | None = None

    def err(self, i: int, msg: str) -> ImportFormatError:
        return ImportFormatError(self.path, i + 1, msg)

    def parse(self) -> None:
        lines = self.lines
        i = 0
        in_mapping = False
        mapping_line = None
        while i < len(lines) and not lines[i].startswith("## "):
            line = lines[i]
            m_id = ID_MARK.search(line)
            if m_id:
                self.id = m_id.group(1)
            if line.startswith("# "):
                self.title = re.sub(r"^#\s*(辩论日志\s*[：:])?", "", line).strip()
            m = _FIELD_RE.match(line)
            if m:
                key, value = unbold(m.group(1)), m.group(3).strip()
                in_mapping = False
                if key.startswith("辩题") or key.lower() == "topic":
                    self.topic = unbold(value)
                elif key.startswith("立场映射") or key.startswith("立场"):
                    in_mapping, mapping_line = True, i
                elif key.startswith("模式"):
                    self.mode = value
                elif key.startswith("生成时间"):
                    bits = [b.strip() for b in value.split("·")]
                    for b in bits[1:]:
                        if b.startswith("辩论") and b[2:].strip():
                            self.id = self.id or b[2:].strip()
                    try:
                        self.created = datetime.fromisoformat(bits[0].replace("Z", "+00:00"))
                        if self.created.tzinfo is None:
                            self.created = self.created.replace(tzinfo=UTC)
                    except ValueError:
                        pass
            elif line.startswith(">") and line.lstrip("> ").startswith(("⚠️", "WARNING")):
                in_mapping = False
                self.warnings.append(_warning(line))
            elif in_mapping and line.strip():
                sm = _STANCE_RE.match(line)
                if not sm:
                    if line.startswith((" ", "\t")):
                        raise self.err(i, "a stance line must read '  - 辩手X → 「立场」'")
                    in_mapping = False
                else:
                    label = sm.group(1)
                    if not LABEL_RE.fullmatch(label):
                        raise self.err(i, f"stance mapping names {label!r}, not a neutral label such as 辩手甲")
                    self.stances[label] = _strip_quotes(sm.group(2))
            i += 1
        if not self.topic:
            raise self.err(0, "no '- **辩题**：…' line before the first round")
        if len(self.stances) < 2:
            raise self.err(
                mapping_line or 0,
                f"the stance mapping names {len(self.stances)} debater(s); "
                "need at least two '  - 辩手X → 「立场」' lines",
            )
        if "降级" in self.mode:
            self.warnings.append(f"模式：{self.mode}")
        if i >= len(lines):
            raise self.err(len(lines) - 1, "no '## 第 N 轮：…' round in the log")
        self._rounds(i)

    def _round_no(self, i: int, raw: str) -> int:
        if raw.isdigit():
            return int(raw)
        if raw in _CN_NUM:
            return _CN_NUM[raw]
        raise self.err(i, f"round number {raw!r} is not a number")

    def _rounds(self, i: int) -> None:
        lines = self.lines
        current = 0
        speaker: str | None = None
        body_start = 0
        seen: set[tuple[int, str]] = set()

        def close(end: int) -> None:
            nonlocal speaker
            if speaker is not None:
                self._speech(current, speaker, body_start, end)
                speaker = None

        while i < len(lines):
            line = lines[i]
            m_id = ID_MARK.search(line)
            if m_id:
                self.id = m_id.group(1)
            if line.startswith("## "):
                close(i)
                m = _ROUND_RE.match(line)
                if not m:
                    raise self.err(i, "unexpected section heading; expected '## 第 N 轮：…'")
                n = self._round_no(i, m.group(1))
                if n != current + 1:
                    raise self.err(i, f"round {n} follows round {current}; rounds must count up from 1")
                current = n
                self.round_titles[n] = m.group(2).strip()
            elif line.startswith("### "):
                close(i)
                lm = LABEL_RE.search(line)
                if not lm or lm.group(0) not in self.stances:
                    raise self.err(
                        i, f"debater section names no debater of the stance mapping ({', '.join(self.stances)})"
                    )
                speaker = lm.group(0)
                if (current, speaker) in seen:
                    raise self.err(i, f"{speaker} speaks twice in round {current}")
                seen.add((current, speaker))
                body_start = i + 1
            else:
                om = _OBS_RE.match(line.strip())
                sm = _STOP_RE.match(line.strip())
                if om or sm:
                    close(i)
                    if om:
                        self.summaries.append(
                            RoundSummary(round=int(om.group(1)), speaker=ORCHESTRATOR, text=om.group(2).strip())
                        )
                    elif sm is not None:
                        self.stop = sm.group(1).strip()
                elif line.startswith(">") and speaker is None:
                    note = line.lstrip(">").strip()
                    if note.startswith("⚠️") or note.upper().startswith("WARNING"):
                        self.warnings.append(_warning(note))
                elif line.strip().upper().startswith("WARNING:"):
                    self.warnings.append(line.strip())
            i += 1
        close(len(lines))
        if not self.rounds:
            raise self.err(len(lines) - 1, "the log holds no debater section ('### 辩手X …')")

    def _speech(self, round_no: int, speaker: str, start: int, end: int) -> None:
        lines = self.lines
        # the body stops at a separator line or a blank run before the next block
        body_lines = lines[start:end]
        while body_lines and body_lines[-1].strip() in ("", "---"):
            body_lines.pop()
        # the speech's text without the envelope's raw fields (``no_new_points: true``): they are data (the envelope
        # keeps the flag), not words of the debater; a blank line they leave behind at the end goes too
        text = without_flag_lines("\n".join(body_lines))
        arguments: list[dict] = []
        rebuttals: list[dict] = []
        flag: bool | None = None
        notes: list[str] = []
        header: list[str] | None = None
        parent: str | None = None
        for k, line in enumerate(body_lines):
            i = start + k
            stripped = line.strip()
            if not stripped:
                header = None
                continue
            if stripped.startswith("|"):
                cells = split_row(stripped)
                if header is None:
                    header = [_ARG_COLS.get(unbold(c).lower(), _ARG_COLS.get(unbold(c), unbold(c))) for c in cells]
                    if "point" not in header:
                        raise self.err(i, "argument table has no '论点' column")
                    continue
                if is_separator(stripped):
                    continue
                if len(cells) != len(header):
                    raise self.err(i, f"table row has {len(cells)} cells; the header has {len(header)}")
                row = {h: unbold(c) for h, c in zip(header, cells, strict=True)}
                arguments.append(
                    {
                        "id": row.get("id", f"A{len(arguments) + 1}"),
                        "point": row.get("point", ""),
                        "reasoning": row.get("reasoning", ""),
                        "evidence": row.get("evidence", ""),
                    }
                )
                continue
            header = None
            if stripped.startswith(">"):
                note = stripped.lstrip("> ").strip()
                if note.startswith(("注：", "注:")):
                    notes.append(note[2:].strip())
                elif note.upper().startswith("WARNING"):
                    notes.append(note)
                continue
            nm = _NNP_RE.match(stripped)
            if nm:
                flag = nm.group(1).lower() == "true"
                continue
            sub = _SUB_RE.match(line)
            if sub and parent is not None:
                item = sub.group(1).strip()
                if parent.startswith("新论点") or parent.startswith("新增论点"):
                    im = re.match(r"^\**([A-Z]\d+)\**\s*[：:、.]?\s*(.*)$", item)
                    aid, point = (im.group(1), im.group(2)) if im else (f"N{len(arguments) + 1}", item)
                    arguments.append({"id": aid, "point": unbold(point), "reasoning": "", "evidence": ""})
                continue
            fm = _FIELD_RE.match(stripped)
            if fm:
                label = unbold(fm.group(1)) + (fm.group(2) or "")
                content = fm.group(3).strip()
                parent = label
                if label.startswith("新论点") or label.startswith("新增论点"):
                    if content:
                        arguments.append(
                            {"id": f"N{len(arguments) + 1}", "point": unbold(content), "reasoning": "", "evidence": ""}
                        )
                    continue
                rebut = _rebuttal_from(label, unbold(content))
                if rebut is not None:
                    rebuttals.append(rebut)
                else:
                    arguments.append({"id": label, "point": unbold(content), "reasoning": "", "evidence": ""})
                continue
            bm = _BULLET_RE.match(stripped)
            if bm and not line.startswith((" ", "\t")):
                parent = None
        if not text:
            raise self.err(start - 1, f"{speaker} has an empty section in round {round_no}")
        envelope: dict[str, Any] = {
            "stance": self.stances.get(speaker, ""),
            "arguments": arguments,
            "rebuttals": rebuttals,
        }
        if flag is not None:  # only where the log states it
            envelope["no_new_points"] = flag
        self.rounds.append(
            Speech(
                round=round_no,
                speaker=speaker,
                speaker_name=speaker,
                role=_role_for(self.round_titles.get(round_no, ""), round_no),
                text=text,
                envelope=envelope,
                warnings=notes,
            )
        )
