"""A reader for a local checkout of the CBETA XML P5 edition (github.com/cbeta-org/xml-p5), so a
quotation can be checked against the real text of the work it cites.

The checkout is laid out ``<root>/<collection>/<collection><volume>/<id>.xml``, e.g.
``T/T48/T48n2008.xml`` or ``X/X62/X62n1182.xml``; a work split per fascicle has
``<id>_001.xml``, ``<id>_002.xml`` … instead. Each file is TEI P5 (namespace
``http://www.tei-c.org/ns/1.0``, CBETA extensions in ``http://www.cbeta.org/ns/1.0``).

What is read: ``<text><body>`` only; the header supplies the gaiji table (``<charDecl>``) and
``<back>`` (the apparatus) is skipped. Notes, variant readings, table-of-contents labels, document
numbers, the ``<sic>``/``<orig>`` side of a ``<choice>``, anything marked ``place="foot…"`` and
non-Chinese lines of a bilingual ``<cb:tt>`` are left out; line and page milestones join up.
See docs/cbeta.md.

Standard library only; no other debate_core module is imported.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
import xml.etree.ElementTree as ET
from collections import OrderedDict
from pathlib import Path

ENV_VAR = "DEBATE_CBETA"
MAX_FILE_BYTES = 64 * 1024 * 1024
CACHE_TEXTS = 16

TEI_NS = "http://www.tei-c.org/ns/1.0"
CB_NS = "http://www.cbeta.org/ns/1.0"
_XML_ID = "{http://www.w3.org/XML/1998/namespace}id"
_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

# "T48n2008", "X62n1182", "T08n0235", "T02n0128a", "T48n2002A", "J01nA042", "GA001n0001".
_ID = re.compile(r"^([A-Za-z]{1,2})(\d{2,4})n([A-Za-z]?\d{3,4}[A-Za-z]?)$")
_FASCICLE = re.compile(r"^_(\d{1,4})\.xml$")

# Elements whose content (but not their tail) is not part of the text.
_SKIP = frozenset(
    {
        "teiHeader",
        "back",
        "note",
        "rdg",
        "mulu",
        "docNumber",
        "sic",
        "orig",
        "figDesc",
        "charDecl",
        "fw",
    }
)

# Everything but letters and digits: punctuation, symbols, spaces, controls, private use.
_NOT_WORD = re.compile(r"[\W_]+")
_ELLIPSIS = re.compile(r"(?:…|⋯|\.\.\.|。。。|‥)+")
_SPACE = re.compile(r"\s+")
_DECLARED_ENCODING = re.compile(r"""\ufeff?\s*<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']""")


