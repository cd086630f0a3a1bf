"""The archive's text-search index: an inverted index of character bigrams.

Speeches are numbered in the order they are stored (``speeches.sno``).  Every
``GROUP`` consecutive numbers form one posting unit, a *group*.  The index maps each
case-folded character bigram to the groups whose speeches contain it, so a search
reads only the postings of the needle's bigrams, intersects them, and checks the
text of the candidate groups alone.  Postings only ever over-approximate (a deleted
or re-run speech leaves its postings behind), so results are exact: every candidate
is checked with ``regexp_matches``.

Storage is a small log-structured merge tree inside the archive file:

* ``search_runs`` lists the runs: run number, level, the speech numbers covered
  ``[first_sno, end_sno)`` (whole groups), posting rows, build time;
* each run is its own table ``search_run_<n> (gram BIGINT, grp INTEGER)`` written in
  ``(gram, grp)`` order, so DuckDB's zone maps find one bigram's postings by reading
  one or two row groups per run;
* a refresh writes the speeches not yet covered as one new run, then merges runs
  ``FANOUT`` at a time whenever that many share a level (size-tiered), which keeps
  the number of runs logarithmic in the archive's size;
* speeches past the last run (fewer than ``RUN_MIN``, or a group still filling) are
  checked directly by a range scan on ``sno``.

A bigram's key is ``(first code point << 21) | second code point``: exact, no hash
collisions.  This module holds no connection of its own; the archive passes in an
attached session.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

GROUP = 16  # speeches per posting group (by speeches.sno)
RUN_MIN = 4096  # a refresh writes a run once this many speeches are uncovered (a multiple of GROUP)
FANOUT = 4  # runs of one level merged into one of the next
CHUNK = 65_536  # speeches read per batch while indexing
SCAN_FRACTION = 0.08  # candidates above this share of all speeches: the index is not used
RANGES_PER_QUERY = 48  # rowid ranges in one verification query
VECTOR = 2048  # DuckDB's vector size: rowid spans are cut at its boundaries
FIRST_CHUNK = 512  # debates checked in the first chunk when looking for the newest matches

_RE2_SPECIAL = set("\\.^$|?*+()[]{}")


def fold(text: str) -> str:
    """Case folding for the index.  It must map every character that the case-insensitive
    regexp matches against an ASCII letter onto that letter's lower case (the Kelvin sign
    and the long s included), so the index never misses a match."""
    return text.replace("\u0130", "I").replace("\u017f", "s").lower()


def _safe(c: str) -> bool:
    # other scripts' case rules do not line up with the regexp's, so only these characters'
    # bigrams are looked up: ASCII, and characters without case (CJK, digits, punctuation)
    return c.isascii() or c.lower() == c.upper()


def needle_grams(needle: str) -> list[int]:
    """The bigram keys a needle's matches must contain (only pairs of safe characters)."""
    t = fold(needle)
    return sorted({(ord(a) << 21) | ord(b) for a, b in zip(t, t[1:], strict=False) if _safe(a) and _safe(b)})


def indexable(needle: str) -> bool:
    """Whether the index can narrow a search for ``needle``: it has a bigram of safe characters."""
    return bool(needle_grams(needle))


def pattern(needle: str) -> str:
    """An RE2 pattern matching ``needle`` literally, case-insensitively when it has cased letters."""
    body = "".join("\\" + c if c in _RE2_SPECIAL else c for c in needle)
    return ("(?i)" if any(c.lower() != c.upper() for c in needle) else "") + body


def posting_keys(snos, texts: list[str]):
    """(gram, grp) pairs of a batch of speeches, as two numpy arrays (not yet distinct)."""
    import numpy as np

    lens = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    joined = fold("\x00".join(texts))
    cp = np.frombuffer(joined.encode("utf-32-le"), dtype="<u4").astype(np.int64)
    if len(cp) != int(lens.sum()) + max(len(texts) - 1, 0):  # folding changed a length: fold one by one
        folded = [fold(t) for t in texts]
        lens = np.fromiter((len(t) for t in folded), dtype=np.int64, count=len(folded))
        cp = np.frombuffer("\x00".join(folded).encode("utf-32-le"), dtype="<u4").astype(np.int64)
    grp_of_speech = np.asarray(snos, dtype=np.int64) // GROUP
    owner = np.repeat(grp_of_speech, lens + 1)[: len(cp)]
    keep = (cp[:-1] != 0) & (cp[1:] != 0)
    grams = ((cp[:-1] << 21) | cp[1:])[keep]
    return grams, owner[:-1][keep].astype(np.int32)


def level_of(speeches: int) -> int:
    return max(0, int(math.log(max(speeches, 1) / RUN_MIN, FANOUT) + 1e-9))


# ------------------------------------------------------------------- reading


def runs(con) -> list[tuple]:
    return con.execute("SELECT run, level, first_sno, end_sno, rows FROM search_runs ORDER BY first_sno").fetchall()


