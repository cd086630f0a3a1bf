"""Exporters: a debate record to JSON, Markdown, a notebook, Parquet or a debate folder.

* ``json``: :func:`to_json_dict` — the Debate model plus verdict scores by label;
  it round-trips through :mod:`debate_core.importers` exactly (docs/json-export.md).
* ``md``: the protocol's own framework (:func:`debate_core.render.render_markdown`;
  judged protocols fall back to the topic-debate layout below when their renderer
  is not available).  A master debate's Markdown lists, under each speech, its check
  findings (✗ failed / ? undecided / passed, the model audit apart) and its citation
  marks (✓已核对原文 / 仅经号 / ✗引文未核对), all in Chinese; the importer reads them back.
* ``ipynb``: a notebook that shows the debate and loads it from the archive to plot
  tokens per round with plotly.
* ``parquet``: the archive tables (rows of this debate, or everything) as Parquet files.
* ``debate-dir``: the topic-debate seed's ``<slug>.debate/`` folder with
  ``debate-log.md`` and ``verdict.md``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any, Optional

from debate_core.models import Debate

FORMATS = ("md", "json", "ipynb", "parquet", "debate-dir")
SLUG_LIMIT = 40


def to_json_dict(debate: Debate) -> dict[str, Any]:
    """The workbench's JSON export: the Debate model, plus verdict scores by label."""
    data = debate.model_dump(mode="json")
    if debate.verdict is not None:
        data["verdict"]["scores"] = debate.verdict.scores
    return data


def to_json_text(debate: Debate) -> str:
    return json.dumps(to_json_dict(debate), ensure_ascii=False, indent=2) + "\n"


# ----------------------------------------------------------------- slugs


def slugify(topic: str, limit: int = SLUG_LIMIT) -> str:
    """The topic-debate seed's slug: lower-case, spaces to ``-``, punctuation removed,
    cut at 40 characters.  Letters of any script (CJK included) are kept."""
    out = []
    for ch in topic.strip().lower():
        if ch.isspace():
            out.append("-")
        elif ch == "-" or ch == "_":
            out.append("-")
        elif unicodedata.category(ch)[0] in ("P", "S", "C"):
            continue
        else:
            out.append(ch)
    slug = re.sub(r"-{2,}", "-", "".join(out)).strip("-")
    slug = slug[:limit].rstrip("-")
    return slug or "debate"


# ---------------------------------------------------------- topic-debate layout


def _cell(text: Any) -> str:
    return str(text if text is not None else "").replace("\n", " ").replace("|", "｜").strip()


def _score(value: Optional[float]) -> str:
    if value is None:
        return "—"
    return f"**{value:g}**" if value != int(value) else f"**{value:.1f}**"


def _envelope_md(speech) -> str:
    env = speech.envelope or {}
    out: list[str] = []
    args = [a for a in env.get("arguments") or [] if isinstance(a, dict)]
    strings = [a for a in env.get("arguments") or [] if isinstance(a, str)]
    if args and not env.get("rebuttals"):
        out += ["| id | 论点 | 论证要点 | 论据 |", "|----|------|---------|------|"]
        for a in args:
            out.append(f"| {_cell(a.get('id'))} | {_cell(a.get('point'))} | {_cell(a.get('reasoning'))} | "
                       f"{_cell(a.get('evidence'))} |")
    else:
        for r in env.get("rebuttals") or []:
            if isinstance(r, dict):
                target = str(r.get("target", "")).replace("辩手", "")
                out.append(f"- **{r.get('type', '反驳')} {target}**：{r.get('content', '')}".replace("  ", " "))
        if args or strings:
            out.append("- **新论点**：")
            for a in args:
                out.append(f"  - {a.get('id', '')} {a.get('point', '')}".rstrip())
            for a in strings:
                out.append(f"  - {a}")
    if env.get("no_new_points") is not None:
        out.append(f"- `no_new_points: {'true' if env['no_new_points'] else 'false'}`")
    return "\n".join(out)


def _speech_md(speech) -> str:
    text = (speech.text or "").strip()
    if speech.envelope and (not text or text.startswith(("{", "```"))):
        return _envelope_md(speech)
    if speech.status == "failed" and not text:
        return f"（本轮未完成：{'; '.join(speech.warnings) or '生成失败'}）"
    if speech.envelope and speech.envelope.get("no_new_points") is not None and "no_new_points" not in text:
        text += f"\n- `no_new_points: {'true' if speech.envelope['no_new_points'] else 'false'}`"
    return text


