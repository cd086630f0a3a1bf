"""Master-debate Markdown in the master-debate seed's output framework (``## 议题：…``,
``### R1｜<name> 立论`` …, ``### 教内余争 — 中立观察``), as render/master.py writes it."""

from __future__ import annotations

import re
from pathlib import Path

from debate_core.checks import find_citations
from debate_core.content.packs import get_pack, resolve_master
from debate_core.io.importers.common import ID_MARK, ImportFormatError, content_id, file_time
from debate_core.models import CitationMark, Debate, DebateConfig, Finding, Observation, Participant, Speech
from debate_core.render.master import rule_from_label, status_from_zh
from debate_core.render.safe import restore_markdown

KIND = "master-md"

_TOPIC_RE = re.compile(r"^##\s*议题\s*[：:]\s*(.+?)\s*$")
_MROUND_RE = re.compile(r"^###\s*R(\d+)\s*[｜|]\s*(.+?)\s+(\S+)\s*$")
_OBS_HEAD = re.compile(r"^###\s*教内余争")
_CHECKS_HEAD = re.compile(r"^###\s*附[：:]\s*各轮检查")  # render.master's appendix of findings
_CHECKS_ROUND = re.compile(r"^####\s*R(\d+)\b")
_ENGINE_RE = re.compile(r"^>\s*引擎\s*[：:]\s*(.*)$")
_STATUS_RE = re.compile(r"^>\s*状态\s*[：:]\s*(\w+)\s*(?:[（(](.*)[)）])?\s*$")
_FAILED_RE = re.compile(r"^[（(]本轮未完成[：:](.*)[)）]$")
_FINDING_LINE = re.compile(r"^>\s*(?:[✓✗?]\s*)?(模型审核)?(检查通过|检查未通过|检查未能判定|本轮不适用)[：:](.*)$")
_MARK_LINE = re.compile(
    r"^>\s*引证核对[：:]\s*(\S+?)(?:《(.*?)》)?(✓已核对原文|已核对原文|仅经号|✗引文未核对|"
    r"引文无原文可核)(?:「(.*)」)?\s*$"
)
_MARK_STATUS = {
    "✓已核对原文": "verified",
    "已核对原文": "verified",
    "仅经号": "id_only",
    "✗引文未核对": "unverified",
    "引文无原文可核": "unchecked",
}


def _read_finding_line(line: str, findings: list) -> bool:
    """One line of the findings block render.py writes under a speech, read back into ``findings``."""
    mm = _MARK_LINE.match(line)
    if mm:
        mark = CitationMark(
            id=mm.group(1), title=mm.group(2) or "", quote=mm.group(4) or "", status=_MARK_STATUS[mm.group(3)]
        )
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
    if fm.group(2) in ("检查通过", "本轮不适用"):
        applies = fm.group(2) == "检查通过"
        for label in fm.group(3).split("、"):
            rule = rule_from_label(label.strip())
            if rule and not any(f.rule == rule and f.layer == layer for f in findings):
                findings.append(Finding(rule=rule, passed=True, layer=layer, applies=applies))
        return True
    item = fm.group(3).strip()
    im = re.match(r"^(.+?)[（(](.*)[)）]$", item)
    rule, msg = (im.group(1), im.group(2)) if im else (item, "")
    rule = rule_from_label(rule)
    prior = next((f for f in findings if f.rule == rule and f.layer == layer), None)
    if prior is not None:  # a citation finding made by a mark line first
        prior.passed, prior.message, prior.undecided = False, msg, fm.group(2) == "检查未能判定"
    else:
        findings.append(
            Finding(rule=rule, passed=False, message=msg, undecided=fm.group(2) == "检查未能判定", layer=layer)
        )
    return True


def _load_pack(pack: str | None):
    try:
        return get_pack(pack)
    except Exception:  # noqa: BLE001 - without a pack, names stay names
        return None


def parse_master_md(path: Path, text: str, *, pack_path: str | None = None, extra_text: str = "") -> Debate:
    lines = text.splitlines()
    topic = ""
    warnings: list[str] = []
    speeches: list[tuple[int, int, str, str, list[str]]] = []  # (line, round, name, role, body)
    observation: dict[str, str] = {}
    obs_line = None
    section = None
    checks_for = None
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
                topic = restore_markdown(tm.group(1))
                section = None
                continue
            if s.startswith(">") and s.lstrip("> ").startswith("⚠️"):
                warnings.append(s.lstrip("> ").strip())
            if s.startswith("### "):
                raise ImportFormatError(path, i + 1, "a round before the '## 议题：…' heading")
            continue
        if _CHECKS_HEAD.match(s):
            section, checks_for = "checks", None
            continue
        if section == "checks":
            cm = _CHECKS_ROUND.match(s)
            if cm:
                n = int(cm.group(1))
                checks_for = speeches[n - 1] if 0 < n <= len(speeches) else None
                if checks_for is None:
                    raise ImportFormatError(path, i + 1, f"checks for R{n}, which the transcript does not hold")
                continue
            if s.startswith(">") and checks_for is not None and not _ENGINE_RE.match(s) and not _STATUS_RE.match(s):
                checks_for[4].append(line)
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
            engines = [e.strip() for e in re.split(r"[,、]", parts[0]) if e.strip()] if parts else []
            engines = ["offline" if e == "离线引擎" else e for e in engines]  # as render.master names it
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
                observation[om.group(1)] = restore_markdown(om.group(2).strip())
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
                for item in bs[len("> 检查未通过：") :].split("；"):
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
        body_text = restore_markdown("\n".join(kept).strip())  # our exports neutralise Markdown (render.safe)
        if not body_text and failed_cause is None:
            raise ImportFormatError(path, line_no + 1, f"round R{n} has no text")
        slug, school = slug_of(name)
        failing = [f for f in findings if not f.passed]
        if slug not in order:
            order.append(slug)
            names[slug], schools[slug] = name, school
        rounds.append(
            Speech(
                round=n,
                speaker=slug,
                speaker_name=name,
                role=role,
                text=body_text,
                citations=find_citations(body_text, known_ids),
                findings=findings,
                engine=engine,
                status="failed" if failed_cause is not None else ("flagged" if failing else "ok"),
                warnings=[failed_cause] if failed_cause else [],
            )
        )
    if len(order) < 2:
        raise ImportFormatError(path, speeches[0][0] + 1, "a master debate needs two speakers; found one")
    obs = (
        Observation(
            divergence=observation["分歧本质"],
            consensus=observation["共识点"],
            to_reader=observation["留给读者"],
            engine=engine,
        )
        if observation
        else None
    )
    if not status:
        status = "completed" if obs else "stopped"
        stop = f"已完成 {len(rounds)} 轮" if obs else "导入的记录没有结尾的中立观察"
    created = file_time(path)
    return Debate(
        id=debate_id or content_id(text, extra_text),
        protocol="master",
        topic=topic,
        status=status,
        stop_reason=stop,
        participants=[Participant(label=s, name=names[s], school=schools[s], model=engine) for s in order],
        models=engines,
        pack_name=pack_name or (pack.name if pack else ""),
        pack_version=pack_version or (pack.version if pack and not pack_name else ""),
        planned_rounds=len(rounds),
        config=DebateConfig(protocol="master", topic=topic, masters=order[:2], rounds=len(rounds), pack=pack_path),
        warnings=warnings,
        rounds=rounds,
        observation=obs,
        created_at=created,
        updated_at=created,
        source=f"import:{KIND}:{path.name}",
    )
