"""The Archive page: filters over the debates, charts, ratings, the read-only SQL box and imports
of uploaded artifacts or a local folder.  Nothing here imports streamlit (the page caches what is
computed over the whole archive, keyed on :func:`archive_marker`)."""

from __future__ import annotations

import io
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

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
    row = archive.query("SELECT (SELECT count(*) FROM debates), (SELECT max(updated_at) FROM debates), "
                        "(SELECT count(*) FROM verdicts), (SELECT count(*) FROM judgments), "
                        "(SELECT count(*) FROM audit_judgments), (SELECT count(*) FROM leaderboards)")
    return tuple(str(v) for v in row.iloc[0].tolist())


TOPIC_OPTIONS = 1000  # the topic filter offers the most debated topics (the text filter finds any other)


def filter_options(archive: Any) -> dict[str, list[str]]:
    """Distinct values for the Archive filters, in one query: masters (label), models, protocols,
    judges (panels' and verdicts'), the :data:`TOPIC_OPTIONS` most debated topics (``topics``: how
    many there are in all, as a one-item list); and the statuses."""
    with_masters = [s.name for s in registry.specs() if s.asks_for(ASK_MASTERS)]
    df = archive.query("""
        SELECT 'master' AS kind, l AS value FROM (SELECT DISTINCT unnest(labels) AS l FROM debates
             WHERE list_contains(?::VARCHAR[], protocol))
        UNION ALL SELECT 'model', m FROM (SELECT DISTINCT unnest(models) AS m FROM debates)
        UNION ALL SELECT 'protocol', p FROM (SELECT DISTINCT protocol AS p FROM debates)
        UNION ALL SELECT 'judge', j FROM (SELECT DISTINCT judge AS j FROM judgments
                                          UNION SELECT DISTINCT judge FROM verdicts)
        UNION ALL SELECT 'topic', t FROM (SELECT topic AS t FROM debates GROUP BY topic
                                          ORDER BY count(*) DESC, topic LIMIT ?)
        UNION ALL SELECT 'topics', count(DISTINCT topic)::VARCHAR FROM debates""", [with_masters, TOPIC_OPTIONS])
    out: dict[str, list[str]] = {"master": [], "model": [], "protocol": [], "judge": [], "topic": [], "topics": []}
    for kind, value in df.itertuples(index=False):
        if value:
            out[kind].append(str(value))
    for k in out:
        out[k] = sorted(set(out[k]))
    known = list(registry.names())
    out["protocol"] = known + [p for p in out["protocol"] if p not in known]
    out["status"] = list(STATUSES)
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


def find_debates(archive: Any, *, protocol: Optional[str] = None, master: Optional[str] = None,
                 model: Optional[str] = None, status: Optional[str] = None, date_from: Any = None,
                 date_to: Any = None, text: Optional[str] = None, limit: int = 500, lang: Optional[str] = None,
                 judge: Optional[str] = None, side: Optional[str] = None, winner: Optional[str] = None,
                 topic: Optional[str] = None):
    """The Archive table: :meth:`Archive.list_debates` with the page's filters (``side`` counts only
    with a ``model``: the side that model argued), newest first, at most ``limit``."""
    args = _filter_args(protocol, master, model, status, date_from, date_to, text, lang, judge, side, winner, topic)
    return debates_frame(archive.list_debates(limit=limit, **args))


def count_debates(archive: Any, **filters) -> int:
    """How many debates the same filters match in all (the table shows at most 500)."""
    filters.pop("limit", None)
    return int(archive.count_debates(**_filter_args(**filters)))


# -------------------------------------------------------------------- charts


def _empty_fig(title: str, note: str = ""):
    import plotly.graph_objects as go

    note = note or _("nothing in the archive yet")
    fig = go.Figure()
    fig.update_layout(title=title, height=300, margin=dict(l=10, r=10, t=40, b=10),
                      annotations=[dict(text=note, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")],
                      xaxis=dict(visible=False), yaxis=dict(visible=False))
    return fig


def _labels(*names: str) -> dict[str, str]:
    """Axis and legend titles (the frame's column names) in the app's language."""
    return {n: _(n) for n in names}


def _layout(fig, height: int = 320):
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=40, b=10), legend_title_text="")
    return fig


CHART_GROUPS = {  # the keys are msgids: the page shows them translated
    N_("Activity"): ("over_time", "rounds"),
    N_("Tokens & cost"): ("tokens", "cost"),
    N_("Check failures"): ("fail_rule", "fail_master"),
    N_("Winners (judged)"): ("win_stance", "win_model"),
}