def _round_title(round_no: int, speeches, last: bool, capped: bool) -> str:
    role = speeches[0].role if speeches else ""
    if role in ("立论", "opening") or round_no == 1:
        title = "独立立论"
    elif role in ("结辩", "closing", "综合"):
        title = "结辩轮"
    else:
        title = "交叉反驳"
    if last and capped:
        title += "（触顶停机）"
    return title


def debate_log_md(debate: Debate) -> str:
    """``debate-log.md`` in the topic-debate seed's layout (readable by the importer)."""
    labels = {p.label: p for p in debate.participants}
    out = [f"# 辩论日志：{debate.topic}", "", f"- **辩题**：{debate.topic}", "- **立场映射（匿名）**："]
    for p in debate.participants:
        out.append(f"  - {p.label} → 「{p.stance or p.name or p.label}」")
    degraded = any("降级" in w for w in debate.warnings)
    out.append(f"- **模式**：{'降级（单一模型）' if degraded else '正常'}")
    out.append(f"- **生成时间**：{debate.created_at.isoformat()}")
    out += ["", f"<!-- debate-workbench id={debate.id} protocol={debate.protocol} -->", "", "---", ""]
    rounds = sorted({s.round for s in debate.rounds})
    capped = bool(rounds) and rounds[-1] >= (debate.planned_rounds or rounds[-1])
    for n in rounds:
        speeches = [s for s in debate.rounds if s.round == n]
        out += [f"## 第 {n} 轮：{_round_title(n, speeches, n == rounds[-1], capped)}", ""]
        for s in speeches:
            p = labels.get(s.speaker)
            stance = p.stance if p and p.stance else ""
            out += [f"### {s.speaker}" + (f"（{stance}）" if stance else ""), "", _speech_md(s), ""]
        for summ in debate.summaries:
            if summ.round == n:
                out += [f"**第 {n} 轮观察**：{summ.text}", ""]
        if n != rounds[-1]:
            out += ["---", ""]
    if debate.stop_reason:
        out += [f"**停机**：{debate.stop_reason}", ""]
    for w in debate.warnings:
        if not w.startswith("模式："):
            out += [f"> {w}" if w.startswith(("⚠️", "WARNING")) else f"> ⚠️ {w}", ""]
    return "\n".join(out).rstrip() + "\n"


def verdict_md(debate: Debate) -> str:
    """``verdict.md`` in the topic-debate seed's layout."""
    v = debate.verdict
    out = [f"# 裁判判词：{debate.topic}", ""]
    if v is None:
        out += ["> 本场没有裁判判词（状态：" + debate.status + (f"，{debate.stop_reason}" if debate.stop_reason else "")
                + "）。", ""]
        return "\n".join(out).rstrip() + "\n"
    out += [f"> 裁判：{v.judge}" if v.judge else "> 裁判：独立第三方，只看辩论日志中的论据。", ""]
    conclusion = v.summary.strip()
    if v.winner and v.winner not in conclusion:
        conclusion = (f"**{v.winner}胜出**" if v.winner != "draw" else "**平局**") + (
            f"——{conclusion}" if conclusion else "")
    out += ["## 一、判赢结论", "", conclusion or "（未给出结论）", ""]
    reasons = "\n\n".join(t if k in ("判词", "") else f"**{k}**：{t}" for k, t in v.reasons.items())
    out += ["## 二、判词", "", reasons or "（未给出判词）", ""]
    out += ["## 三、逐方点评表", "", "| 辩手 | 立场 | 最强论点 | 致命弱点 | 评分 |", "|------|------|----------|----------|------|"]
    for r in v.rows:
        out.append(f"| {_cell(r.label)} | {_cell(r.stance)} | {_cell(r.strongest)} | {_cell(r.weakness)} | "
                   f"{_score(r.score)} |")
    out.append("")
    if v.note:
        out += ["## 四、给真实读者的话", "", v.note.strip(), ""]
    if v.per_round:
        out += ["## 五、逐轮点评", ""] + [f"- 第 {c.round} 轮：{c.comment}" for c in v.per_round] + [""]
    return "\n".join(out).rstrip() + "\n"


