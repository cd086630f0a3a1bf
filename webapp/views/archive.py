"""The Archive page: filters over the debates, charts, ratings, the read-only SQL box and imports
of uploaded artifacts or a local folder.  Nothing here imports streamlit (the page caches what is
computed over the whole archive, keyed on :func:`archive_marker`)."""

from __future__ import annotations

import io
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_core.archive import SQL_EXAMPLES as EXAMPLE_QUERIES
from debate_core.io.importers import ImportResult, import_paths
from debate_core.protocols import registry
from debate_core.protocols.base import ASK_MASTERS
from webapp.i18n import N_, _
from webapp.views.common import debates_frame, plot_frame

STATUSES = ("running", "completed", "failed", "stopped", "interrupted")


def archive_marker(archive: Any) -> tuple:
    """A cheap change marker for caching what is computed over the whole archive: the number of
    debates, their last update, and the numbers of verdicts, judgments (panels' and audits') and
    published leaderboard rows."""
    return tuple(str(v) for v in archive.change_marker())


TOPIC_OPTIONS = 1000  # the topic filter offers the most debated topics (the text filter finds any other)


def filter_options(archive: Any) -> dict[str, Any]:
    """Distinct values for the Archive filters, in one query: masters (label), models, protocols,
    judges (panels' and verdicts'), the :data:`TOPIC_OPTIONS` most debated topics (``topics``: how
    many there are in all, as a one-item list); and the statuses.  ``names``: how the filters show a
    master (his name, not his id) and a model (the name a source gave it, where there is one)."""
    with_masters = [s.name for s in registry.specs() if s.asks_for(ASK_MASTERS)]
    df = archive.filter_values(with_masters, TOPIC_OPTIONS)
    out: dict[str, list[str]] = {"master": [], "model": [], "protocol": [], "judge": [], "topic": [], "topics": []}
    for kind, value in df.itertuples(index=False):
        if value:
            out[kind].append(str(value))
    for k in out:
        out[k] = sorted(set(out[k]))
    known = list(registry.names())
    out["protocol"] = known + [p for p in out["protocol"] if p not in known]
    out["status"] = list(STATUSES)
    names: dict[str, Any] = {"master": master_names(archive, out["master"]), "model": _model_names(archive)}
    return {**out, "names": names}


def master_names(archive: Any, wanted: list[str] | None = None) -> dict[str, str]:
    """master id -> name: from the pack snapshots the archive keeps, else the default pack's.  With
    ``wanted`` (the ids to name), the default pack is read only when a snapshot leaves one of them
    unnamed (reading it the first time takes most of a second)."""
    from webapp.views.common import load_pack

    out: dict[str, str] = {}
    try:
        hashes = [str(h) for h in archive.pack_snapshots()["pack_hash"]]
        df = archive.snapshot_rows("pack_masters", hashes)
        if len(df):
            out.update({str(s): str(n) for s, n in zip(df["slug"], df["name"]) if s and n})
    except Exception:  # noqa: BLE001 - an archive without snapshots: the default pack's names
        pass
    if wanted is not None and all(w in out for w in wanted):
        return out
    try:
        out.update({s: m.name for s, m in load_pack(None).masters.items() if s not in out})
    except Exception:  # noqa: BLE001 - no default pack: the ids
        pass
    return out


SIDES = ("pro", "con")
WINNERS = ("pro", "con", "draw")
SIDE_NAMES = {"pro": N_("PRO"), "con": N_("CON")}
WINNER_NAMES = {"pro": N_("the PRO side"), "con": N_("the CON side"), "draw": N_("a draw")}


def _clean(v: Any) -> Any:
    return None if v in (None, "", "all", "(any)") else v


