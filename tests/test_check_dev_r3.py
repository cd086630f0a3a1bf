"""The r3 development corpus (tests/fixtures/check_dev_r3): verdict and dialogue shapes written for tuning.

Every violation is caught by its rule (no_verdict or no_dialogue) and no trap is flagged by any rule.
The sealed sets (tests/fixtures/check_sealed*) are measured separately and never read here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core.checks import run_checks
from tests.check_corpus_support import context, load_corpus

DEV_R3 = Path(__file__).resolve().parent / "fixtures" / "check_dev_r3"
CASES = load_corpus(DEV_R3)
VIOLATIONS = [c for c in CASES if c.kind == "violation"]
TRAPS = [c for c in CASES if c.kind == "trap"]


def test_the_dev_r3_corpus_covers_verdict_and_dialogue():
    rules = [c.rule for c in VIOLATIONS]
    assert rules.count("no_verdict") >= 40 and rules.count("no_dialogue") >= 40 and len(TRAPS) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", VIOLATIONS, ids=lambda c: c.id)
def test_every_dev_r3_violation_is_caught_by_its_rule(case, default_pack):
    f = {x.rule: x for x in run_checks(case.text, context(case, default_pack))}[case.rule]
    assert not f.passed and not f.undecided, (case.id, f.message)


@pytest.mark.parametrize("case", TRAPS, ids=lambda c: c.id)
def test_no_dev_r3_trap_is_flagged(case, default_pack):
    failed = [(f.rule, f.message) for f in run_checks(case.text, context(case, default_pack)) if not f.passed]
    assert not failed, (case.id, case.why)
