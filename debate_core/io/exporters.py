"""Exporters: a debate record to JSON, Markdown, a notebook, an HTML page, Parquet or a debate folder.

* ``json``: :func:`to_json_dict` — the Debate model plus verdict scores by label (and, exported
  from the archive, the debate's ``audience_vote`` when it had one);
  it round-trips through :mod:`debate_core.io.importers` exactly (docs/json-export.md).
* ``md``: the protocol's own framework (its spec's ``render``, from
  :mod:`debate_core.protocols.registry`).  A master debate's Markdown lists, under each speech, its check
  findings (✗ failed / ? undecided / passed, the model audit apart) and its citation
  marks (✓已核对原文 / 仅经号 / ✗引文未核对), all in Chinese; the importer reads them back.
  ``plain=True`` asks the renderer for the seed's transcript exactly (a master debate: headings,
  speeches and the observation, without check blockquotes, citation-check lines or footer); a
  protocol whose renderer has no plain form refuses it.
* ``html``: one self-contained page for reading and print (:func:`debate_core.render.html.render_html`):
  inline CSS, no request of any kind, the debate's text escaped; ``ledger_of`` (a function of the
  debate, e.g. :func:`debate_core.analysis.ledger.build_ledger`, which this layer cannot import)
  adds the argument ledger to its analysis.
* ``ipynb``: a notebook that shows the debate and loads it from the archive to plot
  tokens per round with plotly.
* ``parquet``: the archive tables (rows of this debate, or everything) as Parquet files.
* ``debate-dir``: the topic-debate seed's ``<slug>.debate/`` folder with
  ``debate-log.md`` and ``verdict.md`` (a debate without a judge: its framework, and its
  neutral observation in ``verdict.md``).
"""

from __future__ import annotations

import inspect
import json
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from debate_core.errors import InputError
from debate_core.i18n import translator, trp
from debate_core.models import Debate
from debate_core.protocols import registry
from debate_core.render.judged import STATUS
from debate_core.render.safe import neutral_debate

FORMATS = ("md", "json", "ipynb", "html", "parquet", "debate-dir")
SLUG_LIMIT = 40


def to_json_dict(debate: Debate, votes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The workbench's JSON export: the Debate model, plus verdict scores by label, plus ``audience_vote``
    when the debate had one (``votes``: :meth:`debate_core.archive.Archive.vote_results`; an import
    ignores it)."""
    data = debate.model_dump(mode="json")
    if debate.verdict is not None:
        data["verdict"]["scores"] = debate.verdict.scores
    if votes:
        data["audience_vote"] = votes
    return data


def to_json_text(debate: Debate, votes: dict[str, Any] | None = None) -> str:
    return json.dumps(to_json_dict(debate, votes), ensure_ascii=False, indent=2) + "\n"


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


# ---------------------------------------------------------- debate folders


def _cell(text: Any) -> str:
    return str(text if text is not None else "").replace("\n", " ").replace("|", "｜").strip()


def _id_mark(debate: Debate) -> str:
    return f"<!-- debate-workbench id={debate.id} protocol={debate.protocol} -->"


def _observation_md(debate: Debate) -> str:
    """``verdict.md`` of a debate without a judge: its neutral observation (or its status)."""
    from debate_core.render.master import OBSERVATION_HEADING, status_zh

    out = [f"# 中立观察：{debate.topic}", "", _id_mark(debate), ""]
    o = debate.observation
    if o is None:
        out.append(f"> 状态：{status_zh(debate.status)}（{debate.stop_reason}）")
    else:
        out += [
            f"### {OBSERVATION_HEADING}",
            f"- 分歧本质：{o.divergence}",
            f"- 共识点：{o.consensus}",
            f"- 留给读者：{o.to_reader}",
        ]
    return "\n".join(out).rstrip() + "\n"


def write_debate_dir(debate: Debate, out: str | Path | None = None) -> Path:
    """Write ``<slug>.debate/`` (debate-log.md + verdict.md) under ``out`` (default: the
    current folder); ``out`` ending in ``.debate`` is used as the folder itself."""
    base = Path(out).expanduser() if out else Path.cwd()
    folder = base if base.name.endswith(".debate") else base / f"{slugify(debate.topic)}.debate"
    folder.mkdir(parents=True, exist_ok=True)
    spec = registry.get(debate.protocol)
    view = neutral_debate(debate)  # untrusted text as inert Markdown (no live image or link)
    if spec.judged:
        from debate_core.render.judged import debate_log_md, verdict_md

        log, verdict = debate_log_md(view), verdict_md(view)
        if debate.id not in log:
            log = log.rstrip() + f"\n\n{_id_mark(debate)}\n"
    else:
        log = spec.render(view).rstrip() + f"\n\n{_id_mark(debate)}\n"
        verdict = _observation_md(view)
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

    spec = registry.get(debate.protocol)
    names = ", ".join(p.name or p.label for p in debate.participants)
    played = len({s.round for s in debate.rounds})
    lang = "zh" if spec.app_in_chinese else "en"  # a master debate's notebook is Chinese throughout
    _ = translator(lang)
    rows = [
        (trp(lang, "notebook", "id"), f"`{debate.id}`"),
        (trp(lang, "notebook", "protocol"), spec.title if spec.app_in_chinese else debate.protocol),
        (
            trp(lang, "notebook", "status"),
            (_(debate.status) if debate.status in STATUS else debate.status)
            + _(" ({text})", text=_cell(debate.stop_reason)),
        ),
        (trp(lang, "notebook", "participants"), _cell(names)),
        (trp(lang, "notebook", "models"), _cell(", ".join(debate.models))),
        (trp(lang, "notebook", "rounds"), f"{played} / {debate.planned_rounds}"),
        (trp(lang, "notebook", "created"), debate.created_at.isoformat()),
    ]
    head = f"# {debate.topic}\n\n| | |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in rows)
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
print(f"{{debate.topic}} — {{debate.status}}, {{len(debate.rounds)}} speeches, {{len(debate.llm_calls)}} model \
calls")"""
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
        v4.new_markdown_cell(spec.render(debate)),
        v4.new_markdown_cell("## " + _("Load the debate from the archive")),
        v4.new_code_cell(setup),
        v4.new_code_cell(table),
        v4.new_markdown_cell("## " + _("Tokens per round")),
        v4.new_code_cell(plot),
    ]
    nbformat.validate(nb)
    return nb