def _filter_args(protocol=None, master=None, model=None, status=None, date_from=None, date_to=None, text=None,
                 lang=None, judge=None, side=None, winner=None, topic=None) -> dict[str, Any]:
    model = _clean(model)
    return dict(protocol=_clean(protocol), master=_clean(master), model=model, status=_clean(status),
                date_from=date_from, date_to=date_to, text=(text or "").strip() or None, lang=_clean(lang),
                judge=_clean(judge), side=_clean(side) if model else None, winner=_clean(winner),
                topic=_clean(topic))


def find_debates(archive: Any, *, protocol: str | None = None, master: str | None = None,
                 model: str | None = None, status: str | None = None, date_from: Any = None,
                 date_to: Any = None, text: str | None = None, limit: int = 500, lang: str | None = None,
                 judge: str | None = None, side: str | None = None, winner: str | None = None,
                 topic: str | None = None):
    """The Archive table: :meth:`Archive.list_debates` with the page's filters (``side`` counts only
    with a ``model``: the side that model argued), newest first, at most ``limit``; with a ``winner``
    column (the verdict's winner by name, "draw", or empty: no verdict) and the columns a reader
    looks at first (:data:`BROWSE_COLUMNS`) in front."""
    args = _filter_args(protocol, master, model, status, date_from, date_to, text, lang, judge, side, winner, topic)
    df = debates_frame(archive.list_debates(limit=limit, **args))
    df.insert(len(df.columns), "winner", [""] * len(df) if df.empty else winner_names(archive, list(df["id"])))
    return df[[c for c in BROWSE_COLUMNS if c in df.columns] + [c for c in df.columns if c not in BROWSE_COLUMNS]]


BROWSE_COLUMNS = ("created_at", "topic", "winner", "participants", "protocol", "status", "rounds", "lang", "models",
                  "tokens", "cost", "id")


def winner_names(archive: Any, ids: list[str]) -> list[str]:
    """The verdict's winner of each debate, in the order of ``ids``: the winning participant's name
    (its label when it has none), "draw", or "" when the debate has no verdict (a master debate
    ends with an observation, not a winner)."""
    if not ids:
        return []
    df = archive.verdict_winners(ids)
    out: dict[str, str] = {}
    for did, won, name in df.itertuples(index=False):
        won = "" if won is None or won != won else str(won)
        if won == "draw":
            out[did] = _("draw")
        elif won:
            out[did] = str(name) if isinstance(name, str) and name else won
    return [out.get(i, "") for i in ids]


def protocol_name(name: Any) -> str:
    """A protocol's name as the app shows it (Master debate, Topic debate, Trial, Benchmark debate)."""
    name = "" if name is None else str(name)
    if name in registry.names():
        return _(registry.get(name).app_title)
    return _(OTHER_PROTOCOLS[name]) if name in OTHER_PROTOCOLS else name


OTHER_PROTOCOLS = {"benchmark": N_("Benchmark debate")}


def count_debates(archive: Any, **filters) -> int:
    """How many debates the same filters match in all (the table shows at most 500)."""
    filters.pop("limit", None)
    return int(archive.count_debates(**_filter_args(**filters)))


# -------------------------------------------------------------------- charts
# the Charts tab's bar charts: webapp.views.archive_charts (Vega-Lite); the names stay importable from here


def archive_charts(archive: Any, group: str | None = None, lang: str | None = None
                   ) -> tuple[dict[str, Any], list[str]]:
    """:func:`webapp.views.archive_charts.archive_charts` (the page's cache calls its views by name here)."""
    from webapp.views.archive_charts import archive_charts as charts

    return charts(archive, group, lang)


def _model_names(archive: Any) -> dict[str, str]:
    """model -> the display name a source gave it (benchmark imports), else nothing."""
    try:
        return {str(m): str(n) for m, n in archive.model_names().items() if m and n}
    except Exception:  # noqa: BLE001 - an older archive without the table: slugs then
        return {}


