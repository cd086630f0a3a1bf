"""The offline engine argues from the pack's teachings: no repetition, no pack editorial, every check passed."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from debate_core.checks import CheckContext, run_checks
from debate_core.models import DebateConfig, SpeechRequest
from debate_core.engines.offline import LEVELS, OfflineEngine, sentences_of
from debate_core.protocols.master import MasterDebate

# Two topics of our own per pair: 24 debates per pack.
TOPIC_PAIRS = [
    (("huineng", "yinguang"), "禅净之争", "临终时靠什么得力"),
    (("kumarajiva", "xuanzang"), "空与有能否并存", "心识是实有还是假名"),
    (("huineng", "zhiyi"), "顿悟与渐修", "止观要不要次第"),
    (("ajahn-chah", "mahasi-sayadaw"), "戒律与内观", "妄念起来时怎么办"),
    (("tsongkhapa", "huineng"), "修行需不需要次第", "见性之前要不要先学经论"),
    (("nagarjuna", "xuanzang"), "缘起与自性", "修行的依据是空还是识"),
    (("yinguang", "xuyun"), "念佛与参话头", "在家人如何用功"),
    (("milarepa", "atisha"), "苦行与道次第", "上师的作用有多大"),
    (("buddhaghosa", "huineng"), "戒定慧的先后", "清净是修出来的还是本有的"),
    (("ouyi", "fazang"), "判教的意义", "一念心能否含摄法界"),
    (("zhiyi", "xuanzang"), "一念三千与八识", "凡夫如何转烦恼"),
    (("atisha", "milarepa"), "出离心从哪里生起", "闭关与依止善知识"),
]
LATIN = re.compile(r"[A-Za-z]")


def _norm(s: str) -> str:
    return "".join(re.findall(r"[\u3400-\u9fff]", s))


def _run(pack, masters, topic, rounds=None):
    md = MasterDebate(pack, OfflineEngine(pack))
    return md.run(md.prepare(DebateConfig(topic=topic, masters=list(masters), rounds=rounds)))


@pytest.fixture(scope="module")
def debates(request):
    """Every topic pair on the pack of the parametrised test (cached per pack)."""
    cache = {}

    def get(pack):
        if pack.path not in cache:
            cache[pack.path] = [(masters, [_run(pack, masters, t) for t in (t1, t2)])
                                for masters, t1, t2 in TOPIC_PAIRS]
        return cache[pack.path]
    return get


def test_no_sentence_repeats_and_every_check_passes(any_pack, debates):
    n = 0
    for _, pair in debates(any_pack):
        for d in pair:
            n += 1
            assert d.status == "completed"
            sents = [_norm(x) for s in d.rounds for x in sentences_of(s.text) if len(_norm(x)) >= 6]
            o = d.observation
            sents += [_norm(x) for x in sentences_of(o.divergence + o.consensus + o.to_reader) if len(_norm(x)) >= 6]
            repeated = [x for x, c in Counter(sents).items() if c > 1]
            assert not repeated, (d.topic, repeated)
            for s in d.rounds:
                assert s.status == "ok", (d.topic, s.round, [(f.rule, f.message) for f in s.findings if not f.passed])
    assert n >= 20


def test_checks_rerun_from_scratch_pass(any_pack, debates):
    """The findings stored are what run_checks says now, with the pack's own context."""
    for masters, pair in debates(any_pack)[:4]:
        for d in pair:
            summaries = {x.round: x.text for x in d.summaries}
            for s in d.rounds:
                opp = [p.label for p in d.participants if p.label != s.speaker][0]
                speaker = any_pack.masters[s.speaker]
                ctx = CheckContext(speaker=speaker, opponent=any_pack.masters[opp], role=s.role,
                                   ammo=speaker.ammo_against(opp), opponent_summary=summaries.get(s.round - 1, ""),
                                   pack_source_ids=any_pack.all_source_ids(), pack=any_pack)
                failed = [(f.rule, f.message) for f in run_checks(s.text, ctx) if not f.passed]
                assert not failed, (d.topic, s.round, failed)


def test_speeches_hold_no_set_aside_material(any_pack, debates):
    for _, pair in debates(any_pack):
        for d in pair:
            for s in d.rounds:
                body = re.sub(r"【[^】]*】", "", s.text)
                assert not LATIN.search(body), (d.topic, s.round, body)
                assert not re.search(r"https?://|\]\(|引用时|应注明|不得作为|深入研究|请查阅|本文件|…", body)
                m = any_pack.masters[s.speaker]
                taught = [_norm(t.text) for t in m.teachings]
                flats = [_norm(x) for x in sentences_of(s.text)]
                for a in m.set_aside:
                    n = _norm(a.text)
                    if a.reason in ("heading", "duplicate") or len(n) < 10 or any(n in t or t in n for t in taught):
                        continue
                    assert not any(n in f for f in flats), (d.topic, s.round, a)