def _master_observation_md(debate: Debate) -> str:
    out = [f"# 中立观察：{debate.topic}", "", f"<!-- debate-workbench id={debate.id} protocol=master -->", ""]
    o = debate.observation
    if o is None:
        from debate_core.render.master import status_zh

        out.append(f"> 状态：{status_zh(debate.status)}（{debate.stop_reason}）")
    else:
        out += ["### 教内余争 — 中立观察", f"- 分歧本质：{o.divergence}", f"- 共识点：{o.consensus}",
                f"- 留给读者：{o.to_reader}"]
    return "\n".join(out).rstrip() + "\n"


def render_md(debate: Debate) -> str:
    """The protocol's own framework."""
    from debate_core.render.master import render_markdown

    if debate.protocol == "master":
        return render_markdown(debate)
    try:
        return render_markdown(debate)
    except ImportError:
        return debate_log_md(debate) + "\n---\n\n" + verdict_md(debate)


def write_debate_dir(debate: Debate, out: Optional[str | Path] = None) -> Path:
    """Write ``<slug>.debate/`` (debate-log.md + verdict.md) under ``out`` (default: the
    current folder); ``out`` ending in ``.debate`` is used as the folder itself."""
    base = Path(out).expanduser() if out else Path.cwd()
    folder = base if base.name.endswith(".debate") else base / f"{slugify(debate.topic)}.debate"
    folder.mkdir(parents=True, exist_ok=True)
    if debate.protocol == "master":
        from debate_core.render.master import render_master

        log = render_master(debate).rstrip() + f"\n\n<!-- debate-workbench id={debate.id} protocol=master -->\n"
        verdict = _master_observation_md(debate)
    else:
        try:  # the judged protocols' own renderer, when this build has it
            from debate_core.render import judged as render_judged

            log, verdict = render_judged.debate_log_md(debate), render_judged.verdict_md(debate)
        except (ImportError, AttributeError):
            log, verdict = debate_log_md(debate), verdict_md(debate)
        if debate.id not in log:
            log = log.rstrip() + f"\n\n<!-- debate-workbench id={debate.id} protocol={debate.protocol} -->\n"
    (folder / "debate-log.md").write_text(log, encoding="utf-8")
    (folder / "verdict.md").write_text(verdict, encoding="utf-8")
    return folder


# ------------------------------------------------------------------ notebook


def to_notebook(debate: Debate, archive_path: str | Path):
    """An nbformat v4 notebook: the debate as Markdown, then cells that load it from
    the archive and plot tokens per round with plotly."""
    import nbformat
    from nbformat import v4

    from debate_core.archive import REPO_ROOT

    names = ", ".join(p.name or p.label for p in debate.participants)
    played = len({s.round for s in debate.rounds})
    zh = debate.protocol == "master"  # a master debate is Chinese throughout
    if zh:
        from debate_core.render.master import status_zh

        head = (f"# {debate.topic}\n\n| | |\n|---|---|\n| 辩论 | `{debate.id}` |\n| 形式 | 祖师辩论 |\n"
                f"| 状态 | {status_zh(debate.status)}（{_cell(debate.stop_reason)}） |\n| 双方 | {_cell(names)} |\n"
                f"| 模型 | {_cell(', '.join(debate.models))} |\n| 轮次 | {played} / {debate.planned_rounds} |\n"
                f"| 创建时间 | {debate.created_at.isoformat()} |\n")
    else:
        head = (f"# {debate.topic}\n\n| | |\n|---|---|\n| id | `{debate.id}` |\n| protocol | {debate.protocol} |\n"
                f"| status | {debate.status} ({_cell(debate.stop_reason)}) |\n| participants | {_cell(names)} |\n"
                f"| models | {_cell(', '.join(debate.models))} |\n| rounds | {played} / "
                f"{debate.planned_rounds} |\n| created | {debate.created_at.isoformat()} |\n")
    setup = f"""import sys
ARCHIVE = {str(Path(archive_path).resolve())!r}
DEBATE_ID = {debate.id!r}
REPO = {str(REPO_ROOT)!r}
try:
    import debate_core  # noqa: F401
except ImportError:
    sys.path.insert(0, REPO)
from debate_core.archive import open_archive

archive = open_archive(ARCHIVE, create=False)
debate = archive.get_debate(DEBATE_ID)
print(f"{{debate.topic}} — {{debate.status}}, {{len(debate.rounds)}} speeches, {{len(debate.llm_calls)}} model calls")"""
    table = """import pandas as pd

speeches = pd.DataFrame([{"round": s.round, "speaker": s.speaker_name or s.speaker, "role": s.role,
                          "status": s.status, "chars": len(s.text), "citations": len(s.citations),
                          "prompt_tokens": s.prompt_tokens, "completion_tokens": s.completion_tokens,
                          "cost": s.cost} for s in debate.rounds])
calls = pd.DataFrame([{"round": c.round, "purpose": c.purpose, "model": c.model,
                       "prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens}
                      for c in debate.llm_calls if c.round is not None])
# every model call when the debate has a call ledger, else the speeches' own counts
source = calls if len(calls) else speeches
if len(source):
    per_round = source.groupby("round", as_index=False)[["prompt_tokens", "completion_tokens"]].sum()
else:
    per_round = pd.DataFrame({"round": [], "prompt_tokens": [], "completion_tokens": []})
speeches"""
    plot = """import plotly.express as px
import plotly.io as pio

pio.renderers.default = "plotly_mimetype+notebook_connected"
long = per_round.melt(id_vars="round", value_vars=["prompt_tokens", "completion_tokens"],
                      var_name="tokens", value_name="count")
fig = px.bar(long, x="round", y="count", color="tokens", barmode="stack",
             title=f"Tokens per round — {debate.topic[:40]}", labels={"count": "tokens"})
fig.update_xaxes(dtick=1)
fig.show()
per_round"""
    nb = v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["debate_workbench"] = {"debate_id": debate.id, "archive": str(Path(archive_path).resolve())}
    nb.cells = [
        v4.new_markdown_cell(head),
        v4.new_markdown_cell(render_md(debate)),
        v4.new_markdown_cell("## 从存档载入本场辩论" if zh else "## Load the debate from the archive"),
        v4.new_code_cell(setup),
        v4.new_code_cell(table),
        v4.new_markdown_cell("## 各轮用量（词元）" if zh else "## Tokens per round"),
        v4.new_code_cell(plot),
    ]
    nbformat.validate(nb)
    return nb