def ratings_tables(arc, bootstrap: int = 100):
    """Bradley-Terry ratings of models and stances from the archive's judged debates."""
    from debate_core.analysis.ratings import ratings_tables as _tables

    return _tables(arc, bootstrap=bootstrap)


def ratings_figure(table, title: str):
    """:func:`debate_core.analysis.ratings.ratings_figure`, its items (models, stances) HTML-escaped for plotly."""
    from debate_core.analysis.ratings import ratings_figure as _figure

    return _figure(plot_frame(table, "item"), title)


# ----------------------------------------------------------------------- SQL


SQL_EXAMPLE = EXAMPLE_QUERIES["by_protocol"]  # the query the box holds at first (the queries live in the archive)
SQL_HELP = N_("Read-only: one SELECT (or EXPLAIN / an informational PRAGMA) at a time over the tables listed "
            "beside the box. COPY, ATTACH, INSTALL/LOAD, file reads and writes and any change are refused.")


def run_sql(archive: Any, query: str):
    """The SQL box: :meth:`Archive.sql` (raises SqlRefused with a one-line reason)."""
    return archive.sql(query, max_rows=2000)


SQL_EXAMPLES = tuple((title, EXAMPLE_QUERIES[name]) for title, name in (
    # (msgid of the button, the name of the archive's example query it puts in the box)
    (N_("Debates by protocol and status"), "by_protocol"),
    (N_("Winners of judged debates"), "winners"),
    (N_("Failed checks by rule"), "failed_checks"),
    (N_("Longest speeches"), "longest_speeches"),
))

SQL_HIDDEN_TABLES = ("meta", "search_runs", "ledger_label_runs", "batch_claims")  # bookkeeping, not data


def sql_schema(archive: Any):
    """The tables the SQL box reads and their columns: one row per table (``table``, ``columns``
    as "name type, …"), the debates first, bookkeeping tables left out."""
    import pandas as pd

    df = archive.table_columns()
    first = ("debates", "speeches", "findings", "verdicts", "verdict_rows", "verdict_rounds", "observations",
             "summaries", "judgments", "llm_calls")
    rows = [(t, c) for t, c in df.itertuples(index=False) if t not in SQL_HIDDEN_TABLES]
    rows.sort(key=lambda r: (first.index(r[0]) if r[0] in first else len(first), r[0]))
    return pd.DataFrame(rows, columns=["table", "columns"])


def sql_error_line(exc: BaseException) -> str:
    """A refused or failed query as one line: DuckDB's own message (its first line, without a
    leading "SQL error:"), with what the box allows after a refusal."""
    from debate_core.jobs import one_line

    line = re.sub(r"^(SQL error:\s*)+", "", one_line(exc).strip())
    if line.lower().startswith("refused"):
        return line.rstrip(".") + ". " + _("Only one read-only SELECT runs at a time; COPY, ATTACH, INSTALL and "
                                          "file access are refused.")
    return line


# ------------------------------------------------------------------- imports


def _safe_rel(name: str) -> Path | None:
    """An uploaded name as a relative path (see :func:`debate_core.io.uploads.safe_rel`)."""
    from debate_core.io.uploads import safe_rel

    return safe_rel(name)


def stage_uploads(files: list[tuple[str, bytes]], root: Path) -> list[Path]:
    """Write uploaded (name, bytes) under ``root``; zips are unpacked (never outside it), streaming
    under the upload caps (:mod:`debate_core.io.uploads`: a cap hit is an InputError naming it).

    Returns the top-level entries to import: folders (an artifact folder) and files.
    """
    from debate_core.io.uploads import Budget, unpack_zip

    root = root.resolve()
    budget = Budget()
    for name, data in files:
        rel = _safe_rel(name)
        if rel is None:
            continue
        target = (root / rel).resolve()
        if root not in target.parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel.suffix.lower() == ".zip":
            unpack_zip(io.BytesIO(data), target.with_suffix(""), budget, label=name)
            continue
        budget.add_entry(name)
        budget.add_bytes(name, len(data), len(data))
        target.write_bytes(data)
    entries: list[Path] = []
    for p in sorted(root.iterdir()):
        if p.is_dir():
            # an unpacked zip holding one folder: import that folder
            kids = [k for k in p.iterdir()]
            entries.append(kids[0] if len(kids) == 1 and kids[0].is_dir() and kids[0].name.endswith(".debate")
                           else p)
        else:
            entries.append(p)
    return entries


