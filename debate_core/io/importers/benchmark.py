"""A public debate benchmark's checkout: the lechmazur/debate layout.

The layout (any folder that has it is recognised, a git checkout or not)::

    transcripts/<debate_id>.md                     one pro/con debate each
    reports/debate_matchup_judgments/<template>/*.md   one per side-swap group: the judge panel's rows
    reports/debate_leaderboard__<template>.md      the published Bradley-Terry order

A transcript has a header of ``- key: value`` bullets (``topic_id``, ``proposition``,
``model_pro``, ``model_con``, ``side_swap``) and turns ``## Turn N: PRO Opening`` …, each with
bullets (``model``, ``raw_words``, ``clipped_words``, ``claim_ids``, ``cited_claim_ids``,
``missing_claim_id_refs``) and paragraphs tagged with claim ids (``[P1.2] …``).  A turn's phase
is its heading's (opening, rebuttal, pressure_questions, answers, closing); a rebuttal that comes
after the opponent's pressure questions answers them and is recorded as ``answers``.  Its round
is the side's n-th turn, the ``n`` of its claim ids.

A matchup report names the side-swap group, the models' display names, and for each debate of
the group a table of judge rows (judge, winner, signed margin with PRO positive, normalized
margin, entertainment) with the judges' notes.  Each row becomes a
:class:`~debate_core.models.Judgment` of the debate it is under.

Nothing is written while parsing.  A malformed file is reported with its path and line and
skipped whole: a transcript is not imported, a report's judgments are not attached (its debates
still are).  Ids are stable, from the source's debate id, so importing a checkout again adds
nothing twice; a debate whose judgments changed at the source is rewritten.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from debate_core.io.importers.common import ImportFormatError, content_id, file_time, is_separator, read_text, split_row
from debate_core.models import Debate, DebateConfig, Judgment, Participant, Speech, Verdict

KIND = "benchmark"
SOURCE = "lechmazur/debate"
REPORTS = Path("reports") / "debate_matchup_judgments"

_BULLET = re.compile(r"^-\s+([A-Za-z_][A-Za-z_ ]*?):\s*(.*?)\s*$")
_TURN = re.compile(r"^##\s+Turn\s+(\d+):\s+(PRO|CON)\s+(.+?)\s*$", re.I)
_CLAIM = re.compile(r"^\[([A-Z]\d+(?:\.\d+)+)\]\s*(.*)$")
_REF = re.compile(r"\[([A-Z]\d+(?:\.\d+)+)\]")
_ROLES = re.compile(r"PRO\s*=\s*\*\*(.+?)\*\*\s*,\s*CON\s*=\s*\*\*(.+?)\*\*")
_NOTE = re.compile(r"^-\s+\*\*(.+?)\*\*:\s*(.*)$")
_DECISIVE = re.compile(r"^\s+Most decisive rebuttal noted:\s*(.*)$", re.I)
_FILE_ID = re.compile(r"^(?P<topic>[^_].*?)__(?P<pro>.+)__(?P<con>.+)__s(?P<swap>[01])__(?P<tpl>.+)$")

PHASES = {
    "opening": "opening",
    "rebuttal": "rebuttal",
    "pressure questions": "pressure_questions",
    "pressure question": "pressure_questions",
    "questions": "pressure_questions",
    "answers": "answers",
    "answer": "answers",
    "closing": "closing",
    "closing statement": "closing",
}
SIDE_STANCE = {"pro": "for the motion", "con": "against the motion"}


def is_checkout(path: Path) -> bool:
    """A folder in the benchmark's layout: ``transcripts/*.md`` (reports are optional)."""
    t = path / "transcripts"
    return t.is_dir() and any(p.suffix == ".md" for p in t.iterdir())


@dataclass
class Parsed:
    """What one checkout holds, parsed, and what was skipped (with its path and line)."""

    debates: list[tuple[Path, Debate]] = field(default_factory=list)
    problems: list[ImportFormatError] = field(default_factory=list)
    leaderboards: list[dict] = field(default_factory=list)
    model_names: dict[str, str] = field(default_factory=dict)


# ----------------------------------------------------------------- transcripts


def _ids(value: str) -> list[str]:
    return (
        []
        if value.strip().lower() in ("", "(none)", "none", "-")
        else _REF.findall(value) or [v.strip() for v in value.split(",") if v.strip()]
    )


