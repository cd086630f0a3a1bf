"""The four burned held-out corpora (tests/fixtures/check_sealed, check_sealed_r2, check_sealed_r3, check_sealed_r5):
floors for no_verdict and no_dialogue.

These corpora were written by people who never saw the rules and were first used as held-out measurements (their
figures before any change are in docs/checks.md, "Held-out measurements").  After that measurement they were
*burned*: the two rules were then tuned on them, so the figures asserted here are tuning figures, not evidence of
generalization — a fresh sealed corpus measures that.  They are asserted as floors so that a later change cannot
silently lose what the structural readings (checks/appraisal.py, checks/scene.py) catch on them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core.checks import run_checks
from tests.check_corpus_support import context, load_corpus

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RULES = ("no_verdict", "no_dialogue")

# corpus -> rule -> (caught at least, out of); measured after tuning (bench/check_corpus.py --corpus …)
FLOORS = {
    "check_sealed": {"no_verdict": (9, 9), "no_dialogue": (8, 9)},
    "check_sealed_r2": {"no_verdict": (11, 11), "no_dialogue": (10, 10)},
    "check_sealed_r3": {"no_verdict": (16, 16), "no_dialogue": (16, 16)},
    # r5 was measured once held out (no_verdict 7 / 25, no_dialogue 21 / 25, traps t028 and t033 flagged), then burned
    "check_sealed_r5": {"no_verdict": (24, 25), "no_dialogue": (23, 25)},
}


def _failed(case, pack) -> set[str]:
    return {f.rule for f in run_checks(case.text, context(case, pack)) if not f.passed}


@pytest.fixture(scope="module", params=sorted(FLOORS))
def corpus(request, default_pack):
    cases = load_corpus(FIXTURES / request.param)
    return request.param, [(c, _failed(c, default_pack)) for c in cases]


def test_verdict_and_dialogue_catch_at_least_the_burned_figures(corpus):
    name, results = corpus
    for rule in RULES:
        meant = [(c, failed) for c, failed in results if c.kind == "violation" and c.rule == rule]
        caught = [c.id for c, failed in meant if rule in failed]
        floor, total = FLOORS[name][rule]
        assert len(meant) == total, (name, rule, len(meant))
        assert len(caught) >= floor, (name, rule, f"{len(caught)} / {total}", [c.id for c, _f in meant])


def test_verdict_and_dialogue_flag_no_burned_trap(corpus):
    name, results = corpus
    flagged = [(c.id, sorted(failed & set(RULES))) for c, failed in results if c.kind == "trap" and failed & set(RULES)]
    assert not flagged, (name, flagged)


def test_verdict_and_dialogue_flag_no_other_rules_violation(corpus):
    name, results = corpus
    stray = [
        (c.id, sorted((failed & set(RULES)) - {c.rule} - set(c.also)))
        for c, failed in results
        if c.kind == "violation" and (failed & set(RULES)) - {c.rule} - set(c.also)
    ]
    assert not stray, (name, stray)
