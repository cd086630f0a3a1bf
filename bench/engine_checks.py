"""The offline engine's own speeches against the rules: every speech that fails a rule.

    python bench/engine_checks.py [--pack DIR] [--topics FILE ...] [--no-cases] [--pairs] [--limit N]

Runs a master debate with the offline engine (no model, no network) on the question of every case in the
pack's ``master-debate/cases/*.yaml`` (``--pairs``: once for every ordered pair of the masters who answer it) and
on every topic of ``tests/fixtures/topics/dev.txt`` (or the ``--topics`` files, one topic a line, a .tsv's first
column), and prints every speech kept with a failed rule: the rule, its message and the sentences
the rule names.  The offline engine writes honest speeches from the pack's own material, so a failed rule here
is a false flag of the rule (or a fault of the engine).  It also prints the attempts that failed and were
rewritten by a retry (the speech kept then passed, but the first speech written was marked ✗), since those
false flags are hidden by the retry, and how many times a speech says it leaves a restated point unanswered
(暂不辩驳).  Exit status 1 when any kept speech failed.

Takes about a minute and a half for the default pack's cases and dev topics on a shared 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import debate_core.protocols.master as _master  # noqa: E402
from debate_core.checks import _others_regex, side_terms_for  # noqa: E402
from debate_core.checks.positions import parties_for  # noqa: E402
from debate_core.checks.verdict import verdict_hits  # noqa: E402
from debate_core.content.packs import load_pack  # noqa: E402
from debate_core.content.text import sentences  # noqa: E402
from debate_core.engines.offline import OfflineEngine  # noqa: E402
from debate_core.models import DebateConfig  # noqa: E402
from debate_core.protocols.master import MasterDebate  # noqa: E402

DEV_TOPICS = ROOT / "tests" / "fixtures" / "topics" / "dev.txt"

# every attempt's failed findings (the protocol retries a failing speech; the kept one is on the Speech)
_attempts: list[list] = []
_run_checks = _master.run_checks


def _recording_run_checks(text, ctx):
    findings = _run_checks(text, ctx)
    _attempts.append([(f, text, ctx) for f in findings if not f.passed])
    return findings


Todo = tuple[str, str, list[str]]  # label, topic, the two masters (none: the protocol chooses)


def _questions(pack_dir: Path, pairs: bool) -> list[Todo]:
    """Every case's question; with ``pairs``, once for each ordered pair of the masters who answer it."""
    out: list[Todo] = []
    for f in sorted((pack_dir / "master-debate" / "cases").glob("*.yaml")):
        data = yaml.safe_load(f.read_text(encoding="utf-8")) or {}
        for case in data.get("cases") or []:
            if not case.get("question"):
                continue
            label = f"case {case.get('id', f.stem)}"
            if not pairs:
                out.append((label, case["question"], []))
                continue
            by = [a["by"] for a in case.get("answers") or [] if a.get("by")]
            out += [(f"{label} [{a} vs {b}]", case["question"], [a, b]) for a in by for b in by if a != b]
    return out


def _topics(path: Path) -> list[Todo]:
    """One topic a line (a .tsv: the first column); lines starting with # are comments."""
    lines = [t.split("\t")[0].strip() for t in path.read_text(encoding="utf-8").splitlines()]
    return [(f"{path.name}:{i}", t, []) for i, t in enumerate(lines, 1) if t and not t.startswith("#")]


def _show(finding, text: str, ctx) -> str:
    """The finding's message, and the sentences it was found in."""
    if finding.rule == "no_verdict":  # the hits again, with their sentences (as check_no_verdict reads them)
        who = parties_for(ctx.all_masters(), ctx.speaker.slug, ctx.opponent.slug)
        sides = side_terms_for(ctx.all_masters())
        hits = verdict_hits(text, extra_sides=sides, others=_others_regex(ctx), who=who)
        found = [f"{h.phrase} ({h.kind}) in: {h.sentence}" for h in hits]
    else:
        quoted = [str(d.args.get(k) or "") for d in finding.details for k in ("phrase", "quote", "excerpt")]
        found = [text[a:b].strip() for a, b in sentences(text) if any(q and q in text[a:b] for q in quoted)]
    return "\n".join([f"    {finding.rule}: {finding.message}"] + [f"      {x}" for x in dict.fromkeys(found)])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pack", default=None, help="pack directory (default: the default pack)")
    ap.add_argument("--topics", action="append", type=Path, help=f"topic files (default: {DEV_TOPICS})")
    ap.add_argument("--no-cases", action="store_true", help="leave out the pack's case questions")
    ap.add_argument("--pairs", action="store_true", help="each case once for every ordered pair of its masters")
    ap.add_argument("--limit", type=int, default=0, help="run only the first N topics")
    args = ap.parse_args(argv)
    pack = load_pack(args.pack)
    _master.run_checks = _recording_run_checks
    md = MasterDebate(pack, OfflineEngine(pack))
    todo = [] if args.no_cases else _questions(Path(pack.path), args.pairs)
    for t in args.topics or [DEV_TOPICS]:
        todo += _topics(t)
    if args.limit:
        todo = todo[: args.limit]
    speeches = failed = retried = attempts_failed = unanswered = 0
    by_rule: dict[str, int] = {}
    t0 = time.perf_counter()
    for label, topic, masters in todo:
        _attempts.clear()
        d = md.run(md.prepare(DebateConfig(topic=topic, masters=masters)))
        report = []
        for sp in d.rounds:
            speeches += 1
            unanswered += sp.text.count("暂不辩驳")  # a restated point the speech says it leaves unanswered
            if sp.failed_rules:
                failed += 1
                report.append(f"  round {sp.round} {sp.speaker} {sp.role}: KEPT WITH {', '.join(sp.failed_rules)}")
                ctx = next(c for att in _attempts for _f, t, c in att if t == sp.text)
                report += [_show(f, sp.text, ctx) for f in sp.findings if not f.passed]
                for r in sp.failed_rules:
                    by_rule[r] = by_rule.get(r, 0) + 1
            retried += bool(sp.retries)
        kept = {sp.text.strip() for sp in d.rounds}
        for att in _attempts:
            if att and att[0][1].strip() not in kept:
                attempts_failed += 1
                report.append("  attempt rewritten after a retry:")
                report += [_show(f, text, ctx) for f, text, ctx in att]
        if report:
            print(f"{label}: {topic}")
            print("\n".join(report))
    print(
        f"\n{len(todo)} debates, {speeches} speeches; kept with a failed rule: {failed} "
        f"({', '.join(f'{r} {n}' for r, n in sorted(by_rule.items())) or 'none'}); "
        f"speeches retried: {retried}; attempts rewritten after failing: {attempts_failed}; "
        f"points left unanswered (暂不辩驳): {unanswered}; "
        f"{time.perf_counter() - t0:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