def _int(value: str, path: Path, line: int, key: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ImportFormatError(path, line, f"{key} is not a whole number: {value!r}") from None


def _phase(words: str, path: Path, line: int) -> str:
    key = re.sub(r"\s+\d+$", "", words.strip().lower())
    if key not in PHASES:
        raise ImportFormatError(
            path,
            line,
            f"unknown turn phase {words!r} (expected Opening, Rebuttal, Pressure Questions, Answers or Closing)",
        )
    return PHASES[key]


def parse_transcript(path: Path, text: str) -> Debate:
    """One transcript as a debate (judgments are attached later, from the reports)."""
    lines = text.splitlines()
    header: dict[str, tuple[str, int]] = {}
    source_id = path.stem
    turns: list[dict] = []
    cur: dict | None = None
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if no == 1 or (not turns and line.startswith("# ")):
            if line.startswith("# Debate "):
                source_id = line[len("# Debate ") :].strip() or source_id
            continue
        m = _TURN.match(line)
        if m:
            cur = {
                "n": int(m.group(1)),
                "side": m.group(2).lower(),
                "heading": line[3:].strip(),
                "title": f"{m.group(2).upper()} {m.group(3)}",
                "phase": _phase(m.group(3), path, no),
                "line": no,
                "bullets": {},
                "claims": [],
                "loose": [],
            }
            turns.append(cur)
            continue
        if line.startswith("#"):
            if cur is not None:
                raise ImportFormatError(path, no, f"unexpected heading {line!r} inside a turn")
            continue
        b = _BULLET.match(line)
        if b and (cur is None or not cur["claims"] and not cur["loose"]):
            target = header if cur is None else cur["bullets"]
            target[b.group(1).lower()] = (b.group(2), no)
            continue
        if cur is None or not line.strip():
            continue
        c = _CLAIM.match(line.strip())
        if c:
            cur["claims"].append({"id": c.group(1), "text": c.group(2).strip(), "line": no})
        elif cur["claims"]:
            cur["claims"][-1]["text"] += "\n" + line.strip()
        else:
            cur["loose"].append(line.strip())
    required = ("topic_id", "proposition", "model_pro", "model_con", "side_swap")
    for i, key in enumerate(required):
        if key not in header or not header[key][0]:
            # the line where it belongs: after the required keys before it, else the header's first line
            before = [header[k][1] for k in required[:i] if k in header]
            line_no = header[key][1] if key in header else (max(before) + 1 if before else 2)
            raise ImportFormatError(
                path,
                line_no,
                f"the header has no {key} (a transcript needs topic_id, proposition, "
                "model_pro, model_con and side_swap)",
            )
    if not turns:
        raise ImportFormatError(path, len(lines) or 1, "no turns (## Turn N: PRO Opening …)")
    models = {"pro": header["model_pro"][0], "con": header["model_con"][0]}
    speeches: list[Speech] = []
    asked: set[str] = set()  # sides whose pressure questions have been put
    count: Counter = Counter()
    for t in turns:
        if "model" not in t["bullets"] or not t["bullets"]["model"][0]:
            raise ImportFormatError(path, t["line"], f"turn {t['n']} ({t['title']}) has no '- model:' bullet")
        model, mline = t["bullets"]["model"]
        if model != models[t["side"]]:
            raise ImportFormatError(
                path,
                mline,
                f"turn {t['n']} is {t['side'].upper()}'s, but its model {model!r} "
                f"is not model_{t['side']} {models[t['side']]!r}",
            )
        if not t["claims"] and not t["loose"]:
            raise ImportFormatError(path, t["line"], f"turn {t['n']} ({t['title']}) has no text")
        other = "con" if t["side"] == "pro" else "pro"
        phase = t["phase"]
        if phase == "rebuttal" and other in asked:
            phase = "answers"  # the rebuttal after the opponent's questions answers them
        if phase == "pressure_questions":
            asked.add(t["side"])
        count[t["side"]] += 1
        bullets = {k: v for k, (v, _) in t["bullets"].items()}
        words = {
            k: _int(bullets[k], path, t["bullets"][k][1], k) for k in ("raw_words", "clipped_words") if k in bullets
        }
        claims = [{"id": c["id"], "text": c["text"]} for c in t["claims"]]
        body = "\n\n".join(t["loose"] + [f"[{c['id']}] {c['text']}" for c in t["claims"]])
        envelope = {
            "turn": t["n"],
            "heading": t["heading"],
            "model": model,
            **words,
            "claims": claims,
            "cited": _ids(bullets.get("cited_claim_ids", "")),
            "missing_refs": _ids(bullets.get("missing_claim_id_refs", "")),
        }
        speeches.append(
            Speech(
                round=count[t["side"]],
                speaker=t["side"],
                speaker_name=model,
                role=phase,
                text=body,
                envelope=envelope,
                status="ok",
            )
        )
    topic = header["proposition"][0]
    # the source's group id (its reports say so): topic, the two models in sorted order, template
    pair = sorted(models.values())
    m = _FILE_ID.match(source_id)
    group = f"{header['topic_id'][0]}__{pair[0]}__{pair[1]}" + (f"__{m['tpl']}" if m else "")
    created = file_time(path)
    return Debate(
        id=content_id(SOURCE, source_id),
        protocol="benchmark",
        topic=topic,
        status="completed",
        stop_reason=f"{len(speeches)} turns",
        lang="en",
        group=group,
        participants=[
            Participant(label=s, name=models[s], model=models[s], stance=SIDE_STANCE[s]) for s in ("pro", "con")
        ],
        models=[models["pro"], models["con"]],
        planned_rounds=max(count.values()),
        config=DebateConfig(
            protocol="benchmark",
            topic=topic,
            models=[models["pro"], models["con"]],
            lang="en",
            rounds=max(count.values()),
        ),
        rounds=speeches,
        created_at=created,
        updated_at=created,
        source=f"import:{KIND}:{source_id}",
    )


# -------------------------------------------------------------------- reports


def _ticks(value: str) -> str:
    return value.strip().strip("`").strip()


def _num(cell: str, path: Path, line: int, what: str) -> float | None:
    t = cell.strip().replace("**", "")
    if t in ("", "-", "—", "n/a", "N/A"):
        return None
    try:
        return float(t)
    except ValueError:
        raise ImportFormatError(path, line, f"{what} is not a number: {t!r}") from None


def parse_report(path: Path, text: str) -> dict:
    """A matchup report: its group, template, display names and, per source debate id, the judgments."""
    lines = text.splitlines()
    head: dict[str, str] = {}
    sections: dict[str, dict] = {}
    cur: dict | None = None
    in_notes = False
    last_note: dict | None = None
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip()
        if line.startswith("## "):
            in_notes = False
            name = line[3:].strip()
            cur = {"name": name, "line": no, "rows": [], "notes": {}} if name.lower().startswith("debate ") else None
            if cur is not None:
                sections[name] = cur
            continue
        if line.startswith("### "):
            in_notes = cur is not None and "note" in line.lower()
            continue
        b = _BULLET.match(line)
        if cur is None:
            if b:
                head[b.group(1).lower()] = _ticks(b.group(2))
            continue
        if in_notes:
            n = _NOTE.match(line)
            if n:
                last_note = cur["notes"].setdefault(n.group(1).strip(), {"notes": n.group(2).strip(), "decisive": ""})
                continue
            d = _DECISIVE.match(raw)
            if d and last_note is not None:
                last_note["decisive"] = d.group(1).strip()
            continue
        if b:
            cur[b.group(1).lower()] = (_ticks(b.group(2)), no)
            continue
        if line.lstrip().startswith("|"):
            if is_separator(line):
                continue
            cells = split_row(line)
            if cells and cells[0].lower() == "judge":
                cur["columns"] = [c.lower() for c in cells]
                continue
            if len(cells) < 5:
                raise ImportFormatError(
                    path,
                    no,
                    f"a judge row needs 5 cells (judge, winner, margin, normalized, entertainment), found {len(cells)}",
                )
            cur["rows"].append(
                {
                    "judge": cells[0].replace("**", "").strip(),
                    "winner": cells[1].replace("**", "").strip(),
                    "margin": _num(cells[2], path, no, "the signed margin"),
                    "normalized": _num(cells[3], path, no, "the normalized margin"),
                    "entertainment": _num(cells[4], path, no, "the entertainment score"),
                    "line": no,
                }
            )
    group = head.get("side_swap_group_id", "")
    if not group:
        raise ImportFormatError(path, 1, "no side_swap_group_id in the report's header")
    out: dict[str, tuple[list[Judgment], dict[str, str], str]] = {}
    names: dict[str, str] = {}
    for sec in sections.values():
        if "debate_id" not in sec:
            raise ImportFormatError(path, sec["line"], f"{sec['name']} has no '- debate_id:' bullet")
        debate_id = sec["debate_id"][0]
        roles = _ROLES.search(sec.get("roles", ("", 0))[0])
        if not roles:
            raise ImportFormatError(
                path,
                sec.get("roles", ("", sec["line"]))[1],
                f"{sec['name']} has no roles line (PRO = **…**, CON = **…**)",
            )
        display = {"pro": roles.group(1).strip(), "con": roles.group(2).strip()}
        m = _FILE_ID.match(debate_id)
        if m:
            names[m["pro"]], names[m["con"]] = display["pro"], display["con"]
        judgments = []
        for r in sec["rows"]:
            w = r["winner"]
            if w.lower() in ("tie", "draw", "even"):
                side = "tie"
            elif w == display["pro"] or w.upper() == "PRO":
                side = "pro"
            elif w == display["con"] or w.upper() == "CON":
                side = "con"
            else:
                raise ImportFormatError(
                    path, r["line"], f"winner {w!r} is neither side ({display['pro']} / {display['con']}) nor Tie"
                )
            note = sec["notes"].get(r["judge"], {})
            judgments.append(
                Judgment(
                    judge=r["judge"],
                    winner=side,
                    winner_name=w,
                    margin=r["margin"],
                    normalized=r["normalized"],
                    entertainment=r["entertainment"],
                    notes=note.get("notes", ""),
                    decisive=note.get("decisive", ""),
                    group=group,
                    template=head.get("template_id", ""),
                )
            )
        out[debate_id] = (judgments, display, sec.get("judged result", ("", 0))[0])
    return {"group": group, "template": head.get("template_id", ""), "debates": out, "names": names}


def parse_leaderboard(path: Path, text: str) -> list[dict]:
    """The published order: rows ``{rank, model, rating}`` from the first table with Rank and Model columns."""
    cols: list[str] = []
    rows: list[dict] = []
    template = ""
    for no, line in enumerate(text.splitlines(), 1):
        b = _BULLET.match(line)
        if b and b.group(1).lower() == "template_id":
            template = _ticks(b.group(2))
        if not line.lstrip().startswith("|") or is_separator(line):
            if rows and not line.strip():
                break
            continue
        cells = [c.replace("**", "").strip() for c in split_row(line)]
        low = [c.lower() for c in cells]
        if "rank" in low and "model" in low:
            cols = low
            continue
        if not cols:
            continue
        row = dict(zip(cols, cells, strict=False))
        try:
            rank = int(row["rank"])
        except (KeyError, ValueError):
            raise ImportFormatError(path, no, f"rank is not a whole number: {row.get('rank')!r}") from None
        rating = None
        for key in ("bt", "rating", "elo"):
            if row.get(key):
                rating = _num(row[key], path, no, f"the {key} rating")
                break
        rows.append({"rank": rank, "model": row["model"], "rating": rating, "template": template, "line": no})
    if not rows:
        raise ImportFormatError(path, 1, "no leaderboard table (| Rank | Model | … |)")
    return rows


# ------------------------------------------------------------------ checkout


def parse_checkout(root: Path) -> Parsed:
    """Every transcript, report and leaderboard of a checkout; malformed files are listed, not raised."""
    out = Parsed()
    by_source: dict[str, tuple[Path, Debate]] = {}
    for p in sorted((root / "transcripts").glob("*.md")):
        try:
            d = parse_transcript(p, read_text(p))
        except ImportFormatError as exc:
            out.problems.append(exc)
            continue
        by_source[p.stem] = (p, d)
        by_source.setdefault(d.source.split(":", 2)[-1], (p, d))
    names: dict[str, str] = {}
    for p in sorted((root / REPORTS).glob("*/*.md")) if (root / REPORTS).is_dir() else []:
        try:
            rep = parse_report(p, read_text(p))
        except ImportFormatError as exc:
            out.problems.append(exc)
            continue
        names.update(rep["names"])
        for source_id, (judgments, display, summary) in rep["debates"].items():
            hit = by_source.get(source_id)
            if hit is None:
                continue  # a judged debate the public snapshot does not carry
            d = hit[1]
            d.group = rep["group"]
            d.judgments = judgments
            for part in d.participants:
                part.name = display.get(part.label, part.name)
            d.verdict = _panel_verdict(judgments, summary)
    boards = sorted(root.glob("reports/debate_leaderboard__*.md"))
    for p in boards:
        try:
            rows = parse_leaderboard(p, read_text(p))
        except ImportFormatError as exc:
            out.problems.append(exc)
            continue
        out.leaderboards += [
            {
                "source": SOURCE,
                "template": r["template"] or p.stem.split("__", 1)[-1],
                "rank": r["rank"],
                "model": r["model"],
                "rating": r["rating"],
                "path": str(p),
            }
            for r in rows
        ]
    out.model_names = names
    seen = set()
    for p, d in by_source.values():
        if d.id not in seen:
            seen.add(d.id)
            for s in d.rounds:
                s.speaker_name = names.get(s.speaker_name, s.speaker_name)
            out.debates.append((p, d))
    return out


def _panel_verdict(judgments: list[Judgment], summary: str) -> Verdict | None:
    """The panel's majority as the debate's verdict (pro / con / draw); None without judgments."""
    if not judgments:
        return None
    votes = Counter(j.winner for j in judgments)
    winner = "pro" if votes["pro"] > votes["con"] else "con" if votes["con"] > votes["pro"] else "draw"
    return Verdict(
        winner=winner,
        summary=summary.replace("**", "").replace("`", ""),
        parsed=True,
        note=f"the majority of a panel of {len(judgments)} judges (see the judgments)",
        reasons={j.judge: j.notes for j in judgments if j.notes},
    )
