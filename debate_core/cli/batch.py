"""CLI commands for research at scale: ``batch``, ``audit``, ``ratings``, ``analytics``.

``debate_core.cli`` loads :data:`COMMANDS` from here.
"""

from __future__ import annotations

import json
import os
import sys

from debate_core.cli.main import count_int, positive_int

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _archive_arg(p) -> None:
    p.add_argument("--archive", help="archive file (default: $DEBATE_ARCHIVE or data/archive.duckdb)")


def _open(args, create: bool = True):
    from debate_core.archive import open_archive

    return open_archive(getattr(args, "archive", None) or os.environ.get("DEBATE_ARCHIVE") or None, create=create)


def _print_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def _frame_md(df, max_rows: int = 200) -> str:
    if df is None or len(df) == 0:
        return "(none)\n"
    df = df.head(max_rows)
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for row in df.itertuples(index=False):
        cells = []
        for v in row:
            if isinstance(v, float):
                cells.append(
                    "" if v != v else f"{v:.3g}" if abs(v) < 100 else f"{v:.1f}" if abs(v) < 1e4 else f"{v:.0f}"
                )
            else:
                cells.append(str(v).replace("|", "\\|").replace("\n", " "))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------ batch


def add_batch(sub) -> None:
    p = sub.add_parser(
        "batch",
        help="run a grid of debates from a YAML/JSON spec (resumable)",
        description="Run a grid of debates (topics × pairs or stances × models × repeats) into the "
        "archive. Rerunning the same spec skips finished cells. See docs/batch.md.",
    )
    p.add_argument("spec", help="batch spec file (.yaml, .yml or .json)")
    _archive_arg(p)
    p.add_argument("--concurrency", type=positive_int(10_000), help="debates at a time (overrides the spec)")
    p.add_argument(
        "--processes",
        type=_processes_arg,
        metavar="N|auto",
        help="worker processes that run the debates (1: all in this process; auto: one per core when "
        "concurrency is 16 or more; overrides the spec). docs/batch.md",
    )
    p.add_argument("--dry-run", action="store_true", help="list the cells and what a run would do; run nothing")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.add_argument("--audit-out", help="with `audit: true`: also write the audit's judgments to this CSV file")
    p.add_argument(
        "--ray",
        metavar="auto|ADDRESS",
        help="run each debate as a Ray task on a cluster (auto: this machine's cluster, else a local "
        "Ray instance); this process writes the archive. Needs requirements-ray.txt; docs/scale.md",
    )
    p.add_argument("--format", choices=("md", "json"), default="md")


def _processes_arg(text: str) -> int | str:
    """``--processes``: ``auto`` or a whole number 1 … MAX_PROCESSES."""
    from debate_core.batch.spec import MAX_PROCESSES

    if text.strip().lower() == "auto":
        return "auto"
    value = positive_int(MAX_PROCESSES)(text)
    assert isinstance(value, int)  # (positive_int parses whole numbers)
    return value


