"""The Archive's "Open in Outcome" follows the ticked row (issue 25, item 1), through AppTest.

A selectbox keyed ``open_id`` with ``index=`` kept its stored value, so ticking a row and pressing
Open opened whatever the picker held (the first row). AppTest cannot click a table row; it sets
the table's selection state (``debates``) as the browser would send it. The real click is in
tests/test_browser.py::test_archive_opens_exactly_the_ticked_row.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.app_support import REPO, offline_debate

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


@pytest.fixture
def debates(tmp_path, monkeypatch):
    """Five master debates, newest first: four copies with distinct topics under a fresh one."""
    from debate_core.archive import open_archive
    from debate_core.models import utcnow

    path = tmp_path / "archive.duckdb"
    monkeypatch.setenv("DEBATE_ARCHIVE", str(path))
    for var in ("DEBATE_MODEL", "DEBATE_API_BASE", "DEBATE_TEST_SLOW_ROUND"):
        monkeypatch.delenv(var, raising=False)
    arc = open_archive(path)
    base = offline_debate(arc)
    base.created_at = utcnow()
    arc.save(base)
    out = [base]
    for n, word in enumerate(("顿悟", "渐修", "止观", "唯识")):
        d = base.model_copy(deep=True)
        d.id = f"rowpick{n:05d}"
        d.topic = f"选行第{n + 1}场：{word}"
        d.created_at = d.updated_at = base.created_at - timedelta(minutes=n + 1)
        arc.save(d)
        out.append(d)
    return out


def _picker(at):
    return next(s for s in at.selectbox if s.label == "Debate")


def _opens(at) -> str:
    link = next(p for p in at.get("page_link") if p.proto.label == "Open in Outcome")
    assert link.proto.page == "Outcome"
    return dict(kv.split("=", 1) for kv in link.proto.query_string.split("&"))["id"]


def _tick(at, row):
    at.session_state["debates"] = {"selection": {"rows": [] if row is None else [row], "columns": [],
                                                 "cells": []}}
    return at.run()


def _clean(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_open_follows_the_ticked_row_then_the_picker(debates):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/4_Archive.py")
    at.query_params["lang"] = "en"
    at.run()
    _clean(at)
    assert list(at.dataframe[0].value["id"]) == [d.id for d in debates]
    assert _picker(at).value == debates[0].id and _opens(at) == debates[0].id  # nothing ticked: the first row

    _tick(at, 2)  # a row that is not the first: exactly that debate, not what the picker held
    _clean(at)
    assert _picker(at).value == debates[2].id and _opens(at) == debates[2].id

    _picker(at).select(debates[4].id).run()  # the picker, used after the tick, is the last word
    assert _opens(at) == debates[4].id
    _tick(at, 2)  # the same tick on the next run does not pull the picker back
    assert _opens(at) == debates[4].id

    _tick(at, 1)  # another row ticked
    assert _picker(at).value == debates[1].id and _opens(at) == debates[1].id
    _tick(at, None)  # unticked: the picker keeps its debate
    assert _opens(at) == debates[1].id
    _tick(at, 3)
    assert _opens(at) == debates[3].id
    _tick(at, 99)  # a stale row number (a shorter table) is ignored
    _clean(at)
    assert _opens(at) == debates[3].id


def test_a_choice_the_filters_hide_falls_back_to_a_shown_row(debates):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.switch_page("pages/4_Archive.py")
    at.query_params["lang"] = "en"
    at.run()
    _tick(at, 4)
    assert _opens(at) == debates[4].id
    _tick(at, None)
    next(t for t in at.text_input if t.label == "Text in the topic or the speeches").input("渐修").run()
    _clean(at)
    assert list(at.dataframe[0].value["id"]) == [debates[2].id]
    assert _picker(at).value == debates[2].id and _opens(at) == debates[2].id
