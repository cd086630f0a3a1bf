"""The rule corpus (tests/fixtures/check_corpus): every violation is caught by its rule, no trap is flagged.

The cases are our own speeches on the default pack; each breaks one rule and passes the others
(or names in ``also`` the rules it cannot help breaking), so a case tests one rule in isolation.
"""

from __future__ import annotations

from collections import Counter

import pytest

from debate_core.checks import RULES, run_checks
from tests.check_corpus_support import base_cases, context, load_corpus

CASES = load_corpus()
VIOLATIONS = [c for c in CASES if c.kind == "violation"]
TRAPS = [c for c in CASES if c.kind == "trap"]


def test_the_corpus_is_large_enough_and_covers_every_rule():
    assert len(VIOLATIONS) >= 50 and len(TRAPS) >= 20
    per_rule = Counter(c.rule for c in VIOLATIONS)
    assert set(per_rule) == set(RULES), per_rule
    assert all(per_rule[r] >= 3 for r in RULES), per_rule
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", base_cases(), ids=lambda c: c.id)
def test_every_base_speech_passes(case, default_pack):
    failed = [(f.rule, f.message) for f in run_checks(case.text, context(case, default_pack)) if not f.passed]
    assert not failed


@pytest.mark.parametrize("case", VIOLATIONS, ids=lambda c: c.id)
def test_every_violation_is_caught_by_its_rule(case, default_pack):
    findings = {f.rule: f for f in run_checks(case.text, context(case, default_pack))}
    f = findings[case.rule]
    assert not f.passed and not f.undecided, (case.id, f.message)
    assert f.message, case.id
    others = sorted(r for r, x in findings.items() if not x.passed and r != case.rule)
    assert others == sorted(case.also), (case.id, [(r, findings[r].message) for r in others])


@pytest.mark.parametrize("case", TRAPS, ids=lambda c: c.id)
def test_no_trap_is_flagged(case, default_pack):
    failed = [(f.rule, f.message) for f in run_checks(case.text, context(case, default_pack)) if not f.passed]
    assert not failed, (case.id, case.why)


def test_quote_marks_in_the_corpus(default_pack):
    by_id = {c.id: c for c in CASES}
    marks = {}
    for cid in ("t28", "t29", "c08", "c09"):
        f = next(x for x in run_checks(by_id[cid].text, context(by_id[cid], default_pack)) if x.rule == "citation")
        marks[cid] = [m.status for m in f.marks if m.quote]
    assert marks == {"t28": ["verified"], "t29": ["verified"], "c08": ["unverified"], "c09": ["unverified"]}