# --- the variant table ------------------------------------------------------------------------
# Traditional and variant forms folded to simplified before comparing, so that 「本来无一物」
# matches 本來無一物. Pairs are (from, to); a character folds at most once. The table is
# deliberately small: frequent characters of the sutras and the Chan records, not a full
# converter (a phrase with a rarer character is still found when quoted in the canon's forms).
_VARIANT_PAIRS = (
    # the commonest, with their variant shapes
    "說说 説说 無无 爲为 為为 於于 眞真 淨净 凈净 經经 來来 門门 見见 覺觉 師师 衆众 眾众"
    # doctrine and practice
    " 諸诸 薩萨 羅罗 彌弥 譯译 華华 嚴严 樂乐 義义 聖圣 賢贤 應应 當当 會会 問问 聞闻 間间"
    " 開开 關关 歸归 隨随 惱恼 煩烦 斷断 觀观 滅灭 實实 體体 還还 邊边 頭头 與与 從从 興兴"
    " 舉举 學学 寶宝 禪禅 護护 論论 語语 讀读 誦诵 請请 識识 謂谓 議议 證证 認认 記记 調调"
    " 談谈 講讲 謗谤 誠诚 訶诃 誤误 課课 諦谛 謹谨 許许 設设 詳详 壇坛 懷怀 惡恶 愛爱 憶忆"
    " 億亿 傳传 個个 箇个 夢梦 壞坏 報报 場场 塵尘 墮堕 處处 變变 業业 東东 車车 軍军 輪轮"
    " 轉转 輕轻 長长 陰阴 陽阳 際际 險险 難难 離离 雖虽 雙双 雲云 電电 靈灵 風风 飛飞 飯饭"
    " 養养 餘余 馬马 鳥鸟 鳴鸣 龍龙 龜龟 齊齐 齒齿 魚鱼 麥麦 黃黄 點点 盤盘 剎刹 緣缘 結结"
    " 絕绝 網网 總总 縛缚 續续 纏缠 練练 細细 終终 給给 繫系 係系 動动 勞劳 勝胜 務务 區区"
    " 單单 厭厌 參参 雜杂 號号 嘆叹 歎叹 圓圆 團团 圖图 執执 堅坚 壽寿 奪夺 婦妇 寧宁 對对"
    " 導导 將将 專专 尋寻 屬属 歲岁 歷历 殺杀 氣气 漢汉 爭争 燈灯 燒烧 獨独 獲获 猶犹 現现"
    " 產产 畫画 癡痴 發发 髮发 盡尽 礙碍 禮礼 禍祸 種种 稱称 窮穷 競竞 節节 簡简 紀纪 純纯"
    " 聲声 聽听 脫脱 臨临 舊旧 莊庄 萬万 葉叶 著着 蓋盖 補补 裏里 裡里 親亲 觸触 計计 託托"
    " 貧贫 貪贪 貴贵 讚赞 贊赞 軟软 較较 迴回 這这 連连 進进 遊游 運运 過过 達达 遠远 遲迟"
    " 釋释 鈍钝 鏡镜 鐘钟 閑闲 閒闲 陳陈 隱隐 頂顶 順顺 須须 頓顿 頌颂 領领 顏颜 願愿 顯显"
    " 類类 飲饮 麼么 麽么 齋斋 後后 復复 鬱郁 卽即 旣既 敎教 戶户 靑青 淸清 徧遍 瞋嗔"
    " 産产 決决 減减 涼凉 況况 虛虚 戲戏 嶺岭 鉢钵 缽钵 偽伪 僞伪 穢秽 擊击 歡欢 慚惭 懺忏 淚泪"
    " 燄焰 鑒鉴 鑑鉴 蘊蕴 亂乱 靜静 爾尔 勸劝 攝摄 擇择 鷲鹫 鳩鸠 驅驱 闍阇 闥闼 訖讫 詰诘"
    " 捨舍 衛卫 園园 樹树 餓饿 獄狱 廻回"
    # everyday words of the same texts
    " 則则 蓮莲 們们 冊册 貝贝 財财 幾几 機机 儀仪 廣广 帶带 樣样 權权 漸渐 濟济 滿满 熱热 積积"
    " 範范 習习 藥药 規规 視视 讓让 豈岂 資资 賊贼 跡迹 蹟迹 載载 輩辈 辭辞 錢钱 錯错 隊队 響响"
    " 題题 驚惊 麗丽 罰罚 綱纲 紙纸 聰聪 職职 閉闭 闡阐 鄰邻 軌轨 韋韦 腳脚 買买 賣卖 責责 質质"
)
VARIANTS: dict[str, str] = {}
for _pair in _VARIANT_PAIRS.split():
    if len(_pair) != 2:
        raise RuntimeError(f"cbeta: bad variant pair {_pair!r}")
    if _pair[0] != _pair[1]:
        VARIANTS[_pair[0]] = _pair[1]
del _pair
_FOLD = str.maketrans(VARIANTS)


def fold(text: str) -> str:
    """``text`` as compared: NFKC, variants folded to simplified, lower case, and everything but
    letters and digits (punctuation, symbols, spaces, controls, private-use characters) removed."""
    text = unicodedata.normalize("NFKC", text).translate(_FOLD).lower()
    return _NOT_WORD.sub("", text)


def quote_pieces(quote: str) -> list[str]:
    """The folded pieces of a quotation; an ellipsis (… ⋯ ... ……) separates pieces."""
    return [p for p in (fold(part) for part in _ELLIPSIS.split(quote)) if p]


def find_pieces(haystack: str, pieces: list[str]) -> bool:
    """Whether every piece occurs in ``haystack`` (already folded), each after the previous."""
    if not pieces:
        return False
    pos = 0
    for piece in pieces:
        at = haystack.find(piece, pos)
        if at < 0:
            return False
        pos = at + len(piece)
    return True


# --- reading one file ---------------------------------------------------------------------------


def _local(tag: object) -> str:
    if not isinstance(tag, str):  # comments and processing instructions
        return ""
    return tag.rsplit("}", 1)[-1]


def _is_pua(ch: str) -> bool:
    cp = ord(ch)
    return 0xE000 <= cp <= 0xF8FF or 0xF0000 <= cp <= 0xFFFFD or 0x100000 <= cp <= 0x10FFFD


def _codepoint(value: str | None) -> str:
    """'U+47E6' -> '䟦'; anything else -> ''."""
    m = re.fullmatch(r"\s*U\+([0-9A-Fa-f]{4,6})\s*", value or "")
    if not m:
        return ""
    try:
        ch = chr(int(m.group(1), 16))
    except (ValueError, OverflowError):
        return ""
    return "" if _is_pua(ch) else ch