def test_two_topics_of_one_pair_differ(any_pack, debates):
    shares = []
    for _, (d1, d2) in debates(any_pack):
        a = {_norm(x) for s in d1.rounds for x in sentences_of(s.text)}
        b = {_norm(x) for s in d2.rounds for x in sentences_of(s.text)}
        shares.append(1 - len(a & b) / len(a | b))
    assert min(shares) > 0.5, shares


def test_roles_do_their_job(any_pack, debates):
    for (a_slug, b_slug), pair in debates(any_pack)[:6]:
        d = pair[0]
        a, b = any_pack.masters[a_slug], any_pack.masters[b_slug]
        summaries = {x.round: x.text for x in d.summaries}
        for s in d.rounds:
            opp = b if s.speaker == a_slug else a
            first = re.split(r"[。！？]", s.text, maxsplit=1)[0]
            if s.role in ("反驳", "回应"):
                gist = OfflineEngine.gist_of(summaries[s.round - 1])
                assert opp.short_name in first, first
                # the opponent's point, restated from the summary, before anything of the speaker's own
                assert _norm(gist)[:8] in _norm(first), (first, gist)
            if s.role == "立论":
                assert "理由" in s.text and all(x in s.text for x in ("其一", "其二", "其三")) or \
                    all(x in s.text for x in ("第一", "第二", "第三")) or all(x in s.text for x in ("首先", "其次", "再者"))
            if s.role == "回应":
                accept = OfflineEngine.accepted_part(OfflineEngine.gist_of(summaries[s.round - 1]))
                assert accept in s.text  # what it accepts is something the opponent actually said
            if s.role == "综合":
                assert opp.short_name in s.text and "我" in s.text
            # the summary is the speech's own point, not a paraphrase from elsewhere
            core = summaries[s.round].split("：", 1)[1].replace("自己", "我")  # 我这边 → 自己这边 in a summary
            assert _norm(core)[:10] in _norm(s.text), (summaries[s.round], s.text[:80])
            assert len(summaries[s.round]) <= 80


@pytest.mark.parametrize("masters", [("buddhaghosa", "atisha"), ("xuyun", "buddhaghosa")])
def test_thin_material_still_argues_within_the_rules(any_pack, masters):
    """A master with little teaching in his files (upstream 觉音): full speeches, no repeats, all checks."""
    for rounds in (2, 4):
        d = _run(any_pack, masters, "戒律与禅修", rounds=rounds)
        sents = [_norm(x) for s in d.rounds for x in sentences_of(s.text) if len(_norm(x)) >= 6]
        assert not [x for x, c in Counter(sents).items() if c > 1]
        assert all(s.status == "ok" for s in d.rounds), [(s.round, s.failed_rules) for s in d.rounds]


def test_six_rounds_no_template_reuse(any_pack):
    d = _run(any_pack, ("huineng", "yinguang"), "念佛是不是也要见性", rounds=6)
    assert [s.role for s in d.rounds] == ["立论", "反驳", "回应", "反驳", "回应", "综合"]
    sents = [_norm(x) for s in d.rounds for x in sentences_of(s.text) if len(_norm(x)) >= 6]
    assert not [x for x, c in Counter(sents).items() if c > 1]
    assert all(s.status == "ok" for s in d.rounds), [(s.round, s.failed_rules) for s in d.rounds]


def test_observation_names_both_and_a_level(any_pack, debates):
    openings = set()
    levels = {lv for lv, _ in LEVELS}
    for (a_slug, b_slug), pair in debates(any_pack):
        for d in pair:
            o = d.observation
            a, b = any_pack.masters[a_slug], any_pack.masters[b_slug]
            text = o.divergence + o.consensus + o.to_reader
            assert a.short_name in o.divergence and b.short_name in o.divergence
            assert any(lv in o.divergence for lv in levels)
            assert not LATIN.search(text)
            for school in (a.school, b.school):  # never a raw metadata string such as 上座部（泰国森林…）
                assert len(school) <= 4 or school not in text, school
            assert not re.search(r"胜出|赢|更究竟|更高明|应当选择|不如改", text)
            openings.add(o.divergence[:6])
    assert len(openings) >= 3  # not always the same opening


def test_ranking_is_explainable_and_follows_the_topic(default_pack):
    eng = OfflineEngine(default_pack)
    m, opp = default_pack.masters["yinguang"], default_pack.masters["huineng"]
    ranked = eng.ranked(m, opp, "临终助念")
    assert all(score == sum(parts.values()) for score, parts, _ in ranked)
    assert [s for s, _, _ in ranked] == sorted((s for s, _, _ in ranked), reverse=True)
    assert "临终" in ranked[0][2].text
    other = eng.ranked(m, opp, "信愿行")
    assert [t.text for _, _, t in ranked[:5]] != [t.text for _, _, t in other[:5]]


def test_slices_are_disjoint(any_pack):
    eng = OfflineEngine(any_pack)
    m, opp = any_pack.masters["huineng"], any_pack.masters["yinguang"]
    seen = set()
    for n in range(3):
        part = {t.text for t in eng.slice_for(m, opp, "禅净之争", n)}
        assert not part & seen
        seen |= part


