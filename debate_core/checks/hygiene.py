"""``hygiene``: a speech is speech — nothing from a file, a prompt or a markup language.

Forbidden: a URL or web address; a Markdown link or Markdown markup (headings, bold, block quotes,
bullets, tables, code fences); an editorial or meta note of the kind packs carry for their
editors (引用时应注明…, 不可代笔虚构…, 深入研究请查阅…, 节选自…, 仅供参考); a prompt fragment
(a 【…】 header that is not a citation, 硬性规则, 本轮你的任务, 弹药库, 你扮演…, 300-500 字 …)
or talk about the writing itself (作为 AI…, 以下是我的发言, 字数：…, 以上为立论部分, a placeholder
such as （待补）); a bracket or quote left open or closed without its opener; a run of English
words outside a citation.

Allowed: citation brackets with ids and titles (【《坛经·般若品》，T48n2008】, even with English
titles inside), a foreign term glossed in parentheses after its Chinese name (毗婆舍那（vipassanā）),
source ids, and single Latin letters (A 与 B).
"""

from __future__ import annotations

import re
from typing import Iterable

from debate_core.content.text import PAIRS

_URL = re.compile(r"https?://\S+|www\.[A-Za-z0-9\-]+\.\S+|(?<![A-Za-z0-9@])[A-Za-z0-9\-]+\.(?:com|org|net|app|cn|io|edu|"
                  r"gov|info|me|dev)(?:/[^\s，。；）)】]*)?(?![A-Za-z])")
_FILE_NAME = re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9_\-/]+\.(?:md|json|jsonl|txt|yaml|yml|py|csv|html?|pdf)(?![A-Za-z0-9])")
_MD_LINK = re.compile(r"\[[^\]\n]*\]\([^)\n]*\)")
_MD_MARKUP = re.compile(r"(?m)^\s{0,3}#{1,6}\s|\*\*[^*\n]+\*\*|__[^_\n]+__|(?m:^\s{0,3}>\s?)|(?m:^\s*[-*+]\s+)|```|"
                        r"(?m:^\s*\|.*\|\s*$)")
# Notes a pack's files carry for their editors and readers, not for a debate.
_EDITORIAL = re.compile(
    r"(?:引用|引文|出处|经号|书名)[^。；\n]{0,8}?(?:应|须|请|务必|需)[^。；\n]{0,4}?(?:注明|标注|标明|写明|核对|附上)"
    r"|(?:注明|标明|标注)(?:出处|来源|经号)"
    r"|(?:凡引|凡是引用|引用|引述|引证)[^。；\n]{0,24}?(?:必须|务必|须|应当|应|要)[^。；\n]{0,16}?(?:追溯|核对|注明|标明|查证|出自|附|找到|查到|出处|来源)"
    r"|(?:不可|不得|切勿|勿|禁止|不要|严禁)[^。；\n]{0,4}?(?:代笔|虚构|杜撰|编造|伪造|捏造)"
    r"|(?:深入研究|进一步研究|详细研究|进一步了解|深入了解|完整经文|完整内容|全文|全本|原文全貌|更多内容|延伸阅读|进一步阅读)"
    r"[^，。；\n]{0,8}?(?:请|可|宜|应)?(?:查阅|访问|参阅|参考|参看|阅读|检索|浏览|查看)"
    r"|(?:请|敬请)(?:查阅|访问|参阅|参看|浏览|检索)|详见|参见(?:附录|下文|上文|本|第)|见附录"
    r"|见(?:下文|上文|附录|注释|脚注|文末|文后)"
    r"|本(?:文件|目录|文档|资料|页面|条目|节选|片段|段落)|节选自|摘录自|摘自[^。；\n]{0,10}(?:资料|公开|数据库)"
    r"|引用格式|引用规范|教义要点|原典[（(]节选[）)]|增补片段|欢迎\s*PR|仅供参考|免责声明|如需正式修行指导"
    r"|本(?:对话|内容|回答|文)依据|依据历史佛教文献生成|不代表完整经义|公开资料"
    r"|编者按|编按|编者注|编注|译者注|译注|整理者注|校者按|按语[：:]|[（(]\s*(?:注|按|案|附注|说明|备注|校注)\s*[：:]"
    r"|(?:参考资料|参考文献|资料来源|延伸阅读|推荐阅读|相关阅读|参考书目)"
    r"|本(?:项目|仓库|技能|插件|工具)|统一(?:回应|回答|答复)|一律回应|⚠"
    r"|(?:网络|文字或网络)上?(?:自学|传授)|不替代[^。；\n]{0,8}指导|面对面(?:学习|问)"
    r"|(?:汉译|中译|英译|中文)(?:本)?(?:可)?参考|译本对照|授权译本|出版社"
    r"|在线(?:阅读|查阅|检索|浏览|查看)|(?:网站|网页|链接|公众号|二维码)(?:上|中|里)?(?:查|阅|看|获取|下载)|点击|下载"
    r"|(?:撰写|写作|生成|编写|创作|作答|行文|改写|扮演)(?:时|之时|中|过程中)[^。；\n]{0,4}?(?:请|须|务必|应|勿|不要|不得|切勿|注意)"
    r"|(?:请勿|切勿|不可|不得|勿|不要)[^。；\n]{0,4}?(?:将|把)?[^。；\n]{0,10}?(?:的话|之言|言论|说法|教言|引文|语录)"
    r"(?:归于|安在|归到|算在|放在|张冠李戴)")