def _gaiji_table(root: ET.Element) -> dict[str, str]:
    """``<char xml:id>`` -> the character to print: its ``unicode`` mapping, else its
    ``normal_unicode`` mapping, else its "normalized form" property; '' when none of these."""
    table: dict[str, str] = {}
    for decl in root.iter(f"{{{TEI_NS}}}charDecl"):
        for char in decl:
            if _local(char.tag) not in ("char", "glyph"):
                continue
            cid = char.get(_XML_ID) or char.get("id")
            if not cid:
                continue
            mapped: dict[str, str] = {}
            normal = ""
            for part in char:
                name = _local(part.tag)
                if name == "mapping":
                    mapped.setdefault(part.get("type") or "", _codepoint(part.text))
                elif name == "charProp":
                    label = value = ""
                    for sub in part:
                        if _local(sub.tag) == "localName":
                            label = (sub.text or "").strip()
                        elif _local(sub.tag) == "value":
                            value = (sub.text or "").strip()
                    if label == "normalized form" and len(value) == 1 and not _is_pua(value):
                        normal = value
            table[cid] = mapped.get("unicode") or mapped.get("normal_unicode") or normal
    return table


def _keep_t(elem: ET.Element) -> bool:
    """A line of a bilingual ``<cb:tt>`` is kept when it is Chinese and in the running text."""
    if elem.get("place") == "foot":
        return False
    lang = (elem.get(_XML_LANG) or "zh").lower()
    return lang.startswith("zh") or lang in ("chi", "lzh")


def _body_text(root: ET.Element) -> str:
    gaiji = _gaiji_table(root)
    out: list[str] = []
    bodies = [b for b in root.iter(f"{{{TEI_NS}}}body")] or [b for b in root.iter("body")]
    for body in bodies:
        # An explicit stack: a hostile file cannot exhaust Python's recursion limit.
        stack: list[tuple[bool, object]] = [(True, body)]
        while stack:
            is_elem, item = stack.pop()
            if not is_elem:
                if item:
                    out.append(item)  # type: ignore[arg-type]
                continue
            elem: ET.Element = item  # type: ignore[assignment]
            name = _local(elem.tag)
            if not name or name in _SKIP:
                continue
            if name == "t" and not _keep_t(elem):
                continue
            if (elem.get("place") or "").startswith("foot"):
                continue  # apparatus material (a foreign-language gloss, a footnote line)
            if name == "g":
                ref = (elem.get("ref") or "").lstrip("#")
                ch = gaiji.get(ref, "")
                if not ch and elem.text and not any(_is_pua(c) for c in elem.text):
                    ch = elem.text.strip()
                out.append(ch)
                continue
            if elem.text:
                out.append(elem.text)
            for child in reversed(list(elem)):
                stack.append((False, child.tail or ""))
                stack.append((True, child))
    return _SPACE.sub("", "".join(out))


# --- the checkout -----------------------------------------------------------------------------


