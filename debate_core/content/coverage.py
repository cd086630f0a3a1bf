"""Cross-critique coverage of a pack: who has ammunition against whom.

Pure functions, no database.  A *directed* entry ``a->b`` is one ``cross_critique``
item of master ``a`` whose ``target_master`` is ``b``.  A pair is covered *both
ways* when ``a->b`` and ``b->a`` both exist; the master-debate seed warns (and the
debate is "degraded") when a debated pair is not.

The canonical pairs are the rows of ``resources/pair_table.json`` (the seed's
topic-to-pair table).  The archive computes the same matrix and gaps from the pack
snapshot it stores with each debate (:meth:`Archive.coverage_snapshot`), through
:func:`matrix_from_edges` and :func:`gaps_from_edges`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import pandas as pd

from debate_core.content.packs import pair_key
from debate_core.models import Pack


def pack_edges(pack: Pack) -> tuple[list[str], list[tuple[str, str]]]:
    """(master slugs in pack order, one (critic, target) tuple per critique)."""
    slugs = list(pack.masters)
    edges = [(slug, c.target_master) for slug, m in pack.masters.items() for c in m.cross_critique]
    return slugs, edges


def canonical_pairs() -> list[dict]:
    """The seed's canonical pairs: id, label, a, b, pair (sorted key)."""
    from debate_core.content.pairing import pair_table

    out = []
    for row in pair_table().get("rows", []):
        a, b = row["a"]["master"], row["b"]["master"]
        out.append({"id": row.get("id", ""), "label": row.get("label", ""), "a": a, "b": b, "pair": pair_key(a, b)})
    return out


def matrix_from_edges(slugs: Sequence[str], edges: Iterable[tuple[str, str]]) -> pd.DataFrame:
    """Masters x masters: cell [A, B] = critiques written by row A aimed at column B."""
    slugs = list(slugs)
    counts = Counter((a, b) for a, b in edges if a in slugs and b in slugs and a != b)
    data = [[counts.get((a, b), 0) for b in slugs] for a in slugs]
    df = pd.DataFrame(data, index=pd.Index(slugs, name="critic"), columns=pd.Index(slugs, name="target"), dtype="int64")
    return df


def coverage_matrix(pack: Pack) -> pd.DataFrame:
    """Masters x masters count of critiques from row A aimed at column B."""
    return matrix_from_edges(*pack_edges(pack))


def gaps_from_edges(slugs: Sequence[str], edges: Iterable[tuple[str, str]]) -> dict:
    """Everything the coverage view reports, as plain JSON-able data.

    * ``both_ways``: pairs with critiques in both directions (with the counts);
    * ``one_way``: directed entries ``a->b`` whose reverse is absent (one row per
      direction, with how many critiques it has);
    * ``canonical``: every canonical pair with status ``complete`` / ``one-way`` /
      ``missing``, the directions it lacks and whether both masters are in the pack;
    * ``missing_pairs``: canonical pairs with no critique in either direction;
    * ``lacking_direction``: canonical pairs covered one way only;
    * ``no_critique``: masters that neither write nor receive any critique;
      ``writes_none`` / ``receives_none`` split that further;
    * ``unknown_targets``: critiques aimed at a slug that is not in the pack.
    """
    slugs = list(slugs)
    known = set(slugs)
    edges = list(edges)
    directed = Counter((a, b) for a, b in edges if a in known and b in known and a != b)
    unknown = sorted({f"{a}->{b}" for a, b in edges if b not in known or a not in known})

    both, seen = [], set()
    for (a, b), _n in sorted(directed.items()):
        key = pair_key(a, b)
        if (b, a) in directed and key not in seen:
            seen.add(key)
            x, y = sorted((a, b))
            both.append({"pair": key, "a": x, "b": y, "a_to_b": directed[(x, y)], "b_to_a": directed[(y, x)]})
    one_way = [
        {"entry": f"{a}->{b}", "from": a, "to": b, "critiques": n}
        for (a, b), n in sorted(directed.items())
        if (b, a) not in directed
    ]

    canonical = []
    for row in canonical_pairs():
        a, b = row["a"], row["b"]
        ab, ba = directed.get((a, b), 0), directed.get((b, a), 0)
        status = "complete" if ab and ba else "one-way" if ab or ba else "missing"
        lacking = [d for d, n in ((f"{a}->{b}", ab), (f"{b}->{a}", ba)) if not n]
        canonical.append(
            {
                **row,
                "a_to_b": ab,
                "b_to_a": ba,
                "status": status,
                "lacking": lacking,
                "in_pack": a in known and b in known,
            }
        )

    writers = {a for a, _ in directed}
    targets = {b for _, b in directed}
    return {
        "masters": len(slugs),
        "critiques": len(edges),
        "both_ways": both,
        "one_way": one_way,
        "canonical": canonical,
        "missing_pairs": [c["pair"] for c in canonical if c["status"] == "missing"],
        "lacking_direction": [
            {"pair": c["pair"], "lacking": c["lacking"]} for c in canonical if c["status"] == "one-way"
        ],
        "no_critique": [s for s in slugs if s not in writers and s not in targets],
        "writes_none": [s for s in slugs if s not in writers],
        "receives_none": [s for s in slugs if s not in targets],
        "unknown_targets": unknown,
    }