_PROMPT = re.compile(
    r"硬性规则|硬约束|本轮你的任务|本轮任务|你扮演|扮演[^。；\n]{0,6}(?:大师|法师|尊者|祖师|角色)|弹药库|弹药|立场摘要|"
    r"背景资料|输出格式|只输出|输出正文|字数要求|\d+\s*[-–~～至到]\s*\d+\s*字|zh-Hans|subagent|cross_critique|"
    r"target_master|signature_phrases|\bslug\b|round_summary|首轮，对方尚未发言|禁稻草人|禁裁决|禁伪造对话|"
    r"(?:作为|我是)(?:一个|一名)?(?:AI|人工智能|语言模型|助手|大模型)|(?:回答|回复|答复|发言|输出)如下|(?:以下|下面|接下来)(?:是|为|即)[^。；\n]{0,10}(?:发言|回答|内容|正文|输出)|输出(?:内容|如下|结果|正文)|"
    r"以上是[^。；\n]{0,8}(?:发言|回答|内容)|希望对你有(?:所)?帮助|字数[：:]|[（(]\s*(?:约|共)?\s*\d+\s*字\s*[）)]|"
    r"本轮发言(?:完毕|结束|如下)|发言完毕|本轮(?:为|是)[^，。；）)\n]{0,4}轮|"
    r"(?m:^\s*(?:好的|当然可以|没问题|明白了|收到)[，,。！!：:])|(?m:^\s*(?:注|附注|备注|说明|编注|按)\s*[：:])|"
    r"以[^，。；\n]{1,10}?(?:的)?(?:身份|口吻|角色|语气)(?:来|进行)?(?:作答|回应|发言|回答|陈述|立论|写作|撰写|说话)|"
    r"(?:以上|以下|上面|下面|本段|此段)(?:为|是|即)[^。；\n]{0,8}?(?:部分|段落|正文|内容如下)|"
    r"[（(【\[][^）)】\]]{0,4}?(?:此处|这里)[^）)】\]]{0,6}?(?:应|须|需|待|可)?(?:补|填|插入|加入|替换|略去|省略)[^）)】\]]{0,8}[）)】\]]|"
    r"[（(【\[]\s*(?:待补|待填|待定|待补充|待核|占位|此处省略)[^）)】\]]{0,8}[）)】\]]|(?m:^\s*R\d+\s*[｜|：:（(])")
_LATIN_WORD = r"['’]?[A-Za-zÀ-ɏḀ-ỿ][A-Za-zÀ-ɏḀ-ỿ'’\-]*"
_LATIN_RUN = re.compile(rf"{_LATIN_WORD}(?:[ \t]+{_LATIN_WORD})+")
_META_WORDS = {"note", "notes", "summary", "round", "speaker", "citation", "citations", "prompt", "todo", "fixme",
               "ai", "gpt", "chatgpt", "openai", "assistant", "system", "user", "rebuttal", "opening", "role",
               "source", "sources", "ammo", "markdown", "json", "output", "task", "rules", "rule", "cbeta",
               "suttacentral", "accesstoinsight", "wikipedia", "wiki", "github", "pdf", "url", "link", "http", "https",
               "www"}
_STOPWORDS = {"the", "a", "an", "is", "are", "was", "of", "to", "in", "and", "or", "this", "that", "as", "be", "it",
              "for", "with", "on", "please", "see", "here", "we", "you", "i", "not", "should", "must", "will",
              "can", "my", "your", "our", "by", "from", "at", "which", "who", "what", "how", "let", "me", "us"}