def covered_to(con) -> int:
    """Speech numbers below this are covered by the runs."""
    return int(con.execute("SELECT coalesce(max(end_sno), 0) FROM search_runs").fetchone()[0])


def backlog(con) -> int:
    """Speeches stored past the last run."""
    return int(con.execute("SELECT count(*) FROM speeches WHERE sno >= ?", [covered_to(con)]).fetchone()[0])


def candidate_groups(con, grams: list[int]) -> list[int]:
    """Groups (within the runs) whose speeches hold every one of ``grams``."""
    tables = [f"search_run_{r[0]}" for r in runs(con)]
    if not tables or not grams:
        return []
    inlist = ", ".join(str(int(g)) for g in grams)
    union = " UNION ALL ".join(f"SELECT gram, grp FROM {t} WHERE gram IN ({inlist})" for t in tables)
    rows = con.execute(f"SELECT grp FROM ({union}) GROUP BY grp HAVING count(DISTINCT gram) = {len(grams)}")
    return sorted(r[0] for r in rows.fetchall())


def _narrow(con, needle: str) -> tuple[int, list[int]] | None:
    """(covered_to, candidate groups) when the index narrows a search for ``needle``; None when
    it cannot (no usable bigram, nothing indexed, or candidates above ``SCAN_FRACTION``)."""
    edge = covered_to(con)
    if not edge or not indexable(needle):
        return None
    groups = candidate_groups(con, needle_grams(needle))
    total = con.execute("SELECT count(*) FROM speeches").fetchone()[0]
    return None if len(groups) * GROUP > SCAN_FRACTION * max(total, 1) else (edge, groups)


def search(con, needle: str) -> list[str]:
    """Ids of all debates with a speech containing ``needle`` (case-insensitive), exactly."""
    pat = pattern(needle)
    narrowed = _narrow(con, needle)
    if narrowed is None:
        return _scan(con, "TRUE", [], pat)
    edge, groups = narrowed
    found: set[str] = set()
    if groups:
        found |= _check_spans(
            con,
            con.execute(
                f"SELECT min(rowid), max(rowid) FROM speeches WHERE sno < ? AND (sno // {GROUP})::INTEGER IN "
                f"(SELECT unnest(?::INTEGER[])) GROUP BY sno // {GROUP}, rowid // {VECTOR}",
                [edge, groups],
            ).fetchall(),
            pat,
        )
    found |= set(_scan(con, "sno >= ?", [edge], pat))  # the tail no run covers yet
    return sorted(found)


def candidate_debates(con, needle: str) -> list[str] | None:
    """Debates that may have a speech containing ``needle`` (a superset, unchecked), or None
    when the index cannot narrow the search."""
    narrowed = _narrow(con, needle)
    if narrowed is None:
        return None
    edge, groups = narrowed
    return [
        r[0]
        for r in con.execute(
            f"SELECT DISTINCT debate_id FROM speeches WHERE sno >= ? OR (sno // {GROUP})::INTEGER IN "
            "(SELECT unnest(?::INTEGER[]))",
            [edge, groups],
        ).fetchall()
    ]


def _scan(con, where: str, params: list, pat: str) -> list[str]:
    return sorted(
        r[0]
        for r in con.execute(
            f"SELECT DISTINCT debate_id FROM speeches WHERE {where} AND regexp_matches(text, ?)", params + [pat]
        ).fetchall()
    )


def _check_spans(con, spans: list[tuple[int, int]], pat: str) -> set[str]:
    """Debates with a speech matching ``pat`` among the rows in ``spans`` (rowid ranges).  A
    filter of a few dozen rowid ranges lets DuckDB read only the vectors holding them, where a
    join or an IN list would decode the text of whole row groups."""
    merged: list[list[int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], int(b))
        else:
            merged.append([int(a), int(b)])
    found: set[str] = set()
    for i in range(0, len(merged), RANGES_PER_QUERY):
        ranges = " OR ".join(f"rowid BETWEEN {a} AND {b}" for a, b in merged[i : i + RANGES_PER_QUERY])
        # MATERIALIZED keeps the text predicate out of the scan, so the range filter alone drives it
        found |= {
            r[0]
            for r in con.execute(
                f"WITH c AS MATERIALIZED (SELECT debate_id, text FROM speeches WHERE {ranges}) "
                "SELECT DISTINCT debate_id FROM c WHERE regexp_matches(text, ?)",
                [pat],
            ).fetchall()
        }
    return found


def verify_debates(con, ids: list[str], pat: str) -> set[str]:
    """Those of ``ids`` with a speech matching ``pat`` (reads only around those debates' speeches)."""
    if not ids:
        return set()
    spans = con.execute(
        f"SELECT min(rowid), max(rowid) FROM speeches WHERE debate_id IN "
        f"(SELECT unnest(?::VARCHAR[])) GROUP BY debate_id, rowid // {VECTOR}",
        [ids],
    ).fetchall()
    return _check_spans(con, spans, pat) & set(ids)