def archive_figures(archive: Any, group: Optional[str] = None) -> dict[str, Any]:
    """The Archive page's charts over the whole archive: one group of :data:`CHART_GROUPS`, or all.
    Names (models, masters, stances, rules, protocols) reach plotly HTML-escaped (:func:`plot_frame`)."""
    import plotly.express as px

    want = set(CHART_GROUPS.get(group, ())) if group else {k for v in CHART_GROUPS.values() for k in v}
    figs: dict[str, Any] = {}
    if want & {"over_time"}:
        t = archive.debates_over_time("day")
        if len(t):
            figs["over_time"] = _layout(px.bar(plot_frame(t, "protocol"), x="period", y="debates", color="protocol",
                                               title=_("Debates over time (per day)"),
                                               labels=_labels(N_("debates"), N_("protocol"))))
            figs["over_time"].update_xaxes(type="date", tickformat="%Y-%m-%d", title="")
        else:
            figs["over_time"] = _empty_fig(_("Debates over time"))

    if want & {"tokens", "cost"}:
        tok = archive.tokens_by_model()
        if len(tok) and (tok["tokens"].fillna(0).sum() > 0 or tok["cost"].fillna(0).sum() > 0):
            # input split into what providers served from their prompt cache and the rest
            tok = plot_frame(tok, "model")  # names in legends, ticks and hovers: HTML-escaped for plotly
            cached = tok["cached_tokens"].fillna(0) if "cached_tokens" in tok else 0
            parts = {_("input, cached"): cached, _("input, not cached"): tok["prompt_tokens"].fillna(0) - cached,
                     _("output"): tok["completion_tokens"].fillna(0)}
            bars = tok[["model"]].assign(**parts)
            figs["tokens"] = _layout(px.bar(bars, x="model", y=list(parts), title=_("Tokens by model"),
                                            barmode="stack",
                                            labels=_labels(N_("model"), N_("value"), N_("variable"))))
            figs["cost"] = _layout(px.bar(tok, x="model", y="cost", title=_("Cost by model (USD)"),
                                          labels=_labels(N_("model"), N_("cost"))))
        else:
            note = _("no tokens recorded yet (the offline engine uses none)")
            figs["tokens"] = _empty_fig(_("Tokens by model"), note)
            figs["cost"] = _empty_fig(_("Cost by model (USD)"), note)

    if want & {"rounds"}:
        r = archive.rounds_per_debate()
        if len(r):
            counts = r.assign(rounds=r["rounds"].fillna(0).astype("int64")).groupby(
                ["protocol", "rounds"], as_index=False).size().rename(columns={"size": "debates"})
            figs["rounds"] = _layout(px.bar(plot_frame(counts, "protocol"), x="rounds", y="debates", color="protocol",
                                            barmode="group",
                                            title=_("Rounds per debate (rounds played)"),
                                            labels=_labels(N_("rounds"), N_("debates"), N_("protocol"))))
        else:
            figs["rounds"] = _empty_fig(_("Rounds per debate"))

    if want & {"fail_rule", "fail_master"}:
        f = archive.check_failures()
        if len(f):
            by_rule = f.groupby("rule", as_index=False)["count"].sum().sort_values("count", ascending=False)
            f = f.assign(master=f["speaker_name"].fillna(f["speaker"]))
            by_master = f.groupby(["master", "rule"], as_index=False)["count"].sum()
            by_rule, by_master = plot_frame(by_rule, "rule"), plot_frame(by_master, "master", "rule")
            figs["fail_rule"] = _layout(px.bar(by_rule, x="rule", y="count", title=_("Check failures by rule"),
                                               labels=_labels(N_("rule"), N_("count"))))
            figs["fail_master"] = _layout(px.bar(by_master, x="master", y="count", color="rule",
                                                 title=_("Check failures by master"),
                                                 labels=_labels(N_("master"), N_("count"), N_("rule"))))
        else:
            note = _("no failed check recorded")
            figs["fail_rule"] = _empty_fig(_("Check failures by rule"), note)
            figs["fail_master"] = _empty_fig(_("Check failures by master"), note)

    if want & {"win_stance", "win_model"}:
        w = archive.winners()
        if len(w):
            w = w.assign(stance=w["stance"].fillna("(none)").replace("", "(none)"),
                         model=w["model"].fillna("(unknown)").replace("", "(unknown)"),
                         winner=w["winner"].fillna("no winner"))
            st_counts = w.groupby(["protocol", "stance"], as_index=False).size().rename(columns={"size": "wins"})
            md_counts = w.groupby(["protocol", "model"], as_index=False).size().rename(columns={"size": "wins"})
            st_counts = plot_frame(st_counts, "protocol", "stance")
            md_counts = plot_frame(md_counts, "protocol", "model")
            figs["win_stance"] = _layout(px.bar(st_counts, x="stance", y="wins", color="protocol",
                                                title=_("Judged debates: wins by stance"),
                                                labels=_labels(N_("stance"), N_("wins"), N_("protocol"))))
            figs["win_model"] = _layout(px.bar(md_counts, x="model", y="wins", color="protocol",
                                               title=_("Judged debates: wins by model"),
                                               labels=_labels(N_("model"), N_("wins"), N_("protocol"))))
        else:
            note = _("no judged debate yet")
            figs["win_stance"] = _empty_fig(_("Judged debates: wins by stance"), note)
            figs["win_model"] = _empty_fig(_("Judged debates: wins by model"), note)
    return {k: v for k, v in figs.items() if k in want}


def ratings_tables(arc, bootstrap: int = 100):
    """Bradley-Terry ratings of models and stances from the archive's judged debates."""
    from debate_core.analysis.ratings import ratings_tables as _tables

    return _tables(arc, bootstrap=bootstrap)


def ratings_figure(table, title: str):
    """:func:`debate_core.analysis.ratings.ratings_figure`, its items (models, stances) HTML-escaped for plotly."""
    from debate_core.analysis.ratings import ratings_figure as _figure

    return _figure(plot_frame(table, "item"), title)


# ----------------------------------------------------------------------- SQL


SQL_EXAMPLE = "SELECT protocol, status, count(*) AS debates FROM debates GROUP BY ALL ORDER BY debates DESC"
SQL_HELP = N_("Read-only: one SELECT (or EXPLAIN / an informational PRAGMA) at a time over the tables debates, "
            "speeches, summaries, observations, verdicts, verdict_rows, verdict_rounds, llm_calls, findings, "
            "packs, pack_masters, pack_sources, pack_critiques. COPY, ATTACH, INSTALL/LOAD, file reads and "
            "writes and any change are refused.")


def run_sql(archive: Any, query: str):
    """The SQL box: :meth:`Archive.sql` (raises SqlRefused with a one-line reason)."""
    return archive.sql(query, max_rows=2000)


# ------------------------------------------------------------------- imports


def _safe_rel(name: str) -> Optional[Path]:
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
