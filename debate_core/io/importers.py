"""Importers: outside debate records into the archive.

Three formats:

* a topic-debate artifact folder ``<slug>.debate/`` holding ``debate-log.md`` and
  ``verdict.md`` (the topic-debate seed's layout: a header with the topic and the
  anonymous stance mapping, ``## 第 N 轮：…`` rounds with one ``### 辩手X`` section
  per debater, argument tables, rebuttal bullets, ``no_new_points`` flags, round
  observations, the stop line; a verdict with the winner, the judgement, the
  per-debater table and a note to readers);
* master-debate Markdown in the master-debate seed's output framework
  (``## 议题：…``, ``### R1｜<name> 立论`` …, ``### 教内余争 — 中立观察``);
* this workbench's own JSON export (one debate object, a list of them, or
  ``{"debates": [...]}``).

Everything is parsed before anything is written, and all debates of one call are
written in one transaction: a malformed file raises :class:`ImportFormatError`
naming the file and line and leaves the archive as it was.  Ids are stable (the
JSON's own id; the id in a workbench-written file; else a hash of the content),
so importing the same thing twice does not duplicate it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Optional

from pydantic import ValidationError

from debate_core.models import (Debate, DebateConfig, Finding, Observation, Participant, RoundComment, RoundSummary, Speech,
                     Verdict, VerdictRow)
from debate_core.render.master import rule_from_label, status_from_zh

ORCHESTRATOR = "编排器"
ID_MARK = re.compile(r"<!--\s*debate-workbench\s+id=([A-Za-z0-9_\-]+)[^>]*-->")


class ImportFormatError(ValueError):
    """A file cannot be imported; names the file and (when known) the line."""

    def __init__(self, file: str | Path, line: Optional[int], message: str):
        self.file = str(file)
        self.line = line
        self.reason = message
        where = f"{self.file}, line {line}" if line else self.file
        super().__init__(f"{where}: {message}")


@dataclass
class ImportResult:
    path: str
    kind: str  # topic-debate / master-md / json
    id: str
    topic: str
    status: str  # imported / exists

    def as_dict(self) -> dict:
        return asdict(self)


# ------------------------------------------------------------------- helpers


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportFormatError(path, None, f"cannot read: {exc.strerror}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ImportFormatError(path, line, f"not UTF-8 text ({exc.reason})") from None


def _content_id(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.replace("\r\n", "\n").strip().encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()[:12]


def _mtime(path: Path) -> datetime:
    try:
        return datetime.fromtimestamp(int(path.stat().st_mtime), tz=timezone.utc)
    except OSError:
        return datetime.now(timezone.utc).replace(microsecond=0)


def _split_row(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", body)]


def _is_sep(line: str) -> bool:
    return bool(re.fullmatch(r"\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*", line))


def _unbold(text: str) -> str:
    return text.replace("**", "").strip()


def _parse_float(text: str) -> Optional[float]:
    t = _unbold(text).rstrip("分").strip()
    if t in ("", "-", "—", "n/a", "N/A"):
        return None
    m = re.fullmatch(r"(-?\d+(?:\.\d+)?)(?:\s*/\s*\d+(?:\.\d+)?)?", t)
    if not m:
        raise ValueError(t)
    return float(m.group(1))


# ------------------------------------------------------ topic-debate folders

_ROUND_RE = re.compile(r"^##\s*第\s*(\S+?)\s*轮\s*[：:]\s*(.*)$")
_LABEL_RE = re.compile(r"辩手[甲乙丙丁戊己庚辛]")
_FIELD_RE = re.compile(r"^[-*]\s*\*\*(.+?)\*\*\s*([（(][^）)]*[)）])?\s*[：:]\s*(.*)$")
_STANCE_RE = re.compile(r"^\s+[-*]\s*(\S+?)\s*(?:→|->|=>|：|:)\s*(.+?)\s*$")
_BULLET_RE = re.compile(r"^[-*]\s+(.*)$")
_SUB_RE = re.compile(r"^\s{2,}[-*]\s+(.*)$")
_NNP_RE = re.compile(r"^(?:[-*]\s*)?`?\s*no_new_points\s*[:：=]\s*(true|false)\s*`?\s*$", re.I)
_OBS_RE = re.compile(r"^\*\*第\s*(\d+)\s*轮观察\*\*\s*[：:]\s*(.*)$")
_STOP_RE = re.compile(r"^\*\*停机\*\*\s*[：:]\s*(.*)$")
_ARG_COLS = {"id": "id", "编号": "id", "论点": "point", "point": "point", "论证要点": "reasoning", "论证": "reasoning",
             "reasoning": "reasoning", "论据": "evidence", "evidence": "evidence"}
_REBUT_TYPES = (("反驳", "反驳"), ("驳", "反驳"), ("质疑", "质疑"), ("让步", "让步"))
_CN_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def _strip_quotes(s: str) -> str:
    s = s.strip()
    for a, b in (("「", "」"), ("“", "”"), ('"', '"'), ("『", "』"), ("《", "》")):
        if s.startswith(a) and s.endswith(b) and len(s) >= 2:
            return s[len(a):-len(b)].strip()
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


def _rebuttal_from(label: str, content: str) -> Optional[dict]:
    for prefix, kind in _REBUT_TYPES:
        if label.startswith(prefix):
            rest = label[len(prefix):].strip()
            m = re.match(r"^(?:辩手)?([甲乙丙丁戊己庚辛])(?:\s*([A-Z]\d+))?", rest)
            if m and (m.group(2) or rest.startswith("辩手")):
                target = f"辩手{m.group(1)}" + (f" {m.group(2)}" if m.group(2) else "")
                note = rest[m.end():].strip()
            else:
                target, note = "", rest
            body = f"{note} {content}".strip() if note else content
            return {"target": target, "type": kind, "content": body}
    return None


class _TopicLogParser:
    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()
        self.topic = ""
        self.title = ""
        self.stances: dict[str, str] = {}
        self.mode = ""
        self.created: Optional[datetime] = None
        self.warnings: list[str] = []
        self.rounds: list[Speech] = []
        self.summaries: list[RoundSummary] = []
        self.stop = ""
        self.round_titles: dict[int, str] = {}
        self.id = None

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
                key, value = _unbold(m.group(1)), m.group(3).strip()
                in_mapping = False
                if key.startswith("辩题") or key.lower() == "topic":
                    self.topic = _unbold(value)
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
                            self.created = self.created.replace(tzinfo=timezone.utc)
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
                    if not _LABEL_RE.fullmatch(label):
                        raise self.err(i, f"stance mapping names {label!r}, not a neutral label such as 辩手甲")
                    self.stances[label] = _strip_quotes(sm.group(2))
            i += 1
        if not self.topic:
            raise self.err(0, "no '- **辩题**：…' line before the first round")
        if len(self.stances) < 2:
            raise self.err(mapping_line or 0, f"the stance mapping names {len(self.stances)} debater(s); "
                                              "need at least two '  - 辩手X → 「立场」' lines")
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
        speaker: Optional[str] = None
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
                lm = _LABEL_RE.search(line)
                if not lm or lm.group(0) not in self.stances:
                    raise self.err(i, "debater section names no debater of the stance mapping "
                                      f"({', '.join(self.stances)})")
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
                        self.summaries.append(RoundSummary(round=int(om.group(1)), speaker=ORCHESTRATOR,
                                                           text=om.group(2).strip()))
                    else:
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
        text = "\n".join(body_lines).strip("\n")
        arguments: list[dict] = []
        rebuttals: list[dict] = []
        flag: Optional[bool] = None
        notes: list[str] = []
        header: Optional[list[str]] = None
        parent: Optional[str] = None
        for k, line in enumerate(body_lines):
            i = start + k
            stripped = line.strip()
            if not stripped:
                header = None
                continue
            if stripped.startswith("|"):
                cells = _split_row(stripped)
                if header is None:
                    header = [_ARG_COLS.get(_unbold(c).lower(), _ARG_COLS.get(_unbold(c), _unbold(c)))
                              for c in cells]
                    if "point" not in header:
                        raise self.err(i, "argument table has no '论点' column")
                    continue
                if _is_sep(stripped):
                    continue
                if len(cells) != len(header):
                    raise self.err(i, f"table row has {len(cells)} cells; the header has {len(header)}")
                row = {h: _unbold(c) for h, c in zip(header, cells)}
                arguments.append({"id": row.get("id", f"A{len(arguments) + 1}"), "point": row.get("point", ""),
                                  "reasoning": row.get("reasoning", ""), "evidence": row.get("evidence", "")})
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
                    arguments.append({"id": aid, "point": _unbold(point), "reasoning": "", "evidence": ""})
                continue
            fm = _FIELD_RE.match(stripped)
            if fm:
                label = _unbold(fm.group(1)) + (fm.group(2) or "")
                content = fm.group(3).strip()
                parent = label
                if label.startswith("新论点") or label.startswith("新增论点"):
                    if content:
                        arguments.append({"id": f"N{len(arguments) + 1}", "point": _unbold(content),
                                          "reasoning": "", "evidence": ""})
                    continue
                rebut = _rebuttal_from(label, _unbold(content))
                if rebut is not None:
                    rebuttals.append(rebut)
                else:
                    arguments.append({"id": label, "point": _unbold(content), "reasoning": "", "evidence": ""})
                continue
            bm = _BULLET_RE.match(stripped)
            if bm and not line.startswith((" ", "\t")):
                parent = None
        if not text:
            raise self.err(start - 1, f"{speaker} has an empty section in round {round_no}")
        envelope = {"stance": self.stances.get(speaker, ""), "arguments": arguments, "rebuttals": rebuttals}
        if flag is not None:  # only where the log states it
            envelope["no_new_points"] = flag
        self.rounds.append(Speech(round=round_no, speaker=speaker, speaker_name=speaker,
                                  role=_role_for(self.round_titles.get(round_no, ""), round_no), text=text,
                                  envelope=envelope, warnings=notes))


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
            found = [m.group(0) for m in _LABEL_RE.finditer(joined) if m.group(0) in labels]
            if found:
                v.winner = found[0]
            elif re.search(r"平局|draw", joined, re.I):
                v.winner = "draw"
        elif "点评" in name or "表" in name:
            v.rows = _verdict_rows(path, start, body)
        elif "逐轮" in name:
            for k, line in enumerate(body):
                m = re.match(r"^[-*]\s*第\s*(\d+)\s*轮\s*[：:]\s*(.*)$", line.strip())
                if m:
                    v.per_round.append(RoundComment(round=int(m.group(1)), comment=m.group(2).strip()))
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
    header: Optional[list[str]] = None
    for k, line in enumerate(body):
        i = start + 1 + k
        s = line.strip()
        if not s.startswith("|"):
            continue
        cells = _split_row(s)
        if header is None:
            header = [_unbold(c) for c in cells]
            continue
        if _is_sep(s):
            continue
        if len(cells) != len(header):
            raise ImportFormatError(path, i + 1, f"table row has {len(cells)} cells; the header has {len(header)}")
        cell = dict(zip(header, cells))

        def pick(*names: str) -> str:
            for n in names:
                for h in header:
                    if n in h:
                        return cell[h]
            return ""

        label = _unbold(pick("辩手", "标签", "label"))
        if not label:
            raise ImportFormatError(path, i + 1, "table row names no debater")
        raw_score = pick("评分", "得分", "score")
        try:
            score = _parse_float(raw_score)
        except ValueError:
            raise ImportFormatError(path, i + 1, f"score {raw_score!r} is not a number") from None
        rows.append(VerdictRow(label=label, stance=_unbold(pick("立场", "stance")),
                               strongest=_unbold(pick("最强", "strongest")),
                               weakness=_unbold(pick("弱点", "weakness")), score=score))
    if header is None:
        raise ImportFormatError(path, start + 1, "the section holds no '| 辩手 | 立场 | … | 评分 |' table")
    return rows


def parse_topic_dir(folder: Path) -> Debate:
    log_path = folder / "debate-log.md"
    verdict_path = folder / "verdict.md"
    if not log_path.is_file():
        raise ImportFormatError(log_path, None, "missing: a topic-debate folder holds debate-log.md and verdict.md")
    log_text = _read(log_path)
    if "## 议题" in log_text and "辩题" not in log_text:
        # a master debate written as a debate folder by this workbench
        return parse_master_md(log_path, log_text, extra_text=_read(verdict_path) if verdict_path.is_file() else "")
    p = _TopicLogParser(log_path, log_text)
    p.parse()
    verdict = None
    verdict_text = ""
    if verdict_path.is_file():
        verdict_text = _read(verdict_path)
        verdict = parse_verdict(verdict_path, verdict_text, p.stances)
        m = ID_MARK.search(verdict_text)
        if m and not p.id:
            p.id = m.group(1)
    labels = list(p.stances)
    rounds_run = max(s.round for s in p.rounds)
    status = "completed" if verdict is not None else "stopped"
    stop = p.stop or (f"reached {rounds_run} rounds" if verdict is not None else "")
    if verdict is None:
        stop = (stop + "; " if stop else "") + "no verdict.md"
    created = p.created or _mtime(log_path)
    debate = Debate(
        id=p.id or _content_id(log_text, verdict_text), protocol="topic", topic=p.topic, status=status,
        stop_reason=stop,
        participants=[Participant(label=lb, name=lb, stance=p.stances[lb]) for lb in labels],
        planned_rounds=max(rounds_run, 3),
        config=DebateConfig(protocol="topic", topic=p.topic, stances=[p.stances[lb] for lb in labels],
                            rounds=max(rounds_run, 3)),
        warnings=p.warnings, rounds=p.rounds, summaries=p.summaries, verdict=verdict,
        created_at=created, updated_at=created, source=f"import:topic-debate:{folder.name}",
    )
    return debate


# -------------------------------------------------------- master-debate Markdown

_TOPIC_RE = re.compile(r"^##\s*议题\s*[：:]\s*(.+?)\s*$")
_MROUND_RE = re.compile(r"^###\s*R(\d+)\s*[｜|]\s*(.+?)\s+(\S+)\s*$")
_OBS_HEAD = re.compile(r"^###\s*教内余争")
_ENGINE_RE = re.compile(r"^>\s*引擎\s*[：:]\s*(.*)$")
_STATUS_RE = re.compile(r"^>\s*状态\s*[：:]\s*(\w+)\s*(?:[（(](.*)[)）])?\s*$")
_FAILED_RE = re.compile(r"^[（(]本轮未完成[：:](.*)[)）]$")


_FINDING_LINE = re.compile(r"^>\s*(?:[✓✗?]\s*)?(模型审核)?(检查通过|检查未通过|检查未能判定)[：:](.*)$")
_MARK_LINE = re.compile(r"^>\s*引证核对[：:]\s*(\S+?)(?:《(.*?)》)?(✓已核对原文|已核对原文|仅经号|✗引文未核对)(?:「(.*)」)?\s*$")
_MARK_STATUS = {"✓已核对原文": "verified", "已核对原文": "verified", "仅经号": "id_only", "✗引文未核对": "unverified"}


def _read_finding_line(line: str, findings: list) -> bool:
    """One line of the findings block render.py writes under a speech, read back into ``findings``."""
    from debate_core.models import CitationMark

    mm = _MARK_LINE.match(line)
    if mm:
        mark = CitationMark(id=mm.group(1), title=mm.group(2) or "", quote=mm.group(4) or "",
                            status=_MARK_STATUS[mm.group(3)])
        cit = next((f for f in findings if f.rule == "citation" and f.layer == "rules"), None)
        if cit is None:
            cit = Finding(rule="citation", passed=True)
            findings.append(cit)
        cit.marks.append(mark)
        return True
    fm = _FINDING_LINE.match(line)
    if not fm or (fm.group(2) == "检查未通过" and not line.lstrip("> ").startswith("✗")):
        return False  # the older one-line form is read by the caller
    layer = "model" if fm.group(1) else "rules"
    if fm.group(2) == "检查通过":
        for label in fm.group(3).split("、"):
            rule = rule_from_label(label.strip())
            if rule and not any(f.rule == rule and f.layer == layer for f in findings):
                findings.append(Finding(rule=rule, passed=True, layer=layer))
        return True
    item = fm.group(3).strip()
    im = re.match(r"^(.+?)[（(](.*)[)）]$", item)
    rule, msg = (im.group(1), im.group(2)) if im else (item, "")
    rule = rule_from_label(rule)
    prior = next((f for f in findings if f.rule == rule and f.layer == layer), None)
    if prior is not None:  # a citation finding made by a mark line first
        prior.passed, prior.message, prior.undecided = False, msg, fm.group(2) == "检查未能判定"
    else:
        findings.append(Finding(rule=rule, passed=False, message=msg, undecided=fm.group(2) == "检查未能判定",
                                layer=layer))
    return True


def _load_pack(pack: Optional[str]):
    try:
        from debate_core.content.packs import get_pack

        return get_pack(pack)
    except Exception:  # noqa: BLE001 - without a pack, names stay names
        return None


def parse_master_md(path: Path, text: str, *, pack_path: Optional[str] = None, extra_text: str = "") -> Debate:
    from debate_core.checks import find_citations
    from debate_core.content.packs import resolve_master

    lines = text.splitlines()
    topic = ""
    warnings: list[str] = []
    speeches: list[tuple[int, int, str, str, list[str]]] = []  # (line, round, name, role, body)
    observation: dict[str, str] = {}
    obs_line = None
    section = None
    status = stop = ""
    engines: list[str] = []
    debate_id = None
    pack_name = pack_version = ""
    for i, line in enumerate(lines):
        s = line.rstrip()
        m_id = ID_MARK.search(s)
        if m_id:
            debate_id = m_id.group(1)
        if not topic:
            tm = _TOPIC_RE.match(s)
            if tm:
                topic = tm.group(1)
                section = None
                continue
            if s.startswith(">") and s.lstrip("> ").startswith("⚠️"):
                warnings.append(s.lstrip("> ").strip())
            if s.startswith("### "):
                raise ImportFormatError(path, i + 1, "a round before the '## 议题：…' heading")
            continue
        rm = _MROUND_RE.match(s)
        if s.startswith("### ") and not _OBS_HEAD.match(s):
            if not rm:
                raise ImportFormatError(path, i + 1, "round heading must read '### R<n>｜<master name> <role>'")
            n = int(rm.group(1))
            expected = speeches[-1][1] + 1 if speeches else 1
            if n != expected:
                raise ImportFormatError(path, i + 1, f"round R{n} where R{expected} was expected")
            speeches.append((i, n, rm.group(2).strip(), rm.group(3).strip(), []))
            section = "round"
            continue
        if _OBS_HEAD.match(s):
            section, obs_line = "obs", i
            continue
        em = _ENGINE_RE.match(s)
        if em:
            parts = [p.strip() for p in em.group(1).split("·")]
            engines = [e.strip() for e in parts[0].split(",") if e.strip()] if parts else []
            for p in parts[1:]:
                if p.startswith("辩论"):
                    debate_id = debate_id or p[2:].strip() or None
                elif p.startswith("人物包"):
                    bits = p[3:].split()
                    pack_name = bits[0] if bits else ""
                    pack_version = bits[1] if len(bits) > 1 else ""
            section = None
            continue
        sm = _STATUS_RE.match(s)
        if sm:
            status, stop = status_from_zh(sm.group(1)), (sm.group(2) or "").strip()
            section = None
            continue
        if section == "round":
            speeches[-1][4].append(line)
        elif section == "obs" and s.strip():
            om = re.match(r"^[-*]\s*(分歧本质|共识点|留给读者)\s*[：:]\s*(.*)$", s.strip())
            if om:
                observation[om.group(1)] = om.group(2).strip()
    if not topic:
        raise ImportFormatError(path, 1, "no '## 议题：…' heading: not a master-debate transcript")
    if not speeches:
        raise ImportFormatError(path, len(lines), "no '### R1｜<name> 立论' round")
    if obs_line is not None and len(observation) < 3:
        missing = [k for k in ("分歧本质", "共识点", "留给读者") if k not in observation]
        raise ImportFormatError(path, obs_line + 1, f"the neutral observation lacks {', '.join(missing)}")

    pack = _load_pack(pack_path)
    known_ids = sorted(pack.all_source_ids()) if pack else []

    def slug_of(name: str) -> tuple[str, str]:
        if pack is not None:
            try:
                slug = resolve_master(pack, name)
                if pack.masters[slug].name == name or pack.masters[slug].short_name == name or slug == name:
                    return slug, pack.masters[slug].school
            except KeyError:
                pass
        return name, ""

    rounds: list[Speech] = []
    order: list[str] = []
    names: dict[str, str] = {}
    schools: dict[str, str] = {}
    engine = engines[0] if len(engines) == 1 else ""
    for line_no, n, name, role, body in speeches:
        while body and not body[-1].strip():
            body.pop()
        findings: list[Finding] = []
        kept: list[str] = []
        failed_cause = None
        for b in body:
            bs = b.strip()
            if bs == ">":
                continue  # the blank line inside a findings block
            if _read_finding_line(bs, findings):
                continue
            if bs.startswith("> 检查未通过："):  # the older one-line form
                for item in bs[len("> 检查未通过："):].split("；"):
                    fm = re.match(r"^(.+?)[（(](.*)[)）]$", item.strip())
                    rule, msg = (fm.group(1), fm.group(2)) if fm else (item.strip(), "")
                    if rule:
                        findings.append(Finding(rule=rule_from_label(rule), passed=False, message=msg))
                continue
            fcm = _FAILED_RE.match(bs)
            if fcm:
                failed_cause = fcm.group(1).strip()
                continue
            kept.append(b)
        while kept and not kept[-1].strip():
            kept.pop()
        body_text = "\n".join(kept).strip()
        if not body_text and failed_cause is None:
            raise ImportFormatError(path, line_no + 1, f"round R{n} has no text")
        slug, school = slug_of(name)
        failing = [f for f in findings if not f.passed]
        if slug not in order:
            order.append(slug)
            names[slug], schools[slug] = name, school
        rounds.append(Speech(
            round=n, speaker=slug, speaker_name=name, role=role, text=body_text,
            citations=find_citations(body_text, known_ids), findings=findings, engine=engine,
            status="failed" if failed_cause is not None else ("flagged" if failing else "ok"),
            warnings=[failed_cause] if failed_cause else [],
        ))
    if len(order) < 2:
        raise ImportFormatError(path, speeches[0][0] + 1, "a master debate needs two speakers; found one")
    obs = Observation(divergence=observation["分歧本质"], consensus=observation["共识点"],
                      to_reader=observation["留给读者"], engine=engine) if observation else None
    if not status:
        status = "completed" if obs else "stopped"
        stop = f"已完成 {len(rounds)} 轮" if obs else "导入的记录没有结尾的中立观察"
    created = _mtime(path)
    return Debate(
        id=debate_id or _content_id(text, extra_text), protocol="master", topic=topic, status=status,
        stop_reason=stop,
        participants=[Participant(label=s, name=names[s], school=schools[s], model=engine) for s in order],
        models=engines, pack_name=pack_name or (pack.name if pack else ""),
        pack_version=pack_version or (pack.version if pack and not pack_name else ""),
        planned_rounds=len(rounds),
        config=DebateConfig(protocol="master", topic=topic, masters=order[:2], rounds=len(rounds), pack=pack_path),
        warnings=warnings, rounds=rounds, observation=obs, created_at=created, updated_at=created,
        source=f"import:master-md:{path.name}",
    )


# -------------------------------------------------------------- JSON exports


def _json_line(text: str, loc: tuple) -> Optional[int]:
    keys = [k for k in loc if isinstance(k, str)]
    if not keys:
        return None
    needle = json.dumps(keys[-1], ensure_ascii=False)
    idx = text.find(needle + ":")
    if idx < 0:
        idx = text.find(needle)
    return text[:idx].count("\n") + 1 if idx >= 0 else None


def parse_json(path: Path, text: str) -> list[Debate]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(path, exc.lineno, f"bad JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ImportFormatError(path, None, "bad JSON: nested too deeply") from None
    if isinstance(data, dict) and isinstance(data.get("debates"), list):
        items = data["debates"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        items = [data]
    else:
        raise ImportFormatError(path, 1, "expected a debate object, a list of them or {\"debates\": [...]}")
    out = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise ImportFormatError(path, None, f"item {n} is not a debate object")
        try:
            out.append(Debate.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = tuple(err.get("loc", ()))
            where = ".".join(str(x) for x in loc)
            prefix = f"item {n}: " if len(items) > 1 else ""
            raise ImportFormatError(path, _json_line(text, loc),
                                    f"{prefix}{where}: {err.get('msg', 'invalid')}") from None
    return out


# -------------------------------------------------------------------- driver


def _expand(path: Path) -> list[tuple[str, Path]]:
    if not path.exists():
        raise ImportFormatError(path, None, "no such file or folder")
    if path.is_dir():
        if (path / "debate-log.md").is_file():
            return [("topic-debate", path)]
        found: list[tuple[str, Path]] = []
        for child in sorted(path.iterdir()):
            if child.is_dir() and (child / "debate-log.md").is_file():
                found.append(("topic-debate", child))
            elif child.is_file() and child.suffix.lower() == ".json":
                found.append(("json", child))
            elif child.is_file() and child.suffix.lower() == ".md" and "## 议题" in _read(child):
                found.append(("master-md", child))  # other Markdown in the folder (a README) is not a debate
        if not found:
            raise ImportFormatError(path, None, "nothing to import: no <slug>.debate/ folder, .json or .md file")
        return found
    if path.name in ("debate-log.md", "verdict.md"):
        return [("topic-debate", path.parent)]
    suffix = path.suffix.lower()
    if suffix == ".json":
        return [("json", path)]
    if suffix in (".md", ".markdown"):
        return [("master-md", path)]
    raise ImportFormatError(path, None, "unknown format: give a <slug>.debate/ folder, a .md transcript or a .json export")


def parse_path(path: str | Path, *, pack: Optional[str] = None) -> list[tuple[str, Path, Debate]]:
    """Parse one path (file or folder) into debates without touching any archive."""
    out = []
    for kind, p in _expand(Path(path).expanduser()):
        if kind == "topic-debate":
            d = parse_topic_dir(p)
            out.append(("master-md" if d.protocol == "master" else kind, p, d))
        elif kind == "json":
            out += [(kind, p, d) for d in parse_json(p, _read(p))]
        else:
            out.append((kind, p, parse_master_md(p, _read(p), pack_path=pack)))
    return out


def import_paths(archive, paths: Iterable[str | Path], *, pack: Optional[str] = None) -> list[ImportResult]:
    """Parse every path first, then write all new debates in one transaction."""
    parsed: list[tuple[str, Path, Debate]] = []
    for p in paths:
        parsed += parse_path(p, pack=pack)
    if not parsed:
        raise ImportFormatError("(no paths)", None, "nothing to import")
    unique: dict[str, tuple[str, Path, Debate]] = {}
    for item in parsed:
        unique.setdefault(item[2].id, item)
    items = list(unique.values())
    written = archive.save_many([d for _, _, d in items],
                                imported_from=[str(p.resolve()) for _, p, _ in items], replace=False)
    results = []
    by_id = {d.id: ok for (_, _, d), ok in zip(items, written)}
    for kind, p, d in parsed:
        ok = by_id.pop(d.id, False)
        results.append(ImportResult(path=str(p), kind=kind, id=d.id, topic=d.topic,
                                    status="imported" if ok else "exists"))
    return results