def run_batch_cmd(args) -> int:
    from debate_core.batch import BatchRunner, load_spec

    spec = load_spec(args.spec)
    runner: BatchRunner
    if getattr(args, "ray", None):
        from debate_core.batch.ray_runner import RayBatchRunner, import_ray

        if args.processes is not None:
            from debate_core.errors import InputError

            raise InputError("--processes is for a batch on this machine; with --ray each debate is a Ray task")

        import_ray()  # no Ray: one line, before the archive is opened
        runner = RayBatchRunner(
            spec, _open(args), address=args.ray, concurrency=args.concurrency, progress=not args.quiet
        )
    else:
        runner = BatchRunner(
            spec, _open(args), concurrency=args.concurrency, progress=not args.quiet, processes=args.processes
        )
    if spec.deployments and not args.dry_run:
        # a bad router or an unreachable Redis: one line and exit 2, before any debate (a batch that forks
        # worker processes builds its router after the fork, and checks here what can be checked before)
        if not getattr(args, "ray", None) and runner.processes_for(runner.cells()) > 1:
            from debate_core.batch.router import check_router_settings

            check_router_settings(spec)
        else:
            _ = runner.router
    if args.dry_run:
        plan = runner.plan()
        if args.format == "json":
            _print_json({"batch_id": runner.batch_id, "cells": plan.to_dict(orient="records")})
        else:
            counts = plan["action"].value_counts().to_dict() if len(plan) else {}
            sys.stdout.write(
                f"# batch {runner.batch_id}: {len(plan)} cells "
                f"({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))})\n\n"
            )
            cols = [
                "cell",
                "action",
                "topic",
                "masters",
                "stances",
                "models",
                "judge_model",
                "repeat",
                "swap",
                "debate_id",
            ]
            sys.stdout.write(_frame_md(plan[[c for c in cols if c in plan.columns]], max_rows=10_000))
        return EXIT_OK
    result = runner.run()
    if result.audit is not None and args.audit_out:
        result.audit.judgments.to_csv(args.audit_out, index=False)
    if args.format == "json":
        data = {"summary": result.summary(), "cells": result.frame().to_dict(orient="records")}
        if result.audit is not None:
            data["audit"] = result.audit.summary
        _print_json(data)
    else:
        sys.stdout.write(result.to_markdown())
    return EXIT_OK if result.ok else EXIT_FAIL


# ------------------------------------------------------------------------ audit


def add_audit(sub) -> None:
    p = sub.add_parser("audit", help="re-judge judged debates with swapped labels/order and a judge panel")
    _archive_arg(p)
    p.add_argument("--batch", help="audit the judged debates of this batch")
    p.add_argument("--debate", action="append", default=[], help="a debate id (repeatable)")
    p.add_argument("--judges", help="panel of judge models, comma-separated (default: each debate's own judge)")
    p.add_argument(
        "--variants",
        default="original,relabel,reorder",
        help="original, relabel (labels permuted), reorder (presentation order reversed)",
    )
    p.add_argument("--api-base", help="OpenAI-compatible server for the judges")
    p.add_argument("--concurrency", type=positive_int(10_000), default=4)
    p.add_argument("--out", help="write every judgment to this CSV file")
    p.add_argument("--format", choices=("md", "json"), default="md")


def run_audit_cmd(args) -> int:
    from debate_core.analysis.audit import audit_archive
    from debate_core.errors import InputError

    if not args.batch and not args.debate:
        raise InputError("name what to audit: --batch ID or --debate ID")
    judges = [j.strip() for j in (args.judges or "").split(",") if j.strip()] or None
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    report = audit_archive(
        _open(args, create=False),
        batch_id=args.batch,
        debate_ids=args.debate or None,
        judges=judges,
        variants=variants,
        api_base=args.api_base,
        concurrency=args.concurrency,
    )
    if args.out:
        report.judgments.to_csv(args.out, index=False)
    sys.stderr.write(
        f"audit {report.audit_id} stored: {len(report.judgments)} judgments, {len(report.calls)} judge "
        "calls (tables audits, audit_judgments, audit_calls)\n"
    )
    if args.format == "json":
        _print_json(
            {
                "audit_id": report.audit_id,
                "summary": report.summary,
                "per_debate": report.per_debate.to_dict(orient="records"),
            }
        )
    else:
        sys.stdout.write(report.to_markdown())
    return EXIT_OK


# ---------------------------------------------------------------------- ratings


def add_ratings(sub) -> None:
    p = sub.add_parser("ratings", help="Bradley-Terry ratings of models or stances from judged debates")
    _archive_arg(p)
    p.add_argument("--by", choices=("model", "stance", "label"), default="model")
    p.add_argument("--batch", help="only the debates of this batch")
    p.add_argument("--protocol", choices=("topic", "trial", "benchmark"))
    p.add_argument(
        "--bootstrap", type=count_int(100_000), default=200, help="bootstrap resamples for the intervals (0: none)"
    )
    p.add_argument(
        "--judgments",
        action="store_true",
        help="rate models over per-judge judgments in side-swapped matchups (imported benchmark panels, "
        "our own judges) instead of one verdict per debate; `judges` shows the judge analysis too",
    )
    p.add_argument("--format", choices=("md", "json"), default="md")