def coverage_gaps(pack: Pack) -> dict:
    """One-way entries, pairs covered both ways, canonical pair status, silent masters."""
    data = gaps_from_edges(*pack_edges(pack))
    data["pack"] = {"name": pack.name, "version": pack.version, "path": pack.path}
    return data


def matrix_json(df: pd.DataFrame) -> dict[str, dict[str, int]]:
    return {str(a): {str(b): int(df.loc[a, b]) for b in df.columns} for a in df.index}


def render_text(matrix: pd.DataFrame, gaps: dict, degraded: list[dict] | None = None) -> str:
    """The matrix and the gaps as plain text for the CLI."""
    lines = []
    pack = gaps.get("pack") or {}
    if pack:
        lines.append(f"pack {pack.get('name', '')} {pack.get('version', '')}".rstrip())
    lines.append(
        f"masters: {gaps['masters']}  critiques: {gaps['critiques']}  "
        f"pairs both ways: {len(gaps['both_ways'])}  one-way entries: {len(gaps['one_way'])}"
    )
    lines.append("")
    lines.append("critiques from row to column:")
    lines.append(matrix.to_string() if len(matrix) else "(no masters)")
    lines.append("")
    lines.append("canonical pairs:")
    for c in gaps["canonical"]:
        extra = f" lacking {', '.join(c['lacking'])}" if c["lacking"] and c["status"] != "missing" else ""
        where = "" if c["in_pack"] else " (not in this pack)"
        lines.append(f"  {c['pair']:<36} {c['status']:<9} {c['a_to_b']}/{c['b_to_a']}{extra}{where}")
    if gaps["one_way"]:
        lines.append("one-way entries: " + ", ".join(f"{o['entry']} ({o['critiques']})" for o in gaps["one_way"]))
    if gaps["missing_pairs"]:
        lines.append("missing canonical pairs: " + ", ".join(gaps["missing_pairs"]))
    if gaps["no_critique"]:
        lines.append("masters with no critique at all: " + ", ".join(gaps["no_critique"]))
    if gaps["unknown_targets"]:
        lines.append("critiques aimed at unknown masters: " + ", ".join(gaps["unknown_targets"]))
    if degraded is not None:
        lines.append("")
        if degraded:
            lines.append("pairs debated with the coverage warning:")
            for d in degraded:
                lines.append(f"  {d['pair']:<36} {d['debates']} debate(s)")
        else:
            lines.append("no archived debate carries the coverage warning")
    return "\n".join(lines) + "\n"