def notebook_text(debate: Debate, archive_path: str | Path) -> str:
    import nbformat

    return nbformat.writes(to_notebook(debate, archive_path))


# ------------------------------------------------------------------- parquet


def _lit(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def write_parquet(archive, debate_id: Optional[str], out: Optional[str | Path] = None) -> Path:
    """The archive's tables as Parquet files in a folder (one file per table): the rows of
    one debate and its pack snapshot, or with ``debate_id`` None every row of every table
    (judge audits included)."""
    from debate_core.archive import AUDIT_TABLES, DEBATE_TABLES

    folder = (Path(out).expanduser() if out else Path.cwd() / f"{debate_id or 'archive'}.parquet").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    pack_tables = ("packs", "pack_masters", "pack_sources", "pack_critiques")
    with archive._session() as con:
        if debate_id is not None:
            row = con.execute("SELECT pack_hash FROM debates WHERE id = ?", [debate_id]).fetchone()
            if row is None:
                raise KeyError(f"no debate {debate_id!r} in archive {archive.path}")
            queries = {"debates": f"SELECT * FROM debates WHERE id = {_lit(debate_id)}"}
            queries.update({t: f"SELECT * FROM {t} WHERE debate_id = {_lit(debate_id)}" for t in DEBATE_TABLES})
            for t in pack_tables:
                queries[t] = f"SELECT * FROM {t} WHERE pack_hash = {_lit(row[0] or '')}"
        else:
            queries = {t: f"SELECT * FROM {t}" for t in ("debates",) + DEBATE_TABLES + pack_tables + AUDIT_TABLES}
        for table, sql in queries.items():
            con.execute(f"COPY ({sql}) TO {_lit(folder / (table + '.parquet'))} (FORMAT parquet)")
    return folder


# -------------------------------------------------------------------- driver


def export_debate(archive, debate_id: str, fmt: str, out: Optional[str | Path] = None):
    """Export one archived debate.  Returns the text for md / json / ipynb when ``out`` is
    None, else the path written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "parquet":
        return write_parquet(archive, None if debate_id == "all" else debate_id, out)
    debate = archive.get_debate(debate_id)
    if fmt == "debate-dir":
        return write_debate_dir(debate, out)
    if fmt == "md":
        text = render_md(debate)
    elif fmt == "json":
        text = to_json_text(debate)
    else:
        text = notebook_text(debate, archive.path)
    if out is None:
        return text
    path = Path(out).expanduser()
    if path.is_dir():
        path = path / f"{debate.id}.{'md' if fmt == 'md' else fmt}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
