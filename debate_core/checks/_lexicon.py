"""Words the rules reason with: what can be a *side* of a debate, who is the reader, who is a master.

These are vocabularies, not verdict phrases: a rule fires on a structure (a side + a comparative
predicate, a reader + a modal + a choice), and these lists say what may fill a slot.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Optional

from debate_core.content.aliases import default_aliases
from debate_core.models import Master

# Schools, traditions and vehicles: a named side of a debate.
SCHOOLS = (
    "禅宗", "禅门", "禅法", "宗门", "宗下", "南宗", "北宗", "临济", "曹洞", "净土宗", "净土法门", "净土", "净宗", "莲宗",
    "念佛法门", "天台宗", "天台", "台宗", "教下", "教门", "唯识宗", "唯识", "法相宗", "法相", "相宗", "性宗",
    "中观派", "中观", "应成派", "应成", "自续派", "三论宗", "三论", "空宗", "有宗", "华严宗", "华严", "贤首宗",
    "密宗", "密教", "金刚乘", "律宗", "南传", "上座部", "汉传", "藏传", "格鲁派", "格鲁", "噶举派", "噶举",
    "宁玛派", "宁玛", "萨迦派", "噶当派", "噶当", "大乘", "小乘", "声闻乘", "显教", "显宗", "森林传统", "内观传统",
    "禅", "净", "教", "宗",
)
# Practices and doctrines that stand for a side in the seed's pairings.
PRACTICES = (
    "念佛", "持名", "称名", "信愿持名", "老实念佛", "求生西方", "往生", "他力", "佛力", "自力", "参禅", "坐禅",
    "参话头", "看话头", "话头禅", "默照", "打坐", "静坐", "顿悟", "顿教", "顿门", "渐修", "渐教", "渐门", "次第",
    "道次第", "三士道", "止观", "一念三千", "教观", "判教", "明心见性", "见性", "直指人心", "不立文字",
    "持戒", "戒律", "内观", "毗婆舍那", "观禅", "正念", "四念处", "念处", "林居", "头陀", "苦行", "观想",
    "诵经", "看经", "读经", "经教", "义理", "讲经", "闻思", "般若", "缘起性空", "万法唯识", "大手印",
    "大圆满", "拙火", "那洛六法", "密法", "事法界", "法界缘起", "标记法", "标记", "辩经", "实修", "山中实修", "闭关",
    "观腹部起伏", "行禅", "经行", "上师相应", "闻思", "道歌",
)
# Pronouns and descriptions that point at a side.
SIDE_POINTERS = (
    "本宗", "吾宗", "我宗", "敝宗", "自宗", "彼宗", "贵宗", "汝宗", "此宗", "他宗", "两宗", "二宗", "诸宗", "各宗",
    "对方", "我方", "此门", "彼门", "本门", "这一门", "那一门", "此法", "彼法", "这个法门", "那个法门", "此道",
    "彼道", "这条路", "那条路", "前者", "后者", "自家", "他家", "两家", "二家", "我们这一宗", "他们那一宗",
    "您的法门", "你的法门", "对方的法门", "彼家", "此家", "其他法门", "其余法门", "别的法门", "余宗", "他派",
    "诸家", "各家", "别家", "其他宗派",
)
# Things that stand for a practice when a reader is told to put them down or take them up
# (放下佛号, 收起念珠, 丢下蒲团): sides only in a recommendation.
EMBLEMS = (
    "佛号", "名号", "圣号", "洪名", "念珠", "数珠", "佛珠", "蒲团", "禅床", "禅板", "话头", "公案", "经卷", "经本",
    "木鱼", "净业", "莲社", "持名", "称名", "称念", "念弥陀", "弥陀名号",
)
# Who a recommendation is addressed to.
READERS = (
    "读者", "你们", "您", "你", "诸位", "各位", "大家", "诸君", "列位", "学人", "学者", "行者", "后学", "初学者",
    "初学", "初机", "听者", "仁者", "善知识", "修行人", "同修", "道友", "有心人", "求道者", "世人", "众人",
    "看官", "有志者", "修学者", "求法者",
)
# First-person words a speaker uses for himself.
SELF = ("老僧", "贫僧", "老衲", "山僧", "老朽", "本人", "吾", "我", "余", "予")

# Honorifics that may follow a name.
HONORIFICS = ("老和尚", "老法师", "大和尚", "仁波切", "和尚", "大师", "法师", "禅师", "尊者", "菩萨", "祖师",
              "长老", "论师", "三藏", "国师", "上人", "老人")

# Names that are ordinary words too: a master only when an honorific follows.
COMMON_WORDS = frozenset({"智者", "唐僧", "法藏", "虚老", "贤首", "觉音"})


def bare(name: str) -> str:
    for suffix in HONORIFICS:
        if name.endswith(suffix) and len(name) - len(suffix) >= 2:
            return name[: -len(suffix)]
    return name


def master_names(m: Master) -> list[str]:
    names = list(m.all_names)
    if not m.aliases:
        names += default_aliases().get(m.slug, [])
    return list(dict.fromkeys(n for n in names if n))


def name_map(masters: Iterable[Master], extra: Iterable[str] = ()) -> dict[str, str]:
    """Every name of every master → a key naming that master (its slug; for a bare name list, the
    name without its honorific)."""
    out: dict[str, str] = {}
    for m in masters:
        for n in master_names(m):
            out.setdefault(n, m.slug)
            out.setdefault(bare(n), m.slug)
    fallback = default_aliases()
    for n in extra:
        if not n or n in out:
            continue
        key = bare(n)
        for slug, aliases in fallback.items():
            forms = set(aliases) | {bare(a) for a in aliases}
            if n in forms or key in forms:
                key = slug
                for a in aliases:  # a master named by the caller is known by all its common names
                    out.setdefault(a, slug)
                break
        out[n] = key
        out.setdefault(bare(n), key)
    return {n: k for n, k in out.items() if len(n) >= 2}


@lru_cache(maxsize=64)
def name_regex(names: tuple[str, ...]) -> Optional[re.Pattern]:
    """One pattern matching any of ``names`` (longest first); a name that is a common word only
    with an honorific after it."""
    parts = []
    for n in sorted(set(names), key=len, reverse=True):
        if n in COMMON_WORDS:
            parts.append(re.escape(n) + "(?=" + "|".join(HONORIFICS) + ")")
        else:
            parts.append(re.escape(n))
    if not parts:
        return None
    return re.compile("(?:" + "|".join(parts) + ")")


@lru_cache(maxsize=64)
def side_regex(extra: tuple[str, ...]) -> re.Pattern:
    words = set(SCHOOLS) | set(PRACTICES) | set(SIDE_POINTERS) | {w for w in extra if len(w) >= 2}
    singles = {"禅", "净", "教", "宗"}
    multi = sorted((w for w in words if w not in singles), key=len, reverse=True)
    # 禅 / 净 / 教 / 宗 alone are sides only as in 禅净, 舍净归禅, 禅与净 — not in 清净, 宗旨, 教导.
    single = r"禅净|净禅|[禅净教宗](?=不如|不及|胜于|胜过|高于|优于|逊于|强于|远胜|比[禅净教宗])|(?<=不如|不及|胜于|胜过|高于|优于|逊于|强于|远胜)[禅净教宗](?![定师心堂房机悦味意理义育导化训法诲旨])|(?<=比)[禅净](?=[^定师心堂房机悦味意理义])|(?<=[舍归弃从改转选择投])[禅净教宗](?![定师心堂房机悦味意理义育导化训法诲旨])|[禅净教宗](?=[与和及、][禅净教宗])|(?<=[禅净教宗][与和及、])[禅净教宗]"
    return re.compile("(?:" + "|".join(re.escape(w) for w in multi) + "|" + single + ")")


@lru_cache(maxsize=64)
def recommend_side_regex(extra: tuple[str, ...]) -> re.Pattern:
    """A side, or an emblem of a practice (佛号, 念珠, 蒲团 …): what a reader may be told to drop or take up."""
    base = side_regex(extra).pattern
    return re.compile("(?:" + "|".join(re.escape(w) for w in sorted(EMBLEMS, key=len, reverse=True)) + "|" + base + ")")


def side_terms_for(masters: Iterable[Master]) -> tuple[str, ...]:
    """The schools and names of the masters in play, as extra side words."""
    out: list[str] = []
    for m in masters:
        out += master_names(m)
        for field in (m.school, m.tradition):
            for part in re.split(r"[/／·（）()、，,\s]+", field or ""):
                part = re.sub(r"[A-Za-z'\-]+", "", part)
                if 2 <= len(part) <= 8:
                    out.append(part)
    return tuple(sorted(set(o for o in out if o and o not in COMMON_WORDS)))