class UploadError(ValueError):
    """An upload that cannot be imported; the message names the file (and line)."""


class ImportPathError(ValueError):
    """A local path that cannot be imported (none given, or nothing there)."""


@dataclass
class ImportReport:
    """What an import did: one line per debate (id · status · kind · topic · path) and one warning
    per skipped (malformed) file, naming the file and line."""

    lines: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # status -> debates

    SHOWN = 20  # lines listed in full; the rest are counted

    @property
    def summary(self) -> str:
        parts = [_(IMPORT_STATUS[k]).format(n=v) for k, v in self.counts.items() if k in IMPORT_STATUS and v]
        return ", ".join(parts) or _("nothing was imported")

    @property
    def shown_lines(self) -> list[str]:
        more = len(self.lines) - self.SHOWN
        return self.lines[:self.SHOWN] + ([_("… and {n} more").format(n=more)] if more > 0 else [])


IMPORT_STATUS = {"imported": N_("{n} imported"), "updated": N_("{n} updated"), "exists": N_("{n} already there"),
                 "skipped": N_("{n} files skipped")}


def _report(results: list[ImportResult], root: str = "") -> ImportReport:
    rep = ImportReport()
    for r in results:
        rep.counts[r.status] = rep.counts.get(r.status, 0) + 1
        if r.status == "skipped":
            msg = r.message or r.path
            rep.skipped.append(msg.replace(root + os.sep, "") if root else msg)
        else:
            rep.lines.append(_result_line(r, root))
    return rep


def import_uploads(archive: Any, files: list[tuple[str, bytes]]) -> ImportReport:
    """Import uploaded artifact files / folders / zips (a zip of a benchmark checkout too) with
    :func:`debate_core.io.importers.import_paths`: one line per debate, one warning per skipped file."""
    if not files:
        raise UploadError(_("choose files or a folder to import first"))
    with tempfile.TemporaryDirectory(prefix="debate-import-") as tmp:
        root = str(Path(tmp).resolve())
        try:
            paths = stage_uploads(files, Path(tmp))
        except ValueError as exc:  # a cap hit: one line naming the cap
            raise UploadError(str(exc)) from None
        if not paths:
            raise UploadError(_("nothing importable in the upload (empty or unsafe file names)"))
        try:
            results = import_paths(archive, [str(p) for p in paths])
        except Exception as exc:  # noqa: BLE001 - shown with the uploaded names, not the staging folder
            from debate_core.jobs import one_line

            raise UploadError(one_line(exc).replace(root + os.sep, "").replace(tmp + os.sep, "")) from None
        return _report(results, root)


def import_local(archive: Any, path: str) -> ImportReport:
    """Import a folder (a benchmark checkout, an artifact folder, a folder of exports) or a file on
    the machine running the app, with :func:`debate_core.io.importers.import_paths`."""
    raw = (path or "").strip().strip('"').strip("'")
    if not raw:
        raise ImportPathError(_("type the path of a folder on this machine first"))
    p = Path(raw).expanduser()
    if not p.exists():
        raise ImportPathError(_("nothing at {path}").format(path=p))
    return _report(import_paths(archive, [str(p)]))


def _result_line(r: ImportResult, root: str) -> str:
    """id · status · kind · topic · path (the path relative to the staging folder)."""
    line = " · ".join(str(v) for v in (r.id, r.status, r.kind, r.topic, r.path))
    return line.replace(root + os.sep, "") if root else line
