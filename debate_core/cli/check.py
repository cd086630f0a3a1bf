"""``python -m debate_core check [FILE|-]``: run every hard rule on any text.

The text is a researcher's own or a model's speech; the rules are the ones the master debate
runs on every speech (debate_core.checks).  Exit status: 0 when every rule passes, 1 when some
rule fails or cannot decide, 2 on bad input (an unknown master, an empty text, a missing file),
with one ``error: …`` line on stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from debate_core.cli.main import positive_int

ROLES = ("立论", "反驳", "回应", "综合")
EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class CheckInputError(ValueError):
    pass


def add_check(sub) -> None:
    p = sub.add_parser("check", help="run the master-debate rules on a speech (a file, or - for stdin)")
    p.add_argument("file", nargs="?", default="-", help="the speech: a UTF-8 text file, or - for stdin (default)")
    p.add_argument("--speaker", help="the master who speaks: slug, name or common name (慧能, 六祖, huineng)")
    p.add_argument("--opponent", help="the master answered: slug, name or common name")
    p.add_argument("--role", help="立论 | 反驳 | 回应 | 综合")
    p.add_argument("--round", type=positive_int(1000), help="the round number (shown in the report)")
    p.add_argument("--opponent-summary", default="", help="the opponent's latest summary (for 反驳 / 回应)")
    p.add_argument("--pack", help="persona pack folder (default: data/packs/default)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _read(file: str) -> str:
    if file == "-":
        data = sys.stdin.buffer.read()
        where = "stdin"
    else:
        path = Path(file)
        if not path.is_file():
            raise CheckInputError(f"{file}: no such file")
        data = path.read_bytes()
        where = file
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CheckInputError(f"{where}: not UTF-8 text") from None
    if not text.strip():
        raise CheckInputError(f"{where}: the speech is empty")
    return text.strip()


def _resolve(pack, option: str, value) -> str:
    from debate_core.content.packs import resolve_master

    if not value or not str(value).strip():
        raise CheckInputError(f"{option} is required: a master's slug or name")
    try:
        return resolve_master(pack, str(value))
    except KeyError as exc:
        raise CheckInputError(f"{option} {value!r}: {exc.args[0] if exc.args else 'unknown master'}") from None


def check_text(text: str, pack, speaker: str, opponent: str, role: str, opponent_summary: str = ""):
    """The findings of every rule on ``text``, in the order of ``checks.RULES``."""
    from debate_core.checks import CheckContext, run_checks

    sp, op = pack.masters[speaker], pack.masters[opponent]
    ctx = CheckContext(
        speaker=sp,
        opponent=op,
        role=role,
        ammo=sp.ammo_against(op.slug),
        opponent_summary=opponent_summary,
        pack_source_ids=pack.all_source_ids(),
        pack=pack,
    )
    return run_checks(text, ctx)


def _mark(f) -> str:
    return "✓" if f.passed else ("?" if f.undecided else "✗")


def run_check(args) -> int:
    from debate_core.checks import cjk_len
    from debate_core.content.packs import get_pack

    try:
        if args.role not in ROLES:
            raise CheckInputError(
                f"--role {args.role!r}: must be one of {' | '.join(ROLES)}"
                if args.role
                else f"--role is required: one of {' | '.join(ROLES)}"
            )
        if args.round is not None and args.round < 1:
            raise CheckInputError(f"--round {args.round}: must be 1 or more")
        pack = get_pack(args.pack)
        speaker = _resolve(pack, "--speaker", args.speaker)
        opponent = _resolve(pack, "--opponent", args.opponent)
        if speaker == opponent:
            raise CheckInputError(f"--opponent {args.opponent!r}: the same master as --speaker")
        text = _read(args.file)
    except CheckInputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_USAGE
    findings = check_text(text, pack, speaker, opponent, args.role, args.opponent_summary or "")
    passed = all(f.passed for f in findings)
    if args.format == "json":
        out = {
            "passed": passed,
            "speaker": speaker,
            "opponent": opponent,
            "role": args.role,
            "round": args.round,
            "chars": cjk_len(text),
            "pack": pack.name,
            "findings": [
                {
                    "rule": f.rule,
                    "passed": f.passed,
                    "message": f.message,
                    "undecided": f.undecided,
                    "marks": [m.model_dump() for m in f.marks],
                }
                for f in findings
            ],
        }
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        sp, op = pack.masters[speaker], pack.masters[opponent]
        head = f"R{args.round}｜" if args.round else ""
        bad = sum(1 for f in findings if not f.passed)
        verdict = "全部通过" if passed else f"{bad} 条未通过"
        print(f"{head}{sp.name} {args.role}（对 {op.name}）：{verdict}")
        for f in findings:
            print(f"{_mark(f)} {f.rule}：{f.message}")
            for m in f.marks:
                status = {
                    "verified": "引文已核对",
                    "id_only": "仅编号",
                    "unverified": "引文未核对",
                    "unchecked": "引文无原文可核",
                }[m.status]
                title = f"《{m.title}》" if m.title else ""
                print(f"    · {m.id} {title} {status}" + (f"：「{m.quote[:30]}」" if m.quote else ""))
    return EXIT_OK if passed else EXIT_FAIL


COMMANDS = {"check": (add_check, run_check)}
