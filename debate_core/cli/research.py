"""Research commands over archived judgments and arguments: ``ledger`` and ``judges``.

python -m debate_core ledger ID --format json|md      one debate's claims, attacks (with evidence), dropped
python -m debate_core ledger ID --model M             ... with attacks labelled by a model (cached in the archive)
python -m debate_core ledger --by-model               dropped-claim rates per model over the archive
python -m debate_core judges                          judge agreement, side bias, margins, matchup ratings
"""

from __future__ import annotations

import sys

from debate_core.cli.batch import _archive_arg, _frame_md, _open, _print_json
from debate_core.cli.main import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from debate_core.protocols import registry


def add_ledger(sub) -> None:
    p = sub.add_parser(
        "ledger",
        help="the argument ledger of a debate (claims, attacks with their evidence, dropped "
        "claims), or dropped-claim rates per model (--by-model)",
    )
    p.add_argument("id", nargs="?", help="debate id")
    p.add_argument(
        "--by-model",
        action="store_true",
        help="dropped-claim rates per model over the archive (the offline engine is no model and is left out)",
    )
    p.add_argument("--protocol", choices=registry.stored_names(), help="with --by-model: only this protocol")
    p.add_argument(
        "--evidence",
        default="explicit,inferred",
        help="the evidence attacks may rest on, comma-separated: explicit (cited ids, typed targets, "
        "speech plans; always read), inferred (the offline aligner), model (with --model); "
        "default explicit,inferred, plus model when --model is given",
    )
    p.add_argument(
        "--model",
        help="label attacks with this model (litellm model string); the labels are cached in the archive and reused",
    )
    p.add_argument("--api-base", help="with --model: an OpenAI-compatible server URL")
    p.add_argument("--refresh", action="store_true", help="with --model: ask the model again, ignoring cached labels")
    p.add_argument("--format", choices=("json", "md"), default="md")
    _archive_arg(p)


def _evidence(args) -> tuple[str, ...]:
    from debate_core.analysis.ledger import EVIDENCE

    kinds = [k.strip() for k in (args.evidence or "").split(",") if k.strip()]
    bad = [k for k in kinds if k not in EVIDENCE]
    if bad:
        raise ValueError(f"unknown evidence {', '.join(bad)} (choose from {', '.join(EVIDENCE)})")
    if args.model and "model" not in kinds:
        kinds.append("model")
    if "model" in kinds and not args.model:
        raise ValueError("--evidence model needs --model M")
    return tuple(dict.fromkeys(["explicit", *kinds]))


def run_ledger(args) -> int:
    from debate_core.analysis.judgments import model_names
    from debate_core.analysis.ledger import (
        build_ledger,
        dropped_rates,
        is_offline,
        ledger_json,
        ledger_markdown,
    )

    try:
        evidence = _evidence(args)
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    archive = _open(args, create=False)
    if args.by_model:
        if args.model:
            sys.stderr.write(
                "error: --by-model reads explicit and inferred evidence; label debates one by one "
                "with ledger ID --model M\n"
            )
            return EXIT_USAGE
        ids = list(archive.list_debates(protocol=args.protocol, limit=10**9, mark=False)["id"])
        debates = archive.get_debates(ids)
        offline = sorted({p.label for d in debates for p in d.participants if is_offline(p.model)})
        table = dropped_rates(debates, names=model_names(archive), evidence=evidence)
        if args.format == "json":
            _print_json(
                {
                    "evidence": list(evidence),
                    "debates": len(ids),
                    "rates": table.to_dict(orient="records"),
                    "left_out": {"offline_engine": offline},
                }
            )
        else:
            note = f"Evidence: {', '.join(evidence)}. The offline engine is no model and is left out" + (
                f" ({len(offline)} speakers it voiced)." if offline else "."
            )
            sys.stdout.write(f"# Dropped-claim rates per model ({len(ids)} debates)\n\n{note}\n\n" + _frame_md(table))
        return EXIT_OK
    if not args.id:
        sys.stderr.write("error: ledger needs a debate ID (or --by-model)\n")
        return EXIT_USAGE
    try:
        debate = archive.get_debate(args.id)
    except KeyError as exc:
        sys.stderr.write(f"error: {exc.args[0]}\n")
        return EXIT_USAGE
    labelling = None
    if args.model:
        from debate_core.analysis.ledger_model import cached_labels
        from debate_core.engines.gateway import GatewayError
        from debate_core.errors import ConfigError
        from debate_core.settings import resolve_api_base

        try:
            labelling = cached_labels(
                archive, debate, args.model, api_base=resolve_api_base(args.api_base), refresh=args.refresh
            )
        except (GatewayError, ConfigError) as exc:
            sys.stderr.write(f"error: labelling with {args.model} failed: {exc}\n")
            return EXIT_FAIL
    ledger = build_ledger(
        debate, evidence=evidence, labels=labelling.labels if labelling else None, labeller=args.model or ""
    )
    if args.format == "json":
        data = ledger_json(ledger)
        if labelling is not None:
            data["evidence"]["labelling"] = labelling.info()
        _print_json(data)
    else:
        sys.stdout.write(ledger_markdown(ledger))
    if labelling is not None:
        how = (
            "cached labels, no call made"
            if labelling.cached
            else f"{labelling.calls} calls, {labelling.prompt_tokens + labelling.completion_tokens} tokens"
        )
        sys.stderr.write(f"model labels: {args.model}: {len(labelling.labels)} labels ({how})\n")
        if labelling.unusable:
            sys.stderr.write(
                f"warning: no usable labels for {', '.join(labelling.unusable)}; this run was not cached\n"
            )
    return EXIT_OK


def add_judges(sub) -> None:
    from debate_core.cli.main import count_int

    p = sub.add_parser(
        "judges",
        help="per-judge judgments: agreement matrix, side bias, margin distribution, "
        "and Bradley-Terry over side-swapped matchups",
    )
    p.add_argument("--template", help="only the judgments of this judging template")
    p.add_argument(
        "--bootstrap", type=count_int(100_000), default=200, help="bootstrap resamples for the rating intervals"
    )
    p.add_argument(
        "--all-groups",
        action="store_true",
        help="rate every matchup, not only those where each model argued both sides",
    )
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
        _print_json(
            {
                "judgments": len(frame),
                "ratings": ratings.to_dict(orient="records"),
                "published_agreement": agreement,
                "agreement": {
                    j: {k: (None if v != v else v) for k, v in row.items()}
                    for j, row in share.to_dict(orient="index").items()
                },
                "common": common.to_dict(orient="index"),
                "side_bias": bias.to_dict(orient="records"),
                "margins": margins.to_dict(orient="records"),
            }
        )
        return EXIT_OK
    out = sys.stdout
    out.write(f"# Judges — {len(frame)} judgments, {frame['debate_id'].nunique() if len(frame) else 0} debates\n\n")
    out.write("## Bradley-Terry over side-swapped matchups\n\n" + _frame_md(ratings))
    if agreement:
        out.write(
            f"\nAgainst the published leaderboard ({agreement['models']} models): Spearman "
            f"{agreement['spearman']}, Kendall {agreement['kendall']}\n"
        )
    out.write("\n## Agreement (share of common debates with the same winner)\n\n" + _frame_md(share.reset_index()))
    out.write("\n## Side bias (PRO win rate among decisive judgments, 95% Wilson interval)\n\n" + _frame_md(bias))
    out.write("\n## Margin distribution (absolute normalized margin)\n\n" + _frame_md(margins))
    return EXIT_OK


COMMANDS = {"ledger": (add_ledger, run_ledger), "judges": (add_judges, run_judges)}
