"""One translation path for a debate's content (debate_core/i18n.py, docs/architecture.md "Languages of a
debate's content"):

* every msgid the library uses (``_()``, ``tr()``, ``trp()``, ``N_()``) is in both catalogs
  (debate_core/locales/<lang>/LC_MESSAGES/debate.po) and in the template, with a translation that keeps its
  placeholders, and Babel's extraction (what a translator runs) sees exactly those msgids;
* a msgid missing from a catalog falls back to English, visibly (recorded and logged);
* no module of the library keeps its own per-language table of content strings: no dict keyed "zh"/"en"
  holding text, no ``_ZH`` / ``_zh`` twins, no Chinese text chosen by an ``if lang == …`` branch, but for the
  few documented exceptions below;
* the master debate's Chinese-only words agree with the catalog where both say the same thing;
* the catalogs are package data (``pip install .`` ships them).
"""

from __future__ import annotations

import ast
import fnmatch
import logging
import re
import shutil
from pathlib import Path

import pytest

from debate_core import i18n

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "debate_core"
PLACEHOLDER = re.compile(r"\{[a-z_]*(?:![rs])?\}")
CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef\u3000-\u303f]")
LANG_PART = re.compile(r"(?:^|_)(?:zh|en)(?:_|$)", re.I)

# Documented exceptions (docs/architecture.md): (file or folder, markers of the hits it covers or None, why)
EXCEPTIONS = [
    ("debate_core/analysis/align.py", None,
     "the aligner's stop words and synonyms per language: data it matches arguments with, never text it shows"),
    ("debate_core/checks/", None,
     "the master debates' checks (master debates are Chinese only): a rule's Chinese label, which the debate "
     "writes and its importer reads back, and its English name for the app's chrome"),
    ("debate_core/render/master.py", None,
     "the master debate's Markdown (the seed's format, Chinese only, read back by the importer): written once, "
     "in Chinese"),
    ("debate_core/engines/verdicts.py", ("_ZH_LABEL", "_EN_LABEL"),
     "patterns that read a judge's labels in either script (parsing, not text shown)"),
]


def po(lang: str):
    from babel.messages.pofile import read_po

    with (LIB / "locales" / lang / "LC_MESSAGES" / "debate.po").open("rb") as fh:
        return read_po(fh, locale=lang)


def entries(cat) -> dict[tuple[str | None, str], object]:
    return {(m.context, m.id): m for m in cat if m.id}


# ------------------------------------------------------------------ catalogs