class Canon:
    """A CBETA XML P5 checkout on disk. Nothing is read until a work is asked for, and then only
    that work's files (found by name in one volume folder)."""

    def __init__(self, root: str | os.PathLike[str]):
        given = str(root)
        path = Path(os.path.expanduser(given))
        if not path.is_dir():
            raise ValueError(f"cbeta: {given}: no such folder")
        self.root = path.resolve()
        if not (self.root / "T").is_dir():
            raise ValueError(f"cbeta: {given}: not a CBETA XML P5 checkout (no T/ folder)")
        self._texts: OrderedDict[str, tuple[str, str]] = OrderedDict()
        self._lock = threading.Lock()
        self.files_read = 0  # how many XML files have been parsed (the scan is lazy)

    def __repr__(self) -> str:
        return f"Canon({str(self.root)!r})"

    @staticmethod
    def split_id(text_id: str) -> tuple[str, str, str] | None:
        """'T48n2008' -> ('T', '48', '2008'); None when it is not a CBETA work id."""
        m = _ID.match((text_id or "").strip())
        if not m:
            return None
        return m.group(1).upper(), m.group(2), m.group(3)

    def _inside(self, path: Path) -> Path | None:
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        if real != self.root and self.root not in real.parents:
            return None
        return real if real.is_file() else None

    def path_of(self, text_id: str) -> list[Path]:
        """The files of a work, in reading order: ``<id>.xml`` then ``<id>_001.xml``,
        ``<id>_002.xml`` …; [] for an unknown or malformed id. A file (or folder) that is a
        symlink leading outside the checkout is ignored."""
        parts = self.split_id(text_id)
        if parts is None:
            return []
        coll, vol, num = parts
        stem = f"{coll}{vol}n{num}"
        folder = self.root / coll / f"{coll}{vol}"
        whole: list[Path] = []
        split: list[tuple[int, Path]] = []
        try:
            names = [e.name for e in os.scandir(folder)]
        except OSError:
            return []
        for name in names:
            if not name.startswith(stem):
                continue
            rest = name[len(stem) :]
            if rest == ".xml":
                kind = 0
            else:
                m = _FASCICLE.match(rest)
                if not m:
                    continue
                kind = int(m.group(1))
            real = self._inside(folder / name)
            if real is None:
                continue
            if kind == 0:
                whole.append(folder / name)
            else:
                split.append((kind, folder / name))
        return whole + [p for _, p in sorted(split)]

    def _read(self, path: Path) -> ET.Element:
        real = self._inside(path)
        if real is None:
            raise ValueError(f"cbeta: {path}: outside the checkout")
        size = real.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(f"cbeta: {path}: {size} bytes, over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit")
        with open(real, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ValueError(f"cbeta: {path}: over the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit")
        # CBETA files are UTF-8. Anything else is refused, so that the checks below see the
        # characters the parser will see (a UTF-16 file would hide "<!ENTITY" from a byte search).
        try:
            chars = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"cbeta: {path}: refused, not UTF-8") from None
        declared = _DECLARED_ENCODING.match(chars)
        if declared and declared.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise ValueError(f"cbeta: {path}: refused, declares encoding {declared.group(1)!r} (CBETA files are UTF-8)")
        if "\x00" in chars:
            raise ValueError(f"cbeta: {path}: refused, holds NUL characters")
        if "<!ENTITY" in chars:
            raise ValueError(f"cbeta: {path}: refused, the file declares an entity (<!ENTITY)")
        if "<!DOCTYPE" in chars:
            raise ValueError(f"cbeta: {path}: refused, the file has a document type declaration (<!DOCTYPE)")
        with self._lock:
            self.files_read += 1
        try:
            return ET.fromstring(data)
        except ET.ParseError as e:
            raise ValueError(f"cbeta: {path}: not well-formed XML ({e})") from None

    def _load(self, text_id: str) -> tuple[str, str] | None:
        parts = self.split_id(text_id)
        if parts is None:
            return None
        key = "{}{}n{}".format(*parts)
        with self._lock:
            if key in self._texts:
                self._texts.move_to_end(key)
                return self._texts[key]
        files = self.path_of(key)
        if not files:
            return None
        text = "".join(_body_text(self._read(p)) for p in files)
        entry = (text, fold(text))
        with self._lock:
            self._texts[key] = entry
            while len(self._texts) > CACHE_TEXTS:
                self._texts.popitem(last=False)
        return entry

    def text(self, text_id: str) -> str:
        """The body text of a work, all its files joined in order: notes, variant readings and
        table-of-contents labels left out, whitespace and line breaks removed, punctuation kept.
        '' when the work is not in the checkout. A refused or broken file raises ValueError."""
        entry = self._load(text_id)
        return entry[0] if entry else ""

    def contains(self, text_id: str, quote: str) -> bool | None:
        """None when the work is not in the checkout; else whether ``quote`` occurs in it,
        ignoring punctuation and whitespace and folding common variant characters. An ellipsis
        in the quote may skip text: the pieces must then occur in order."""
        entry = self._load(text_id)
        if entry is None:
            return None
        return find_pieces(entry[1], quote_pieces(quote or ""))


def open_canon(root: str | None) -> Canon | None:
    """None when no checkout is configured (``root`` None or blank); else the Canon, which
    raises ValueError when the folder is not a checkout."""
    if root is None or not str(root).strip():
        return None
    return Canon(str(root).strip())


_configured: tuple[str, Canon | None] | None = None
_configured_lock = threading.Lock()


def configured_canon() -> Canon | None:
    """The checkout named by the DEBATE_CBETA environment variable, or None when it is unset or
    blank. The Canon (and so its text cache) is kept while the variable keeps its value. A value
    that is not a checkout raises ValueError naming the variable and the folder."""
    global _configured
    value = (os.environ.get(ENV_VAR) or "").strip()
    with _configured_lock:
        if _configured is not None and _configured[0] == value:
            return _configured[1]
        try:
            canon = open_canon(value)
        except ValueError as e:
            raise ValueError(f"{ENV_VAR}: {e}") from None
        _configured = (value, canon)
        return canon


# The name the first version of this module used; both are kept for callers.
canon_from_env = configured_canon
