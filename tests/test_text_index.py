"""The text-search index against its oracle: DuckDB's own regexp scan of every speech.

Texts mix the characters where case rules get tricky (the Kelvin sign, the long s, dotted
capital I, Greek final sigma, sharp s), CJK, digits and regexp metacharacters.  Whatever
the needle, the index (through runs, merges and the unindexed tail) must give exactly the
debates a plain scan gives, and the list must give the newest of them in order.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import debate_core.archive.text_index as ti
from debate_core.archive import open_archive
from debate_core.models import Debate, DebateConfig, Speech

TRICKY = ["\u212a", "\u017f", "\u0130", "ς", "σ", "Σ", "ß", "ẞ", "Ü", "ü"]
ALPHABET = list("abcSKkstzIiı") + TRICKY * 3 + list("止观念佛顿悟自性清净无明") + list("0123456789 .*+?()[]{}|^$\\%_，。")


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(n))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """70 debates of 3 speeches; indexed in small runs (GROUP 2, RUN_MIN 64, FANOUT 2, so merges
    happen), with the last 21 speeches, recorded live, left past the index."""
    mp = pytest.MonkeyPatch()
    for name, value in (("GROUP", 2), ("RUN_MIN", 64), ("FANOUT", 2), ("CHUNK", 10), ("VECTOR", 4), ("RANGES_PER_QUERY", 3),
                        ("FIRST_CHUNK", 3)):
        mp.setattr(ti, name, value)
    rng = random.Random(20261129)
    arc = open_archive(tmp_path_factory.mktemp("ti") / "a.duckdb")
    base = datetime(2026, 3, 1)
    debates = []
    for i in range(70):
        d = Debate(id=f"t{i:03d}", protocol="topic", topic=_text(rng, 6), config=DebateConfig(topic="x"),
                   rounds=[Speech(round=r, speaker="甲", role="立论", text=_text(rng, rng.randint(0, 40)))
                           for r in (1, 2, 3)], created_at=base + timedelta(minutes=(i * 13) % 70))
        debates.append(d)
    for k in range(0, 63, 9):  # bulk writes index as they go, merging runs
        arc.save_many(debates[k:k + 9])
    for d in debates[63:]:  # recorded live, speech by speech: these stay past the index (the tail)
        rounds, d.rounds = d.rounds, []
        arc.start(d)
        for sp in rounds:
            d.rounds.append(sp)
            arc.speech(d, sp)
        arc.update(d)
    with arc._session() as con:
        assert ti.covered_to(con) > 0 and max(r[1] for r in ti.runs(con)) >= 1  # runs were merged
        assert 2 * ti.GROUP <= ti.backlog(con) < ti.RUN_MIN  # whole groups past the index: searches scan them
    yield arc, debates, rng
    mp.undo()


def _oracle(arc, needle: str) -> set[str]:
    with arc._session() as con:
        return {r[0] for r in con.execute("SELECT DISTINCT debate_id FROM speeches WHERE regexp_matches(text, ?)",
                                          [ti.pattern(needle)]).fetchall()}


def _topic_oracle(arc, needle: str) -> set[str]:
    with arc._session() as con:
        return {r[0] for r in con.execute("SELECT id FROM debates WHERE regexp_matches(topic, ?)",
                                          [ti.pattern(needle)]).fetchall()}


@st.composite
def needles(draw):
    """A piece of some speech with its case changed here and there, or any string of the alphabet."""
    if draw(st.booleans()):
        return draw(st.text(alphabet=ALPHABET, min_size=1, max_size=5)).strip() or "a"
    seed = draw(st.integers(0, 10**6))
    size = draw(st.integers(1, 6))
    flips = draw(st.lists(st.booleans(), min_size=size, max_size=size))
    return seed, size, flips


def _materialise(spec, debates) -> str:
    if isinstance(spec, str):
        return spec
    seed, size, flips = spec
    texts = [s.text for d in debates for s in d.rounds if len(s.text) >= size]
    t = texts[seed % len(texts)]
    at = seed % (len(t) - size + 1)
    piece = t[at:at + size]
    return "".join(c.swapcase() if f else c for c, f in zip(piece, flips)).strip() or "a"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=needles(), scan_fraction=st.sampled_from([0.0, 0.3, 1.0]), limit=st.integers(0, 12))
def test_index_agrees_with_a_regexp_scan(corpus, spec, scan_fraction, limit):
    arc, debates, _ = corpus
    needle = _materialise(spec, debates)
    want = _oracle(arc, needle)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ti, "SCAN_FRACTION", scan_fraction)
        assert set(arc.search_speeches(needle)) == want, repr(needle)
        with arc._session() as con:
            narrowed = ti._narrow(con, needle)
            if narrowed is not None:  # the index never loses a candidate
                assert want <= set(ti.candidate_debates(con, needle)), repr(needle)
        newest = sorted(debates, key=lambda d: (-d.created_at.timestamp(), d.id))
        expect = [d.id for d in newest if d.id in want or d.id in _topic_oracle(arc, needle)][:limit]
        assert list(arc.list_debates(text=needle, limit=limit)["id"]) == expect, repr(needle)


def test_case_rules_the_index_must_follow(tmp_path, monkeypatch):
    """Pinned cases: the Kelvin sign and the long s match k and s case-insensitively, so the
    index folds them onto k and s; Greek and Turkish letters are left to the scan."""
    monkeypatch.setattr(ti, "GROUP", 2)
    monkeypatch.setattr(ti, "SCAN_FRACTION", 1.0)
    arc = open_archive(tmp_path / "a.duckdb")
    texts = ["A \u212aELVIN scale", "a lo\u017fT \u017ftar", "ΣΟΦΙΑ σοφίας", "plain words", "İstanbul"]
    arc.save_many([Debate(id=f"c{i}", protocol="topic", topic="case", config=DebateConfig(topic="case"),
                          rounds=[Speech(round=1, speaker="甲", role="立论", text=t)]) for i, t in enumerate(texts)])
    arc.refresh_search_index(minimum=1)
    with arc._session() as con:
        assert ti.covered_to(con) == 6 and ti.backlog(con) == 0  # snos 1..5: everything is indexed
    for needle, want in [("kelvin", ["c0"]), ("KELVIN SC", ["c0"]), ("lost", ["c1"]), ("LOST ST", ["c1"]),
                         ("σοφια", ["c2"]), ("ΣΟΦΊΑΣ", ["c2"]), ("istanbul", []), ("İstanbul", ["c4"])]:
        assert arc.search_speeches(needle) == sorted(_oracle(arc, needle)) == want, needle


def test_two_writers_index_while_a_reader_searches(tmp_path):
    """Real processes: two writers save 60 debates each (their bulk writes index and merge), a
    third searches all the while.  Every search succeeds and never loses a debate; at the end
    the index answers exactly what a scan of the text does, and no speech number repeats."""
    import subprocess
    import sys

    from tests.archive_helpers import REPO

    path = tmp_path / "a.duckdb"
    open_archive(path)
    stop = tmp_path / "stop"
    run = [sys.executable, "-m", "tests.text_index_worker", str(path)]
    reader = subprocess.Popen(run + ["reader", str(stop)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    writers = [subprocess.Popen(run + ["writer", name], cwd=REPO) for name in ("w1", "w2")]
    assert [w.wait(180) for w in writers] == [0, 0]
    stop.touch()
    out, _ = reader.communicate(timeout=60)
    assert reader.returncode == 0, out
    assert int(out.split()[-1]) > 0  # it searched while they wrote

    arc = open_archive(path)
    with pytest.MonkeyPatch.context() as mp:
        for name, value in (("RUN_MIN", 8), ("GROUP", 2), ("CHUNK", 16), ("FANOUT", 2)):
            mp.setattr(ti, name, value)
        status = arc.search_index_status()
        assert status["speeches"] == 360 and status["runs"] >= 1 and status["waiting"] < ti.RUN_MIN
        assert arc.search_speeches("共同词") == sorted(_oracle(arc, "共同词")) and len(_oracle(arc, "共同词")) == 120
        for needle in ("w1第7批", "w2第19批第2场", "第3轮 共同"):
            assert set(arc.search_speeches(needle)) == _oracle(arc, needle), needle
    assert arc.query("SELECT count(*) - count(DISTINCT sno) AS d FROM speeches")["d"][0] == 0
