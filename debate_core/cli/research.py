"""Research commands over archived judgments and arguments: ``ledger`` and ``judges``.

    python -m debate_core ledger ID --format json|md      one debate's claims, attacks, dropped claims
    python -m debate_core ledger --by-model               dropped-claim rates per model over the archive
    python -m debate_core judges                          judge agreement, side bias, margins, matchup ratings
"""

from __future__ import annotations

import sys

from debate_core.cli.batch import _archive_arg, _frame_md, _open, _print_json
from debate_core.cli.main import EXIT_OK, EXIT_USAGE
from debate_core.protocols import registry


def add_ledger(sub) -> None:
    p = sub.add_parser("ledger", help="the argument ledger of a debate (claims, attacks, dropped claims), "
                                      "or dropped-claim rates per model (--by-model)")
    p.add_argument("id", nargs="?", help="debate id")
    p.add_argument("--by-model", action="store_true", help="dropped-claim rates per model over the archive")
    p.add_argument("--protocol", choices=registry.stored_names(), help="with --by-model: only this protocol")
    p.add_argument("--format", choices=("json", "md"), default="md")
    _archive_arg(p)


def run_ledger(args) -> int:
    from debate_core.analysis.ledger import build_ledger, dropped_rates, ledger_json, ledger_markdown

    archive = _open(args, create=False)
    if args.by_model:
        ids = list(archive.list_debates(protocol=args.protocol, limit=10**9, mark=False)["id"])
        table = dropped_rates(archive.get_debates(ids))
        if args.format == "json":
            _print_json(table.to_dict(orient="records"))
        else:
            sys.stdout.write(f"# Dropped-claim rates per model ({len(ids)} debates)\n\n" + _frame_md(table))
        return EXIT_OK
    if not args.id:
        sys.stderr.write("error: ledger needs a debate ID (or --by-model)\n")
        return EXIT_USAGE
    try:
        debate = archive.get_debate(args.id)
    except KeyError as exc:
        sys.stderr.write(f"error: {exc.args[0]}\n")
        return EXIT_USAGE
    ledger = build_ledger(debate)
    if args.format == "json":
        _print_json(ledger_json(ledger))
    else:
        sys.stdout.write(ledger_markdown(ledger))
    return EXIT_OK


def add_judges(sub) -> None:
    p = sub.add_parser("judges", help="per-judge judgments: agreement matrix, side bias, margin distribution, "
                                      "and Bradley-Terry over side-swapped matchups")
    p.add_argument("--template", help="only the judgments of this judging template")
    p.add_argument("--bootstrap", type=int, default=200, help="bootstrap resamples for the rating intervals")
    p.add_argument("--all-groups", action="store_true",
                   help="rate every matchup, not only those where each model argued both sides")
    p.add_argument("--format", choices=("md", "json"), default="md")
    _archive_arg(p)


def run_judges(args) -> int:
    from debate_core.analysis import judgments as J

    archive = _open(args, create=False)
    frame = J.judgments_frame(archive, template=args.template)
    names = J.model_names(archive)
    ratings = J.matchup_ratings(frame, names=names, complete_only=not args.all_groups, bootstrap=args.bootstrap)
    published = J.leaderboard(archive, template=args.template)
    agreement = J.rank_agreement(ratings, published) if len(published) else None
    share, common = J.agreement_matrix(frame)
    bias = J.side_bias(frame)
    margins = J.margin_distribution(frame)
    if args.format == "json":
        _print_json({"judgments": len(frame), "ratings": ratings.to_dict(orient="records"),
                     "published_agreement": agreement,
                     "agreement": {j: {k: (None if v != v else v) for k, v in row.items()}
                                   for j, row in share.to_dict(orient="index").items()},
                     "common": common.to_dict(orient="index"), "side_bias": bias.to_dict(orient="records"),
                     "margins": margins.to_dict(orient="records")})
        return EXIT_OK
    out = sys.stdout
    out.write(f"# Judges — {len(frame)} judgments, {frame['debate_id'].nunique() if len(frame) else 0} debates\n\n")
    out.write("## Bradley-Terry over side-swapped matchups\n\n" + _frame_md(ratings))
    if agreement:
        out.write(f"\nAgainst the published leaderboard ({agreement['models']} models): Spearman "
                  f"{agreement['spearman']}, Kendall {agreement['kendall']}\n")
    out.write("\n## Agreement (share of common debates with the same winner)\n\n" + _frame_md(share.reset_index()))
    out.write("\n## Side bias (PRO win rate among decisive judgments, 95% Wilson interval)\n\n" + _frame_md(bias))
    out.write("\n## Margin distribution (absolute normalized margin)\n\n" + _frame_md(margins))
    return EXIT_OK


COMMANDS = {"ledger": (add_ledger, run_ledger), "judges": (add_judges, run_judges)}