def used_msgids() -> dict[tuple[str | None, str], str]:
    """(context, msgid) -> where, for every string constant the library passes to ``_``, ``tr``, ``trp`` or
    ``N_`` (read from the syntax tree, so a call inside an f-string counts too)."""
    found: dict[tuple[str | None, str], str] = {}
    for path in sorted(LIB.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
            key = None
            if name in ("_", "N_") and args and args[0]:
                key = (None, args[0])
            elif name == "tr" and len(args) > 1 and args[1]:
                key = (None, args[1])
            elif name == "trp" and len(args) > 2 and args[1] and args[2]:
                key = (args[1], args[2])
            if key:
                found.setdefault(key, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_msgid_the_library_uses_is_in_both_catalogs_and_the_template():
    from babel.messages.pofile import read_po

    used = used_msgids()
    assert len(used) > 250 and (None, "Debate log: {topic}") in used and ("list", ", ") in used
    with (LIB / "locales" / "debate.pot").open("rb") as fh:
        template = {k for k in entries(read_po(fh))}
    assert set(used) == template, {"not in debate.pot": set(used) - template, "stale": template - set(used)}
    for lang in ("en", "zh"):
        cat = entries(po(lang))
        missing = {k: where for k, where in used.items() if k not in cat}
        assert not missing, (lang, missing)
        assert not set(cat) - set(used), (lang, "stale entries", set(cat) - set(used))
        for (ctx, msgid), m in cat.items():
            assert m.string and not m.fuzzy, (lang, ctx, msgid)
            assert sorted(PLACEHOLDER.findall(m.string)) == sorted(PLACEHOLDER.findall(msgid)), (lang, msgid, m.string)
            if lang == "en" and ctx is None:  # English is the source language: msgstr = msgid
                assert m.string == msgid, msgid
            if lang == "zh" and any(c.isalpha() for c in msgid) and msgid not in ("en",):
                assert CJK.search(m.string), (msgid, m.string)


def test_babel_extraction_sees_exactly_the_msgids_the_code_uses():
    """What `pybabel extract -k tr:2 -k trp:2c,3` finds (docs) is what the code uses: no call inside an f-string
    (Babel cannot see it), no stray call of a name that happens to be a keyword."""
    from babel.messages.extract import extract_from_dir

    extracted = {(ctx, msg[0] if isinstance(msg, tuple) else msg)
                 for _f, _l, msg, _c, ctx in extract_from_dir(str(LIB), [("**.py", "python")], {},
                                                               keywords=i18n.KEYWORDS) if msg}
    used = set(used_msgids())
    assert extracted == used, {"only the code uses": used - extracted, "only Babel sees": extracted - used}


def test_tr_translates_formats_and_takes_a_context():
    assert i18n.tr("zh", "Topic") == "辩题" and i18n.tr("en", "Topic") == "Topic"
    assert i18n.tr("zh", "Round {r}", r=2) == "第 2 轮" and i18n.tr("en", "Round {r}", r=2) == "Round 2"
    assert i18n.tr("zh", "Round {r}") == "第 {r} 轮"  # no fields given: the template, to format later
    assert i18n.trp("zh", "list", ", ") == "、" and i18n.tr("zh", ", ") == "，"  # the same English, two senses
    assert i18n.trp("en", "list", ", ") == ", "
    assert i18n.translator("zh")("Verdict") == "裁决"


def test_a_msgid_missing_from_a_catalog_falls_back_to_english_visibly(tmp_path, monkeypatch, caplog):
    """A catalog that lacks an entry (here: a copy of the real ones with one entry taken out of zh)."""
    from babel.messages.pofile import read_po, write_po

    locales = tmp_path / "locales"
    shutil.copytree(LIB / "locales", locales)
    zh_po = locales / "zh" / "LC_MESSAGES" / "debate.po"
    with zh_po.open("rb") as fh:
        cat = read_po(fh, locale="zh")
    gone = "Judge's verdict: {topic}"
    assert gone in cat
    cat.delete(gone)
    with zh_po.open("wb") as fh:
        write_po(fh, cat)
    monkeypatch.setattr(i18n, "LOCALES", locales)
    i18n.catalog.cache_clear()
    i18n.MISSING.discard(("zh", gone))
    try:
        with caplog.at_level(logging.WARNING, logger="debate_core.i18n"):
            assert i18n.tr("zh", gone, topic="远程办公") == "Judge's verdict: 远程办公"
        assert ("zh", gone) in i18n.MISSING
        assert any(gone in r.getMessage() and "zh" in r.getMessage() for r in caplog.records)
        assert i18n.tr("en", gone, topic="x") == "Judge's verdict: x" and ("en", gone) not in i18n.MISSING
        assert i18n.tr("zh", "Topic") == "辩题"  # the rest of the catalog still translates
        # a rendering in that language shows the English line where the catalog has a hole
        from debate_core.models import Debate, DebateConfig
        from debate_core.render.judged import verdict_md

        d = Debate(id="t1", protocol="topic", topic="远程办公好吗", lang="zh",
                   config=DebateConfig(protocol="topic", topic="远程办公好吗"))
        assert verdict_md(d).startswith("# Judge's verdict: 远程办公好吗\n")
    finally:
        i18n.MISSING.discard(("zh", gone))
        i18n.catalog.cache_clear()


def test_the_master_debates_chinese_words_agree_with_the_catalog():
    """render/master.py writes the master debate's Chinese once (documented exception); where the HTML page
    and the other renderings say the same thing through the catalog, it is the same Chinese."""
    from debate_core.render import html, judged, master

    assert {s: i18n.tr("zh", s) for s in judged.STATUS} == master.STATUS_ZH
    assert {k: i18n.tr("zh", v) for k, v in html.MARKS.items()} == master.MARK_ZH
    assert {k: i18n.tr("zh", v) for k, v in html.MARKS_PLAIN.items()} == master.MARK_ZH_PLAIN
    assert i18n.tr("zh", "model audit") == master.MODEL_LAYER_ZH
    assert i18n.tr("zh", "Neutral observation") == master.OBSERVATION_HEADING
    assert tuple(i18n.tr("zh", k) for k in html.OBSERVATION_KEYS) == master.OBSERVATION_KEYS


def test_the_catalogs_are_package_data():
    import tomllib

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["debate_core"]
    for lang in ("en", "zh"):
        rel = f"locales/{lang}/LC_MESSAGES/debate.po"
        assert (LIB / rel).is_file()
        assert any(fnmatch.fnmatch(rel, g) for g in globs), (rel, globs)
    assert i18n.LOCALES == LIB / "locales"


# ------------------------------------------------------- no per-language tables


def _strs(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value]


def _lang_test(node: ast.AST) -> bool:
    """``lang == "zh"``, ``lang in ("en",)``, ``lang.startswith("zh")``, or a flag named ``zh`` / ``en``."""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and LANG_PART.search(n.id) and n.id.lower().strip("_") in ("zh", "en", "is_zh",
                                                                                            "is_en"):
            return True
        if isinstance(n, ast.Compare):
            for c in [n.left, *n.comparators]:
                elts = c.elts if isinstance(c, (ast.Tuple, ast.List, ast.Set)) else [c]
                if any(isinstance(e, ast.Constant) and e.value in ("zh", "en") for e in elts):
                    return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "startswith" \
                and any(isinstance(a, ast.Constant) and a.value in ("zh", "en") for a in n.args):
            return True
    return False


def _text_twin(a: ast.AST, b: ast.AST) -> bool:
    """One branch holds Chinese text and the other text too (a language code alone is not text)."""
    sa, sb = [s for s in _strs(a) if s not in ("zh", "en")], [s for s in _strs(b) if s not in ("zh", "en")]
    return (any(CJK.search(s) for s in sa) and bool(sb)) or (any(CJK.search(s) for s in sb) and bool(sa))


def language_tables(path: Path) -> list[str]:
    """Where a module keeps content strings per language: a dict keyed "zh" and "en" whose values are not
    built objects, a name or def with a _zh / _en / ZH_ part, a text chosen between Chinese and another
    by a language test, Chinese text under an ``if lang == …`` branch."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if {"zh", "en"} <= keys and not all(isinstance(v, ast.Call) for v in node.values):
                hits.append(f"{rel}:{node.lineno}: a table keyed by language")
        elif isinstance(node, ast.IfExp) and _lang_test(node.test) and _text_twin(node.body, node.orelse):
            hits.append(f"{rel}:{node.lineno}: a text chosen by language: {ast.unparse(node)[:90]}")
        elif isinstance(node, ast.If) and _lang_test(node.test):
            inside = ast.Module(body=node.body + node.orelse, type_ignores=[])
            if any(CJK.search(s) for s in _strs(inside)):
                hits.append(f"{rel}:{node.lineno}: Chinese text under a language branch: {ast.unparse(node.test)}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and LANG_PART.search(node.name):
            hits.append(f"{rel}:{node.lineno}: a per-language twin: {node.name}")
    top = [*tree.body, *[b for c in tree.body if isinstance(c, ast.ClassDef) for b in c.body]]
    for node in top:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        for name in [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]:
            if LANG_PART.search(name):
                hits.append(f"{rel}:{node.lineno}: a per-language table: {name}")
    return hits


def _excused(hit: str) -> bool:
    return any(hit.startswith(where) and (markers is None or any(m in hit for m in markers))
               for where, markers, _why in EXCEPTIONS)


def test_no_module_keeps_its_own_language_table_of_content_strings():
    hits = [h for p in sorted(LIB.rglob("*.py")) for h in language_tables(p)]
    assert hits, "the finder found nothing at all: the exceptions below should show"
    left = [h for h in hits if not _excused(h)]
    assert not left, "per-language text outside the catalogs (debate_core/i18n.py):\n" + "\n".join(left)
    for where, markers, why in EXCEPTIONS:  # an exception nothing needs any more goes
        assert any(h.startswith(where) and (markers is None or any(m in h for m in markers)) for h in hits), \
            (where, why)


def test_the_table_finder_sees_the_usual_shapes(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('TEXT = {"zh": {"a": "甲"}, "en": {"a": "A"}}\nSTATUS_ZH = {"ok": "好"}\n'
                     'def label_en(x):\n    return x\n'
                     'def f(lang):\n    sep = "；" if lang == "zh" else "; "\n'
                     '    if lang == "zh":\n        return "第一轮"\n    return sep\n'
                     'PROMPTS = {"zh": object(), "en": object()}\nNORM = "en" if f("x") == "en" else "zh"\n'
                     'def g(zh):\n    return "## 载入" if zh else "## Load"\n',
                     encoding="utf-8")
    hits = language_tables(probe)
    assert len(hits) == 6, hits  # the table, STATUS_ZH, label_en, the chosen separator, the branch, g's heading
    assert not any("PROMPTS" in h or ":11:" in h for h in hits)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_judged_debate_renders_without_a_missing_msgid(lang):
    """The judged renderings and the HTML page of a finished debate, in each language: every msgid they ask
    for is in the catalog (MISSING stays empty)."""
    from debate_core.models import Debate, DebateConfig, Participant, Speech, Verdict, VerdictRow
    from debate_core.render.html import render_html
    from debate_core.render.judged import progress_line, render_topic, render_trial

    labels = ["辩手甲", "辩手乙"] if lang == "zh" else ["Debater A", "Debater B"]
    env = {"stance": "s", "arguments": [{"id": "A1", "point": "p|q", "reasoning": "r", "evidence": "e"}],
           "rebuttals": [{"target": labels[1] + " A1", "content": "c"}], "no_new_points": True}
    d = Debate(id="x1", protocol="topic", topic="t", lang=lang, planned_rounds=2, status="completed",
               config=DebateConfig(protocol="topic", topic="t", workspace="/tmp"),
               participants=[Participant(label=lab, name=lab, stance=f"s{i}", model="m") for i, lab in
                             enumerate(labels)],
               rounds=[Speech(round=r, speaker=lab, speaker_name=lab, role="opening" if r == 1 else "rebuttal",
                              envelope=env, retries=1, truncated=True, text="x") for r in (1, 2) for lab in labels],
               verdict=Verdict(winner=labels[1], summary="why", reasons={"k": "v"}, complete=False,
                               missing=["row:" + labels[0], "reasons"],
                               rows=[VerdictRow(label=labels[1], stance="s1", strongest="a", weakness="b", score=7)],
                               note="n"))
    i18n.MISSING.clear()
    out = render_topic(d, archive="a.duckdb") + render_html(d) + "".join(progress_line(s, lang) for s in d.rounds)
    trial = d.model_copy(update={"protocol": "trial", "verdict": Verdict(winner="con", summary="s", per_round=[],
                                                                        missing=["round:1"], complete=False)})
    out += render_trial(trial)
    assert not i18n.MISSING, sorted(i18n.MISSING)
    assert (CJK.search(out) is not None) == (lang == "zh")


def test_importing_the_library_reads_no_catalog():
    """The catalogs are read on first use: importing the protocols, renderers, tools and CLI loads no Babel."""
    import os
    import subprocess
    import sys

    code = ("import sys\n"
            "import debate_core.cli.main, debate_core.render.html, debate_core.research.tools\n"
            "import debate_core.io.exporters\n"
            "from debate_core.protocols import registry\n"
            "[registry.get(n) for n in registry.names()]\n"
            "print(sorted(k for k in sys.modules if k.split('.')[0] == 'babel')[:3])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr[-2000:]


def test_the_prompt_languages_hold_prose_only_and_share_the_builders():
    """engines/judged_prompts/{zh,en}.py: the same names, the same template fields, no function of their own
    (the builders are judged_prompts.layout.Prompts's, one set for both languages)."""
    from debate_core.engines.judged_prompts import en, for_lang, zh

    folder = LIB / "engines" / "judged_prompts"
    for mod in ("en.py", "zh.py"):
        tree = ast.parse((folder / mod).read_text(encoding="utf-8"))
        defs = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                                 ast.Lambda))]
        assert not defs, (mod, defs)
    names = {n for n in vars(en) if n.isupper()}
    assert names == {n for n in vars(zh) if n.isupper()} and len(names) > 30
    for name in sorted(names):
        a, b = getattr(en, name), getattr(zh, name)
        if isinstance(a, str) and "{" in a and not a.lstrip().startswith(("Output", "{")) and "JSON" not in name:
            assert sorted(re.findall(r"\{(\w*)\}", a)) == sorted(re.findall(r"\{(\w*)\}", b)), name
    for lang in ("zh", "en"):  # the builders produce the same shapes in both languages
        P = for_lang(lang)
        msgs = P.trial_speaker_messages("con", "t", 2, 2, [(1, "pro", "a"), (1, "con", "b"), (2, "pro", "c")], 100,
                                        True)
        assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
        assert [m["role"] for m in P.rebuttal_messages(P.LABELS[0], "s", "t", 3, 3, "{}", [], [("{}", [])])] == \
            ["system", "user", "assistant", "user", "assistant", "user"]