def notebook_text(debate: Debate, archive_path: str | Path) -> str:
    import nbformat

    return nbformat.writes(to_notebook(debate, archive_path))


# ------------------------------------------------------------------- parquet


def write_parquet(archive, debate_id: str | None, out: str | Path | None = None) -> Path:
    """The archive's tables as Parquet files in a folder (one file per table): the rows of
    one debate and its pack snapshot, or with ``debate_id`` None every row of every table
    (judge audits included)."""
    folder = (Path(out).expanduser() if out else Path.cwd() / f"{debate_id or 'archive'}.parquet").resolve()
    folder.mkdir(parents=True, exist_ok=True)
    archive.copy_to_parquet(folder, debate_id)
    return folder


# -------------------------------------------------------------------- driver


def markdown(debate: Debate, *, plain: bool = False) -> str:
    """The protocol's Markdown; ``plain`` the seed's transcript exactly, where its renderer has one.  Untrusted
    text is neutralised (render.safe): a viewer of the file fetches no image and follows no link of it."""
    debate = neutral_debate(debate)
    render = registry.get(debate.protocol).render
    if not plain:
        return render(debate)
    if "plain" not in inspect.signature(render).parameters:
        raise InputError(
            f"--plain: a {debate.protocol} debate's Markdown is already its own framework, with no "
            "check lines to leave out; export it without --plain"
        )
    return cast(Callable[..., str], render)(debate, plain=True)  # its signature has plain (checked above)


def html_text(debate: Debate, ledger_of: Callable[[Debate], Any] | None = None) -> str:
    """The self-contained HTML page; the ledger (when ``ledger_of`` is given and can read the debate)
    goes into its analysis."""
    from debate_core.render.html import render_html

    ledger = None
    if ledger_of is not None:
        try:
            ledger = ledger_of(debate)
        except Exception:  # noqa: BLE001 - the analysis is an extra: the page is whole without it
            ledger = None
    spec = registry.get(debate.protocol)
    kind = spec.title if debate.lang == "zh" else (spec.app_title or spec.title)
    return render_html(debate, ledger=ledger, kind=kind)


def export_debate(
    archive,
    debate_id: str,
    fmt: str,
    out: str | Path | None = None,
    *,
    plain: bool = False,
    ledger_of: Callable[[Debate], Any] | None = None,
):
    """Export one archived debate.  Returns the text for md / json / ipynb / html when ``out`` is
    None, else the path written.  ``plain`` (md only): the seed's transcript exactly; ``ledger_of``
    (html only): a function giving the debate's argument ledger for the page's analysis."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if plain and fmt != "md":
        raise InputError(f"--plain applies to --format md only, not {fmt}")
    if fmt == "parquet":
        return write_parquet(archive, None if debate_id == "all" else debate_id, out)
    debate = archive.get_debate(debate_id)
    if fmt == "debate-dir":
        return write_debate_dir(debate, out)
    if fmt == "md":
        text = markdown(debate, plain=plain)
    elif fmt == "json":  # with the debate's audience vote, when it had one
        votes = archive.vote_results(debate.id) if hasattr(archive, "vote_results") else None
        text = to_json_text(debate, votes)
    elif fmt == "html":
        text = html_text(debate, ledger_of)
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