def unbalanced(text: str) -> list[str]:
    """Brackets and quotes left open or closed without an opener."""
    closers = {v: k for k, v in PAIRS.items()}
    stack: list[tuple[str, int]] = []
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch in PAIRS:
            stack.append((ch, i))
        elif ch in closers:
            want = closers[ch]
            if stack and stack[-1][0] == want:
                stack.pop()
            elif any(o == want for o, _ in stack):
                while stack and stack[-1][0] != want:
                    o, j = stack.pop()
                    out.append(f"未闭合的「{o}」：…{text[j:j + 12]}")
                stack.pop()
            else:
                out.append(f"多余的「{ch}」：…{text[max(0, i - 10):i + 1]}")
    for o, j in stack:
        out.append(f"未闭合的「{o}」：…{text[j:j + 12]}")
    if text.count('"') % 2:
        out.append("英文双引号不成对")
    return out


def _citation_bracket_ranges(text: str, ids: Iterable[str]) -> list[tuple[int, int]]:
    """Ranges of brackets that hold a citation (an id or a 《title》), and of ids standing alone."""
    ids = [i for i in ids if i]
    out = []
    for m in re.finditer(r"【[^】]*】|〔[^〕]*〕|［[^］]*］|\[[^\]]*\]|（[^）]*）|\([^)]*\)", text):
        inner = m.group(0)
        if "《" in inner or any(i in inner for i in ids):
            out.append((m.start(), m.end()))
    for i in ids:
        for m in re.finditer(re.escape(i), text):
            out.append((m.start(), m.end()))
    return out


def _gloss(text: str, start: int, end: int) -> bool:
    """A foreign term in parentheses right after Chinese: 毗婆舍那（vipassanā）."""
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    if not before or not after:
        return False
    return before[-1] in "（(" and after[0] in "）)"


def hygiene_problems(text: str, *, ids: Iterable[str] = (), titles: Iterable[str] = ()) -> list[str]:
    problems: list[str] = []
    for m in _URL.finditer(text):
        problems.append(f"网址：{m.group(0)[:24]}")
    for m in _FILE_NAME.finditer(text):
        problems.append(f"文件名：{m.group(0)[:24]}")
    for m in _MD_LINK.finditer(text):
        problems.append(f"Markdown 链接：{m.group(0)[:16]}")
    for m in _MD_MARKUP.finditer(text):
        if _MD_LINK.search(text[m.start(): m.end() + 40]):
            continue
        problems.append(f"Markdown 标记：{m.group(0).strip()[:20]}")
    for m in _EDITORIAL.finditer(text):
        problems.append(f"资料包的编辑说明：{_around(text, m)}")
    for m in _PROMPT.finditer(text):
        problems.append(f"提示词或写作说明的残片：{_around(text, m)}")
    for m in re.finditer(r"【([^】]*)】", text):
        inner = m.group(1)
        if "《" in inner or any(i and i in inner for i in ids) or re.search(r"[A-Za-z]+\s?:?\s?\d", inner):
            continue
        problems.append(f"非引文的【】标题：{m.group(0)[:20]}")
    problems += [f"括号或引号不成对：{u}" for u in unbalanced(text)]
    # English outside citations
    skip = _citation_bracket_ranges(text, list(ids))
    title_words = {w.lower() for t in titles for w in re.findall(_LATIN_WORD, t)}
    for m in _LATIN_RUN.finditer(text):
        if any(a <= m.start() and m.end() <= b for a, b in skip):
            continue
        words = [w.lower() for w in re.findall(_LATIN_WORD, m.group(0))]
        real = [w for w in words if len(w) >= 2]
        if len(real) < 2:
            continue
        if all(w in title_words for w in real):
            continue
        if _gloss(text, m.start(), m.end()) and len(words) <= 4 and not (set(words) & _STOPWORDS):
            continue
        problems.append(f"中文发言中夹有英文（{len(words)} 个词，自「{words[0][:12]}」起）")
    for m in re.finditer(_LATIN_WORD, text):
        w = m.group(0).lower()
        if w in _META_WORDS and not any(a <= m.start() < b for a, b in skip):
            if not any(f"「{w}" in p.lower() for p in problems):
                problems.append(f"中文发言中夹有英文（「{m.group(0)[:12]}」）")
    return list(dict.fromkeys(problems))


def _around(text: str, m: re.Match) -> str:
    return text[max(0, m.start() - 4): m.end() + 6].replace("\n", " ")
