"""A topic-debate artifact folder ``<slug>.debate/``: ``debate-log.md`` and ``verdict.md`` together."""

from __future__ import annotations

from pathlib import Path

from debate_core.engines.judged_prompts import for_lang
from debate_core.io.importers import master_md
from debate_core.io.importers.common import ID_MARK, ImportFormatError, content_id, file_time, read_text
from debate_core.io.importers.topic_log import TopicLogParser
from debate_core.io.importers.topic_verdict import parse_verdict
from debate_core.lang import detect
from debate_core.models import Debate, DebateConfig, Participant

KIND = "topic-debate"


def parse_folder(folder: Path) -> tuple[str, Debate]:
    """``(kind, debate)`` of a debate folder: the topic-debate seed's layout (kind ``topic-debate``),
    or a master transcript this workbench wrote as a folder (kind ``master-md``)."""
    log_path = folder / "debate-log.md"
    verdict_path = folder / "verdict.md"
    if not log_path.is_file():
        raise ImportFormatError(log_path, None, "missing: a topic-debate folder holds debate-log.md and verdict.md")
    log_text = read_text(log_path)
    if "## 议题" in log_text and "辩题" not in log_text:
        # a master debate written as a debate folder by this workbench
        extra = read_text(verdict_path) if verdict_path.is_file() else ""
        return master_md.KIND, master_md.parse_master_md(log_path, log_text, extra_text=extra)
    p = TopicLogParser(log_path, log_text)
    p.parse()
    verdict = None
    verdict_text = ""
    if verdict_path.is_file():
        verdict_text = read_text(verdict_path)
        verdict = parse_verdict(verdict_path, verdict_text, p.stances)
        m = ID_MARK.search(verdict_text)
        if m and not p.id:
            p.id = m.group(1)
    labels = list(p.stances)
    rounds_run = max(s.round for s in p.rounds)
    status = "completed" if verdict is not None else "stopped"
    # what the importer says itself (no stop line, no verdict.md) is the library's words in the log's language,
    # which a reader's app reads back (debate_core.i18n.read_back) and says again in its own
    lang = detect(p.topic)
    notes = for_lang(lang).NOTES
    stop = p.stop or (notes["imported_rounds"].format(n=rounds_run) if verdict is not None else "")
    warnings = list(p.warnings)
    if verdict is None:
        if stop:
            warnings.append(notes["imported_no_verdict"])
        else:
            stop = notes["imported_no_verdict"]
    created = p.created or file_time(log_path)
    return KIND, Debate(
        id=p.id or content_id(log_text, verdict_text),
        protocol="topic",
        topic=p.topic,
        lang=lang,
        status=status,
        stop_reason=stop,
        participants=[Participant(label=lb, name=lb, stance=p.stances[lb]) for lb in labels],
        planned_rounds=max(rounds_run, 3),
        config=DebateConfig(
            protocol="topic",
            topic=p.topic,
            lang=lang,
            stances=[p.stances[lb] for lb in labels],
            rounds=max(rounds_run, 3),
        ),
        warnings=warnings,
        rounds=p.rounds,
        summaries=p.summaries,
        verdict=verdict,
        created_at=created,
        updated_at=created,
        source=f"import:{KIND}:{folder.name}",
    )
