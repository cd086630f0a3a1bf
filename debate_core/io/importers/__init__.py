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

One module per format (``topic_folder`` with ``topic_log`` and ``topic_verdict``,
``master_md``, ``json_export``), what they share in ``common``, and the driver that tells
a path's format and writes what it holds in ``driver``.
"""

from debate_core.io.importers.common import ImportFormatError, ImportResult
from debate_core.io.importers.driver import import_paths, parse_path
from debate_core.io.importers.json_export import parse_json
from debate_core.io.importers.master_md import parse_master_md
from debate_core.io.importers.topic_folder import parse_folder
from debate_core.io.importers.topic_verdict import parse_verdict

__all__ = [
    "ImportFormatError",
    "ImportResult",
    "import_paths",
    "parse_folder",
    "parse_json",
    "parse_master_md",
    "parse_path",
    "parse_verdict",
]