def _judgment_ratings(args, archive) -> int:
    from debate_core.analysis import judgments as J

    frame = J.judgments_frame(archive, protocol=args.protocol)
    table = J.matchup_ratings(frame, names=J.model_names(archive), bootstrap=args.bootstrap)
    published = J.leaderboard(archive)
    agreement = J.rank_agreement(table, published) if len(published) else None
    if args.format == "json":
        _print_json({"ratings": table.to_dict(orient="records"), "published_agreement": agreement})
    else:
        sys.stdout.write(f"# Bradley-Terry over side-swapped matchups — {len(frame)} judgments\n\n")
        sys.stdout.write(_frame_md(table))
        if agreement:
            sys.stdout.write(
                f"\nAgainst the published leaderboard ({agreement['models']} models): "
                f"Spearman {agreement['spearman']}, Kendall {agreement['kendall']}\n"
            )
    return EXIT_OK


def run_ratings_cmd(args) -> int:
    from debate_core.analysis.ratings import outcomes_from_archive, ratings_from_archive, win_rate_table

    archive = _open(args, create=False)
    if args.judgments:
        return _judgment_ratings(args, archive)
    outcomes = outcomes_from_archive(archive, by=args.by, batch_id=args.batch, protocol=args.protocol)
    if not len(outcomes):
        from debate_core.analysis import judgments as J

        judged = len(J.judgments_frame(archive, protocol=args.protocol))
        if judged and args.by == "model" and not args.batch:
            sys.stderr.write(
                f"no single verdicts to rate; rating over the {judged} per-judge judgments instead "
                "(as with --judgments)\n"
            )
            return _judgment_ratings(args, archive)
        if judged:
            sys.stderr.write(
                f"0 pairwise outcomes from single verdicts; the archive holds {judged} per-judge "
                "judgments: pass --judgments (they rate models only, over the whole archive)\n"
            )
    table = ratings_from_archive(
        archive, by=args.by, batch_id=args.batch, protocol=args.protocol, bootstrap=args.bootstrap
    )
    wins = win_rate_table(outcomes)
    if args.format == "json":
        _print_json(
            {
                "ratings": table.to_dict(orient="records"),
                "win_rates": {
                    str(k): {str(c): (None if v != v else v) for c, v in row.items()}
                    for k, row in wins.to_dict(orient="index").items()
                },
            }
        )
    else:
        sys.stdout.write(
            f"# Bradley-Terry ratings by {args.by}"
            + (f" (batch {args.batch})" if args.batch else "")
            + f" — {len(outcomes)} pairwise outcomes\n\n"
        )
        sys.stdout.write(_frame_md(table))
        sys.stdout.write("\n## win rate of row against column\n\n")
        sys.stdout.write(_frame_md(wins.reset_index()))
    return EXIT_OK


# -------------------------------------------------------------------- analytics


def add_analytics(sub) -> None:
    p = sub.add_parser("analytics", help="master-debate analytics per master or per pair")
    _archive_arg(p)
    p.add_argument("--by", choices=("master", "pair"), default="master")
    p.add_argument("--batch", help="only the debates of this batch")
    p.add_argument("--pack", help="pack for the coverage gaps (default: the archive's latest snapshot)")
    p.add_argument("--format", choices=("md", "json"), default="md")


def run_analytics_cmd(args) -> int:
    from debate_core.analysis import analytics

    archive = _open(args, create=False)
    report = analytics.report(archive, by=args.by, batch_id=args.batch, pack=args.pack)
    if args.format == "json":
        _print_json({k: v.to_dict(orient="records") for k, v in report.items()})
        return EXIT_OK
    for name, df in report.items():
        sys.stdout.write(f"## {name.replace('_', ' ')}\n\n")
        sys.stdout.write(_frame_md(df))
        sys.stdout.write("\n")
    return EXIT_OK


COMMANDS = {
    "batch": (add_batch, run_batch_cmd),
    "audit": (add_audit, run_audit_cmd),
    "ratings": (add_ratings, run_ratings_cmd),
    "analytics": (add_analytics, run_analytics_cmd),
}

__all__ = ["COMMANDS"]
