"""Master-debate analytics over an archive, per master or per pair.

Every function takes an :class:`~debate_core.archive.Archive` and returns a
pandas DataFrame; ``by="master"`` groups by the speaking master, ``by="pair"`` by
the debated pair (``a-vs-b``, slugs sorted).  ``batch_id`` restricts to one batch.

* :func:`check_failures` — failed checks by rule (the findings kept on each speech,
  i.e. after the check retries), with the rate over speeches checked;
* :func:`sources_cited` — which of a master's sources get cited, how often, and
  which never are (from the pack snapshot the archive stores with each debate);
* :func:`ammo_usage` — which ``cross_critique`` entries get used against which
  opponent, and which never are;
* :func:`restatement` — how often a 反驳 / 回应 speech restates the opponent first;
* :func:`speech_lengths` — Chinese-character length of speeches;
* :func:`summary` — one row per master or pair with all of the above in brief;
* :func:`coverage_vs_debates` — the pack's critique coverage of each pair beside how
  often that pair was actually debated (and how often with the coverage warning).
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from debate_core.checks import MAX_CHARS, MIN_CHARS, RESTATING_ROLES, cjk_len
from debate_core.content.packs import pair_key

GROUPS = ("master", "pair")
MASTER = "master"  # the protocol whose debates these analytics read


def _check_by(by: str) -> str:
    if by not in GROUPS:
        raise ValueError(f"by must be 'master' or 'pair', not {by!r}")
    return by


# ----------------------------------------------------------------- the speeches


def master_speeches(archive, *, batch_id: str | None = None) -> pd.DataFrame:
    """One row per archived master-debate speech, with what the analyses need."""
    df = archive.protocol_speeches(MASTER, batch_id=batch_id)
    cols = [
        "debate_id",
        "batch_id",
        "pack_hash",
        "debate_status",
        "pair",
        "speaker",
        "speaker_name",
        "opponent",
        "round",
        "role",
        "status",
        "retries",
        "chars",
        "citations",
        "ammo_used",
        "failed_rules",
        "rules",
        "restate_required",
        "restated",
    ]
    if df.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for r in df.to_dict(orient="records"):
        labels = list(r["labels"]) if r["labels"] is not None else []
        if len(labels) < 2:
            continue
        a, b = labels[0], labels[1]
        findings = json.loads(r["findings"]) if r["findings"] else []
        findings = [f for f in findings if f.get("applies", True)]  # 不适用 is neither a pass nor a failure
        rules = [f.get("rule") for f in findings]
        failed = [f.get("rule") for f in findings if not f.get("passed")]
        required = r["role"] in RESTATING_ROLES
        restated = None
        if required and "restatement" in rules:
            restated = "restatement" not in failed
        rows.append(
            {
                "debate_id": r["debate_id"],
                "batch_id": r["batch_id"],
                "pack_hash": r["pack_hash"],
                "debate_status": r["debate_status"],
                "pair": pair_key(a, b),
                "speaker": r["speaker"],
                "speaker_name": r["speaker_name"],
                "opponent": b if r["speaker"] == a else a,
                "round": r["round"],
                "role": r["role"],
                "status": r["status"],
                "retries": int(r["retries"] or 0),
                "chars": cjk_len(r["text"] or ""),
                "citations": list(r["citations"] if r["citations"] is not None else []),
                "ammo_used": list(r["ammo_used"] if r["ammo_used"] is not None else []),
                "failed_rules": failed,
                "rules": rules,
                "restate_required": required,
                "restated": restated,
            }
        )
    return pd.DataFrame(rows, columns=cols)


def _spoken(df: pd.DataFrame) -> pd.DataFrame:
    """Speeches that produced text (a failed model call leaves an empty placeholder)."""
    return df[df["status"] != "failed"] if len(df) else df


def _group_col(by: str) -> str:
    return "speaker" if _check_by(by) == "master" else "pair"


# ------------------------------------------------------------------- analyses


def check_failures(
    archive, by: str = "master", *, batch_id: str | None = None, speeches: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Failed checks by rule per master or pair: checked speeches, failures and the rate."""
    g = _group_col(by)
    df = _spoken(master_speeches(archive, batch_id=batch_id) if speeches is None else speeches)
    cols = [by, "rule", "checked", "failed", "fail_rate"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for key, sub in df.groupby(g):
        checked: dict[str, int] = {}
        failed: dict[str, int] = {}
        for rules, bad in zip(sub["rules"], sub["failed_rules"], strict=True):
            for rule in rules:
                checked[rule] = checked.get(rule, 0) + 1
            for rule in bad:
                failed[rule] = failed.get(rule, 0) + 1
        for rule, n in checked.items():
            f = failed.get(rule, 0)
            rows.append({by: key, "rule": rule, "checked": n, "failed": f, "fail_rate": round(f / n, 4) if n else 0.0})
    return (
        pd.DataFrame(rows, columns=cols)
        .sort_values(["failed", by, "rule"], ascending=[False, True, True])
        .reset_index(drop=True)
    )


def _snapshot(archive, table: str, hashes: list[str]) -> pd.DataFrame:
    return archive.snapshot_rows(table, hashes)


def sources_cited(
    archive,
    by: str = "master",
    *,
    batch_id: str | None = None,
    include_unused: bool = True,
    speeches: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Citations per master (or pair and speaker) and source id, with titles; unused sources at 0."""
    _check_by(by)  # an unknown grouping raises before any query
    df = _spoken(master_speeches(archive, batch_id=batch_id) if speeches is None else speeches)
    keys = [by] if by == "master" else [by, "speaker"]
    cols = keys + ["source_id", "title", "citations", "speeches", "debates", "share_of_speeches"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    base = df.assign(master=df["speaker"]) if by == "master" else df
    totals = base.groupby(keys).size().rename("n_speeches")
    long = base[keys + ["debate_id", "citations"]].explode("citations").dropna(subset=["citations"])
    long = long.rename(columns={"citations": "source_id"})
    counts = (
        long.groupby(keys + ["source_id"])
        .agg(citations=("debate_id", "size"), debates=("debate_id", "nunique"))
        .reset_index()
    )
    per_speech = base[keys + ["citations"]].copy()
    per_speech["citations"] = per_speech["citations"].map(lambda c: sorted(set(c)))
    sp = per_speech.explode("citations").dropna(subset=["citations"]).groupby(keys + ["citations"]).size()
    counts["speeches"] = [
        int(sp.get(tuple(r[k] for k in keys) + (r["source_id"],), 0)) for r in counts.to_dict(orient="records")
    ]
    srcs = _snapshot(archive, "pack_sources", df["pack_hash"].dropna().unique().tolist())
    titles = {(r["slug"], r["source_id"]): r["title"] for r in srcs.to_dict(orient="records")} if len(srcs) else {}
    speaker_of = (lambda r: r["master"]) if by == "master" else (lambda r: r["speaker"])
    counts["title"] = [titles.get((speaker_of(r), r["source_id"]), "") for r in counts.to_dict(orient="records")]
    if include_unused and len(srcs):
        extra = []
        have = {tuple(r[k] for k in keys) + (r["source_id"],) for r in counts.to_dict(orient="records")}
        for key in totals.index:
            key_t = key if isinstance(key, tuple) else (key,)
            speaker = key_t[0] if by == "master" else key_t[1]
            for r in srcs[srcs["slug"] == speaker].to_dict(orient="records"):
                if key_t + (r["source_id"],) not in have:
                    extra.append(
                        {
                            **dict(zip(keys, key_t, strict=False)),
                            "source_id": r["source_id"],
                            "title": r["title"],
                            "citations": 0,
                            "debates": 0,
                            "speeches": 0,
                        }
                    )
        if extra:
            counts = pd.concat([counts, pd.DataFrame(extra)], ignore_index=True)
    counts["share_of_speeches"] = [
        round(r["speeches"] / totals[tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]], 4)
        for r in counts.to_dict(orient="records")
    ]
    return counts.sort_values(
        keys + ["citations", "source_id"], ascending=[True] * len(keys) + [False, True]
    ).reset_index(drop=True)[cols]


def ammo_usage(
    archive,
    by: str = "master",
    *,
    batch_id: str | None = None,
    include_unused: bool = True,
    speeches: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """How often each ``cross_critique`` entry is used, per master (or pair) and target.

    ``speeches`` counts the speeches the master gave against that target (the chances
    to use it); unused entries of the debated directions appear with 0 uses."""
    _check_by(by)
    df = _spoken(master_speeches(archive, batch_id=batch_id) if speeches is None else speeches)
    keys = ["master", "target"] if by == "master" else ["pair", "master", "target"]
    cols = keys + ["position", "citation", "uses", "speeches", "use_rate"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    base = df.assign(master=df["speaker"], target=df["opponent"])
    chances = base.groupby(keys).size()
    long = base[keys + ["ammo_used"]].explode("ammo_used").dropna(subset=["ammo_used"])
    uses = (
        long.groupby(keys + ["ammo_used"]).size().rename("uses").reset_index().rename(columns={"ammo_used": "position"})
    )
    crit = _snapshot(archive, "pack_critiques", df["pack_hash"].dropna().unique().tolist())
    cite = (
        {(r["slug"], r["target_master"], r["position"]): r["citation"] for r in crit.to_dict(orient="records")}
        if len(crit)
        else {}
    )
    if include_unused and len(crit):
        have = {tuple(r[k] for k in keys) + (r["position"],) for r in uses.to_dict(orient="records")}
        extra = []
        for key in chances.index:
            key_t = key if isinstance(key, tuple) else (key,)
            d = dict(zip(keys, key_t, strict=False))
            sel = crit[(crit["slug"] == d["master"]) & (crit["target_master"] == d["target"])]
            for pos in sel["position"]:
                if key_t + (pos,) not in have:
                    extra.append({**d, "position": pos, "uses": 0})
        if extra:
            uses = pd.concat([uses, pd.DataFrame(extra)], ignore_index=True)
    uses["citation"] = [cite.get((r["master"], r["target"], r["position"]), "") for r in uses.to_dict(orient="records")]
    uses["speeches"] = [int(chances[tuple(r[k] for k in keys)]) for r in uses.to_dict(orient="records")]
    uses["use_rate"] = (uses["uses"] / uses["speeches"]).round(4)
    return uses.sort_values(keys + ["uses"], ascending=[True] * len(keys) + [False]).reset_index(drop=True)[cols]


def restatement(
    archive, by: str = "master", *, batch_id: str | None = None, speeches: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Speeches that must restate the opponent first (反驳 / 回应), and how many did."""
    g = _group_col(by)
    df = _spoken(master_speeches(archive, batch_id=batch_id) if speeches is None else speeches)
    cols = [by, "required", "restated", "rate"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    req = df[df["restate_required"] & df["restated"].notna()]
    out = req.groupby(g).agg(required=("restated", "size"), restated=("restated", "sum")).reset_index()
    out = out.rename(columns={g: by})
    out["restated"] = out["restated"].astype(int)
    out["rate"] = (out["restated"] / out["required"]).round(4)
    return out[cols].sort_values(by).reset_index(drop=True)


def speech_lengths(
    archive, by: str = "master", *, batch_id: str | None = None, speeches: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Chinese-character length per master or pair; ``out_of_range`` counts speeches outside 300-500."""
    g = _group_col(by)
    df = _spoken(master_speeches(archive, batch_id=batch_id) if speeches is None else speeches)
    cols = [by, "speeches", "mean", "median", "min", "max", "std", "out_of_range"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    out = (
        df.groupby(g)["chars"]
        .agg(speeches="size", mean="mean", median="median", min="min", max="max", std="std")
        .reset_index()
        .rename(columns={g: by})
    )
    oor = df.assign(o=(df["chars"] < MIN_CHARS) | (df["chars"] > MAX_CHARS)).groupby(g)["o"].sum()
    out["out_of_range"] = [int(oor.get(k, 0)) for k in out[by]]
    out["mean"] = out["mean"].round(1)
    out["std"] = out["std"].round(1)
    return out[cols].sort_values(by).reset_index(drop=True)


def summary(
    archive, by: str = "master", *, batch_id: str | None = None, speeches: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per master or pair: debates, speeches, failed checks, retries, restatement,
    citations and ammo per speech, mean length."""
    g = _group_col(by)
    df = master_speeches(archive, batch_id=batch_id) if speeches is None else speeches
    cols = [
        by,
        "debates",
        "speeches",
        "failed_speeches",
        "flagged",
        "failed_checks",
        "check_fail_rate",
        "retries_per_speech",
        "restatement_rate",
        "citations_per_speech",
        "ammo_per_speech",
        "mean_chars",
    ]
    if df.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for key, sub in df.groupby(g):
        ok = _spoken(sub)
        checks = sum(len(r) for r in ok["rules"])
        bad = sum(len(r) for r in ok["failed_rules"])
        req = ok[ok["restate_required"] & ok["restated"].notna()]
        rows.append(
            {
                by: key,
                "debates": sub["debate_id"].nunique(),
                "speeches": len(ok),
                "failed_speeches": int((sub["status"] == "failed").sum()),
                "flagged": int((ok["status"] == "flagged").sum()),
                "failed_checks": bad,
                "check_fail_rate": round(bad / checks, 4) if checks else None,
                "retries_per_speech": round(ok["retries"].mean(), 3) if len(ok) else None,
                "restatement_rate": round(req["restated"].astype(bool).mean(), 4) if len(req) else None,
                "citations_per_speech": round(ok["citations"].map(len).mean(), 3) if len(ok) else None,
                "ammo_per_speech": round(ok["ammo_used"].map(len).mean(), 3) if len(ok) else None,
                "mean_chars": round(ok["chars"].mean(), 1) if len(ok) else None,
            }
        )
    return pd.DataFrame(rows, columns=cols).sort_values(by).reset_index(drop=True)


# --------------------------------------------------------------------- coverage


def _coverage_source(archive, pack: None | str | Any) -> tuple[list[str], list[tuple[str, str]], dict]:
    from debate_core.content.coverage import gaps_from_edges, pack_edges

    if pack is not None:
        if isinstance(pack, str):
            from debate_core.content.packs import get_pack

            pack = get_pack(pack)
        slugs, edges = pack_edges(pack)
        info = {"name": pack.name, "version": pack.version, "path": pack.path}
    else:
        try:
            matrix, gaps = archive.coverage_snapshot()  # the archive's latest pack snapshot
            slugs = [str(x) for x in matrix.index]
            edges = [
                (str(a), str(b)) for a in matrix.index for b in matrix.columns for _ in range(int(matrix.loc[a, b]))
            ]
            info = gaps.get("pack", {})
        except Exception:  # noqa: BLE001 - no snapshot yet: the default pack
            from debate_core.content.packs import get_pack

            p = get_pack(None)
            slugs, edges = pack_edges(p)
            info = {"name": p.name, "version": p.version, "path": p.path}
    return slugs, edges, {**gaps_from_edges(slugs, edges), "pack": info}


def coverage_vs_debates(
    archive, *, pack: None | str | Any = None, batch_id: str | None = None, all_pairs: bool = False
) -> pd.DataFrame:
    """Each pair's critique coverage (a→b, b→a, status) beside how often it was debated.

    Rows: every canonical pair, every debated pair and every pair with a critique in
    either direction (``all_pairs=True``: every pair of the pack's masters).  The
    coverage comes from ``pack`` (a Pack or a folder), else the archive's latest pack
    snapshot, else the default pack.
    """
    from collections import Counter
    from itertools import combinations

    from debate_core.content.coverage import canonical_pairs

    slugs, edges, _gaps = _coverage_source(archive, pack)
    directed = Counter((a, b) for a, b in edges if a != b)
    canonical = {c["pair"]: c for c in canonical_pairs()}
    deb = archive.pairs_debated(MASTER, batch_id=batch_id)
    debated = {pair_key(p[0], p[1]): r for p, r in zip(deb["pair_list"], deb.to_dict(orient="records"), strict=True)}
    keys: set[str] = set(canonical) | set(debated) | {pair_key(a, b) for a, b in directed}
    if all_pairs:
        keys |= {pair_key(a, b) for a, b in combinations(slugs, 2)}
    rows = []
    known = set(slugs)
    for key in keys:
        if key in canonical:
            a, b = canonical[key]["a"], canonical[key]["b"]
        elif key in debated:
            a, b = debated[key]["pair_list"][0], debated[key]["pair_list"][1]
        else:
            a, b = next((x, y) for x, y in directed if pair_key(x, y) == key)
        ab, ba = directed.get((a, b), 0), directed.get((b, a), 0)
        status = "complete" if ab and ba else "one-way" if ab or ba else "missing"
        d = debated.get(key, {})
        rows.append(
            {
                "pair": key,
                "a": a,
                "b": b,
                "a_to_b": ab,
                "b_to_a": ba,
                "coverage": status,
                "canonical": key in canonical,
                "in_pack": a in known and b in known,
                "debates": int(d.get("debates", 0) or 0),
                "completed": int(d.get("completed", 0) or 0),
                "degraded": int(d.get("degraded", 0) or 0),
                "last_at": d.get("last_at"),
            }
        )
    order = {"missing": 0, "one-way": 1, "complete": 2}
    out = pd.DataFrame(
        rows,
        columns=[
            "pair",
            "a",
            "b",
            "a_to_b",
            "b_to_a",
            "coverage",
            "canonical",
            "in_pack",
            "debates",
            "completed",
            "degraded",
            "last_at",
        ],
    )
    if len(out):
        out["_o"] = out["coverage"].map(order)
        out = out.sort_values(["_o", "debates", "pair"], ascending=[True, False, True]).drop(columns="_o")
    return out.reset_index(drop=True)


def report(
    archive, by: str = "master", *, batch_id: str | None = None, pack: None | str | Any = None
) -> dict[str, pd.DataFrame]:
    """Every analysis at once (the speeches are read once)."""
    sp = master_speeches(archive, batch_id=batch_id)
    return {
        "summary": summary(archive, by, speeches=sp),
        "check_failures": check_failures(archive, by, speeches=sp),
        "restatement": restatement(archive, by, speeches=sp),
        "speech_lengths": speech_lengths(archive, by, speeches=sp),
        "sources_cited": sources_cited(archive, by, speeches=sp),
        "ammo_usage": ammo_usage(archive, by, speeches=sp),
        "coverage_vs_debates": coverage_vs_debates(archive, pack=pack, batch_id=batch_id),
    }


__all__ = [
    "ammo_usage",
    "check_failures",
    "coverage_vs_debates",
    "master_speeches",
    "report",
    "restatement",
    "sources_cited",
    "speech_lengths",
    "summary",
]