def test_engine_sees_no_earlier_speech():
    assert "text" not in SpeechRequest.model_fields and "history" not in SpeechRequest.model_fields


CITE = re.compile(r"【[^】]*】")


def test_chinese_debates_show_no_english_outside_source_ids(any_pack, debates):
    """Citation titles are Chinese (or absent), and nothing else in a speech, summary or observation is Latin."""
    for _, pair in debates(any_pack):
        for d in pair:
            for s in d.rounds:
                for title in re.findall(r"【《([^》]*)》，", s.text):
                    assert not LATIN.search(title), (d.topic, s.round, title)
                assert not LATIN.search(CITE.sub("", s.text)), (d.topic, s.round)
            for s in d.summaries:
                assert not LATIN.search(CITE.sub("", s.text)), (d.topic, s.text)
            o = d.observation
            assert not LATIN.search(o.divergence + o.consensus + o.to_reader), d.topic


def test_observation_quotes_whole_sentences_or_main_clauses(any_pack, debates):
    """Each point the observation sets side by side is a whole sentence or a complete main clause of
    that master's material (never 当…时 alone, never cut mid-phrase), and the two points differ."""
    for (a_slug, b_slug), pair in debates(any_pack):
        material = {slug: "".join(t.text for t in any_pack.masters[slug].teachings) for slug in (a_slug, b_slug)}
        for d in pair:
            o = d.observation
            said = {s.speaker: "".join(x.text for x in d.summaries if x.speaker == s.speaker) for s in d.summaries}
            quoted = re.findall(r"「([^」]*)」", o.divergence)
            if not quoted:
                continue
            assert len(quoted) == 2 and quoted[0] != quoted[1], o.divergence
            for slug, q in zip((a_slug, b_slug), quoted):
                assert q in material[slug] or q in said.get(slug, ""), (slug, q)
                assert not re.search(r"(?:时|時|若|如果|之际|的|之|于|与|和)$", q), q
                assert not re.match(r"^(?:若|如果|当|虽|因为|则|便|也|而|但)", q) or "，" in q, q
                pos = (material[slug] + said.get(slug, "")).find(q)
                after = (material[slug] + said.get(slug, ""))[pos + len(q): pos + len(q) + 1]
                assert after in "。！？；，—" or after == "", (q, after)  # ends where a clause ends


def test_main_clause_never_a_subordinate_clause_or_a_cut():
    mc = OfflineEngine.main_clause
    # a subordinate clause keeps its main clause, or is not taken
    assert mc("当心被贪嗔痴牵引时，戒律是最后的防线。") == "当心被贪嗔痴牵引时，戒律是最后的防线"
    assert mc("当心被贪嗔痴牵引时，戒律是最后的防线，它托住你不让你掉下去，也让心慢慢安定下来。") == \
        "当心被贪嗔痴牵引时，戒律是最后的防线"
    assert mc("当心被贪嗔痴与种种烦恼一再牵引而不能自主时，戒律是最后的防线，它托住你不让你掉下去。") == ""
    # too long to quote whole: the first clause only when it stands on its own
    assert mc("心不停留于色声香味触法，清净之心便能在应对万境时自然流露，不被牵动。") == "心不停留于色声香味触法"
    # never the first half of 不是…，而是…
    assert mc("一念三千不是说心生出诸法，也不是诸法包含心，而是心与法当体相即。") == ""
    # a topic whose predicate follows (…的定，无需…), or a clause leaning on the one before it, is not a point
    assert mc("行舍智阶段所生的定，无需先证四色界禅，便可作为观智的依止，这是纯观乘的要义。") == ""
    assert mc("无需先证四色界禅。") == ""
    # a bare 如… comparison is taken only with the clause that completes it
    assert mc("如常不轻菩萨。") == ""
    assert mc("放下不是抛弃。") == "放下不是抛弃"


def test_common_ground_is_a_term_both_sides_hold_not_one_they_set_aside():
    from debate_core.engines.offline.units import affirms

    assert affirms("受持戒律是往生的正因，持戒清净则心易安。", "持戒")
    assert not affirms("心地平正又何须另外持戒，行为正直又何须修禅。", "持戒")
    assert not affirms("经教、念佛、持戒都是方便，用来回光认取本心。", "持戒")
    assert affirms("持戒是定慧的根基；念佛也是方便。", "持戒")


def test_the_opening_stance_is_the_unit_closest_to_the_topic(default_pack):
    from debate_core.engines.offline.units import topic_bigrams

    assert "之人" not in topic_bigrams("念佛之人临终是否需要助念")  # grammar carries no topic
    assert {"临终", "助念"} <= topic_bigrams("念佛之人临终是否需要助念")
    debate = _run(default_pack, ["yinguang", "kumarajiva"], "念佛之人临终是否需要助念")
    first = debate.rounds[0].text.split("。")[0]
    assert "助念" in first, first