def first_matches(con, ordered: list[tuple[str, bool]], needle: str, limit: int) -> list[str]:
    """The first ``limit`` debates of ``ordered`` ((id, topic matched) pairs, in list order)
    that match ``needle`` in their topic or a speech.  Debates are checked in chunks, each
    sized from the hit rate so far (doubling while nothing matches), so the search stops
    soon after the newest ``limit`` are found."""
    pat = pattern(needle)
    out: list[str] = []
    i, size = 0, max(limit, FIRST_CHUNK)
    while i < len(ordered) and len(out) < limit:
        chunk = ordered[i : i + size]
        i += len(chunk)
        hits = verify_debates(con, [d for d, topic in chunk if not topic], pat)
        matched = [d for d, topic in chunk if topic or d in hits]
        out += matched[: limit - len(out)]
        rate = len(matched) / len(chunk)
        size = size * 2 if not matched else max(FIRST_CHUNK // 4, int((limit - len(out)) / rate * 1.25) + 1)
    return out


# ------------------------------------------------------------------- writing


def drop_all(con) -> None:
    for r in runs(con):
        con.execute(f"DROP TABLE IF EXISTS search_run_{r[0]}")
    con.execute("DELETE FROM search_runs")


def refresh(con, *, full: bool = False, minimum: int = RUN_MIN, limit: int | None = None) -> int:
    """Cover the speeches past the last run with a new run (when at least ``minimum`` speeches
    in whole groups are waiting; at most ``limit`` of them), then merge runs level by level.
    Returns the number of speeches newly covered."""
    import pyarrow as pa

    if full:
        drop_all(con)
    top = con.execute("SELECT max(sno) FROM speeches").fetchone()[0]
    if top is None:
        return 0
    lo = covered_to(con)
    hi = (int(top) + 1) // GROUP * GROUP  # whole groups only: the one still filling stays in the tail
    if hi - lo < max(minimum, GROUP):
        return 0
    if limit is not None:
        hi = min(hi, lo + max(limit // GROUP, 1) * GROUP)
    con.execute("CREATE OR REPLACE TEMP TABLE search_new (gram BIGINT, grp INTEGER)")
    try:
        for start in range(lo, hi, CHUNK):
            rows = con.execute(
                "SELECT sno, text FROM speeches WHERE sno >= ? AND sno < ? ORDER BY sno",
                [start, min(start + CHUNK, hi)],
            ).fetchall()
            if not rows:
                continue
            grams, grps = posting_keys([r[0] for r in rows], [r[1] or "" for r in rows])
            batch = pa.table({"gram": grams, "grp": grps})  # noqa: F841 (read by the query below)
            con.execute("INSERT INTO search_new SELECT DISTINCT gram, grp FROM batch")
        _new_run(con, "SELECT gram, grp FROM search_new", lo, hi)
    finally:
        con.execute("DROP TABLE IF EXISTS search_new")
    merge(con)
    return hi - lo


def _new_run(con, source_sql: str, first: int, end: int) -> int:
    run = int(con.execute("SELECT coalesce(max(run), 0) + 1 FROM search_runs").fetchone()[0])
    con.execute(f"CREATE TABLE search_run_{run} AS {source_sql} ORDER BY gram, grp")
    rows = con.execute(f"SELECT count(*) FROM search_run_{run}").fetchone()[0]
    con.execute(
        "INSERT INTO search_runs VALUES (?, ?, ?, ?, ?, ?)",
        [run, level_of(end - first), first, end, rows, datetime.now(UTC).replace(tzinfo=None)],
    )
    return run


def merge(con) -> int:
    """Merge ``FANOUT`` runs of one level into one run while any level has that many.
    Returns the number of merges made."""
    merges = 0
    while True:
        by_level: dict[int, list[tuple]] = {}
        for r in runs(con):
            by_level.setdefault(r[1], []).append(r)
        full = sorted(lv for lv, rs in by_level.items() if len(rs) >= FANOUT)
        if not full:
            return merges
        group = by_level[full[0]][:FANOUT]
        union = " UNION ALL ".join(f"SELECT gram, grp FROM search_run_{r[0]}" for r in group)
        run = _new_run(con, f"SELECT gram, grp FROM ({union})", min(r[2] for r in group), max(r[3] for r in group))
        for r in group:
            con.execute(f"DROP TABLE search_run_{r[0]}")
        con.execute("DELETE FROM search_runs WHERE list_contains(?, run)", [[r[0] for r in group]])
        # a merged run's level follows its size, and never drops below the level it came from
        con.execute("UPDATE search_runs SET level = greatest(level, ?) WHERE run = ?", [full[0] + 1, run])
        merges += 1
