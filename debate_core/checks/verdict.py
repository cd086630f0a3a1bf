"""``no_verdict``: the speaker never rules that a side is superior, right, the winner, or the reader's choice.

The rule reads each sentence of the speech as the speaker's own words: quotes (「」“”『』), titles and
citation brackets are blanked first, and what the speaker attributes to someone else (对方认为…,
印光大师主张…, 若说…) is reported, not asserted.  In what remains it looks for five structures:

* an outcome of the debate (…赢了, 已占上风, 高下已分, 驳倒, 理屈词穷 …);
* a comparison that ranks a side: a side and a two-place comparative (X 远胜 / 高于 / 不及 / 不如 Y,
  非 Y 所能比拟), a degree word with a judgement (更为究竟, 最殊胜, 较为浅薄, 比…高明, 比…走得通),
  or a comparison frame with a capability (比起 Y，X 更能…);
  or an idiom that ranks (技高一筹, 首屈一指, 相形见绌, 难望…项背);
* a claim that a side is *the* right one or a wrong one (唯有…才是正道, X 乃唯一出路, X 是歧途,
  方为…之极, X 才是根本, X 不过是权宜 / 方便);
* a recommendation that the reader choose a side (舍净归禅, 应当改修…, 与其…不如…, 不必再…,
  奉劝诸位放下佛号 — a practice may be named by its emblem);
* a resolved "which is better" (孰优孰劣，一目了然).

A *side* is a school, a practice the pairings oppose, a master of the pack, or a pointer to one
(本宗, 彼宗, 此门, 前者 …).  Negated (并非更为究竟, 无有高下) and genuinely questioning clauses
(谁更究竟？) assert nothing and pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Optional

from debate_core.checks._lexicon import READERS, recommend_side_regex, side_regex
from debate_core.content.text import clauses, mask, sentences

_ADJ_MULTI = ("究竟", "高明", "高妙", "高超", "高深", "深刻", "深彻", "透彻", "殊胜", "圆满", "圆融", "圆顿", "了义",
              "彻底", "正确", "正宗", "纯正", "上乘", "优越", "优胜", "优异", "高级", "殊妙", "胜妙", "精妙", "深邃",
              "深远", "伟大", "在理", "有理", "合理", "浅薄", "肤浅", "粗浅", "低劣", "偏颇", "狭隘", "迂曲", "笨拙",
              "落后", "下乘", "不究竟", "不彻底", "不圆满", "不了义", "可取", "高一筹", "契合佛意", "符合佛意",
              "接近佛意", "接近真理", "得佛真意", "高出", "究极", "无上", "精密", "严密", "周密",
              "精细", "细密", "粗疏", "粗略", "笼统", "直截了当", "高远",
              "精深", "周全", "稳当", "稳妥", "可靠", "踏实", "切实", "有说服力", "有道理", "契机", "契理",
              "浅陋", "拙劣", "鄙陋", "高级", "低级", "上乘", "走得通", "行得通", "靠得住", "管用", "得力", "可行",
              "充分", "有力", "站得住脚", "经得起推敲", "充足", "扎实", "有分量", "占理", "胜出")
_ADJ_SINGLE = "高胜优好妙深正对浅低劣差偏迂足强"
_ADJ_SINGLE_NEXT = set("的之些于得了一者呢吧啊矣也耳哉，。；！？、,.;!?")
_DEGREE = r"(?:更为|更加|更是|要更|还要|远为|最为|最是|尤为|较为|更|最|较)"

_OUTCOME = re.compile(
    r"(?:赢|输)(?:了|定了|得了)|获胜|胜出|取胜|得胜|完胜|大获全胜|败北|落败|败下阵|认输|服输"
    r"|(?:高下|优劣|胜负|高低|输赢|是非)(?:已分|已判|立判|立见|自明|自见|判然|分明|已明|已定|已见|已经分明)"
    r"|占(?:了|据|尽)?上风|落(?:于|入|了)?下风|处于下风|甘拜下风|(?:更|略|稍|技|要)胜一筹|高出一筹"
    r"|(?:略|稍)逊(?:一筹)?|棋高一着|胜券在握|稳操胜券|驳倒|辩倒|驳得[^，。；]{0,4}(?:体无完肤|哑口无言)"
    r"|不攻自破|不堪一击|一败涂地|败给|(?:真正的|最后的|最终的|本场的|这场辩论的|此番的)?(?:胜者|赢家|优胜者|获胜者|胜方|输家|败者|负方)")
_OUTCOME_SIDED = re.compile(r"理屈词穷|哑口无言|无言以对|无从反驳|无可辩驳|逊色|落了下乘|无话可说|无言可对|无力反驳|"
                            r"难以招架|招架不住|甘拜下风|俯首称臣|自愧不如|技不如人|棋差一着|略输一筹|(?:明显|显然|稍|略|已|已经)?(?:处于|占据?|居于?)(?:了)?(?:优势|劣势|上风|下风)|占优|优势明显|理据更[足强胜]|更有理据")
# Idioms that rank: one side above the rest or the others (技高一筹, 首屈一指, 独步, 鹤立鸡群 …).
_IDIOM_RANK = re.compile(r"(?:技|棋|艺|道|略|稍|更|要|见地)?高(?:人|出|出人)?一(?:筹|着|等|头)|技压(?:群雄|诸家|诸宗|一筹)"
                         r"|(?:堪称|可谓|实为|乃是|称得上)?独步(?:天下|古今|千古|一时|诸宗)?|独领风骚|鹤立鸡群|无与伦比|出类拔萃"
                         r"|拔得头筹|独占鳌头|首屈一指|冠绝(?:诸宗|古今|一时)?|望[^，。；]{0,6}?项背|望尘莫及|相形见绌|黯然失色"
                         r"|不可同日而语|难以望其|瞠乎其后|无出其右|后来居上|更上一层楼|胜人一筹|更胜一筹"
                         r"|(?:诸|各|众|群|百|余|八|十)(?:宗|家|派|门|法门|教)之(?:冠|首|最|魁|翘楚|巅峰|顶峰|上)|翘楚|魁首")
# A side set down as merely provisional (X 不过是权宜, 只是化城, 充其量是方便施设).
_PROVISIONAL = re.compile(r"(?:不过|只不过|只|仅|仅仅|无非|充其量|顶多|终究只|终归只)(?:是|为|算|属|算是)?(?:一种|一时的?|个)?"
                          r"[^，。；]{0,4}?(?:权宜|权法|权说|权巧|化城|敲门砖|方便施设|方便之说|方便而已|方便罢了|"
                          r"接引之方便|过渡|旁支|旁枝|末技|支流|枝末|小道|下乘|戏论|空谈|臆说|方便(?=[，。；！？,.;!?]|$))")
_ALL_ALIKE = re.compile(r"都|皆|亦|也|同样|一样|俱|一切|诸|无不|任何|各")
_COMPARE2 = re.compile(
    r"(?<![提崇升抬增拔登跃])高(?:于|过|出)(?!家|现|来|去|生|一筹)|(?:远|更|略|稍)?胜(?:于|过)|远胜|远超|远逊|优于|强于|凌驾|压过|盖过"
    r"|(?<![所来措始猝力过])不(?:及|如)(?![法理实来说是何此今])|比不上|比不得|难以企及|望尘莫及|难望其项背"
    r"|逊于|劣于|低于|次于|不敌|相形见绌|黯然失色|首屈一指|无出其右|独占鳌头"
    r"|远非[^，。；]{1,8}?(?:可比|所能及|能比|能及)|(?<![并绝决])非[^，。；]{1,8}?所(?:能|可)?(?:比拟|比|及|企及|相比|望其项背)|(?:无法|不能|难以|不可|无从)(?:与之)?(?:相比|比拟|相提并论|同日而语)"
    r"|无可比拟|不可同日而语|望其项背|(?:未能|无法|不能|难以|无人|无有|无能|莫能)(?:企及|及之|能及|比肩)"
    r"|(?<![殊优])(?:略|稍|更|远|大)胜(?![义解妙境缘地利景迹])|(?:高|胜|强)(?:一层|一等|一级|一着|一截|一头)"
    r"|超(?:过|越|胜)(?P<obj>)")
_DEGREE_ADJ = re.compile(_DEGREE + "(?P<adj>" + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True))
                         + f"|[{_ADJ_SINGLE}])")
_BI = re.compile(r"(?:比起|相比于|相较于|较之)(?P<y0>[^。；：]{1,14}?)[，,]?(?:来得|要|更|还|远|都|更为|更加)?(?P<adj0>"
                 + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True)) + ")"
                 + r"|比(?P<y>[^，。；：、]{1,12}?)(?:来得|要|更|还|远|都)?(?:(?P<adj>"
                 + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True)) + r")|[高低深浅优劣好差胜强弱](?=了|得|出|一|些|许多|不少|很多|多))")
# 比 Y + any quality + 得多 / 更 + a capability: 比马哈希的标记法自然得多, 比念佛的人更容易开悟
_BI_MORE = re.compile(r"比(?!较|如|方|喻|丘|例|量|拟|照|起来)(?P<y>[^，。；：、]{1,12}?)(?:[\u4e00-\u9fff]{1,4}?(?:得多|多了|许多)"
                      r"|(?:更|还要|更加|更为|要更)(?:容易|能|快|早|稳|易|有效|适合|直接|简单|踏实|可靠|彻底|究竟|深|高|透|契|合|得力|管用))")
_BI_ABLE = re.compile(r"(?:比起|相比于|相较于|较之|与[^，。；]{1,10}?相比)[^，。；]{0,14}?[，,]?[^，。；]{0,6}?"
                      r"(?:更|更加|更为|要更|还要|远|远远)(?:能够|能|足以|可以)")
_MUCH = re.compile(r"(?P<adj>" + "|".join(sorted(_ADJ_MULTI, key=len, reverse=True))
                   + r")(?:得多|得太多|许多|不少|一截|一大截|百倍|千倍|万倍)")
_NEAR = re.compile(_DEGREE + r"(?:接近|契合|符合|贴近|合乎|得)[^，。；]{0,6}?(?:佛意|本怀|真理|实相|佛说|圣教|经意|真意|佛心)"
                   + "|" + _DEGREE + r"(?:能)?(?:契合|适合|适宜|契|应|对应|切合)[^，。；]{0,4}?(?:末法|根机|时机|时代|当今|今人|众生|凡夫)")
_DISMISS = re.compile(r"站不住脚|一无是处|荒谬|不值一提|浅陋|拙劣|鄙陋|走不通|行不通|应(?:当|该)?让位|让位于|理应淘汰|应被淘汰|"
                      r"(?:应|该|当)(?:当|该)?(?:废除|取消|退场|让路)|取而代之|漏洞百出|(?:仅|只|但|才)得(?:一偏|一边|其半|一半|皮毛|一隅)|偏于一(?:隅|边)|得其皮毛|"
                      r"输在|败在|空中楼阁|海市蜃楼|画饼充饥|纸上谈兵|缘木求鱼|南辕北辙|舍本逐末|本末倒置|"
                      r"走偏|走错|走岔|偏离了?正道|误入|站不稳|站不住|立不住|立不起来|(?:难以|无法|不能)成立|"
                      r"破绽百出|经不起推敲|不堪推敲|一派胡言|"
                      r"(?<![若如假倘])(?:是|乃|实为)?(?:大错|大谬|谬误|错误的|错的)(?:特错)?(?![觉认会念见知想])")
_JUDGE_NOUN = (r"(?:真正的?|唯一的?|最终的?)?(?:[^，。；]{0,4}?之(?:极则|极致|至极|极)(?![^，。；]{0,2}[处地])|极则|极致|终极|"
               r"最终归宿|归宿|至高|实法|真实法|正道|正途|正路|正法|正宗|正统|正确|唯一|出路|究竟|了义|根本之道|根本大道|"
               r"大道|根本(?=[，。；！？,.;!?]|$)|最上乘|上上乘|无上|成佛之道|解脱之道|真佛法|真法门|首选|最佳|不二之选|真传|正传|嫡传|正脉|正统|"
               r"(?:佛陀|佛|如来|释尊|世尊|诸佛)?(?:本怀|本意|真意|真义)|佛意|真谛|正见|正理|正修|正行|真修行|真修|真功夫|真实修行|实修|"
               r"心髓|命脉|要门|捷径|依靠|依归|可靠的路|圆满|圆融|圆顿|彻底|正确|最上|最高|"
               r"最(?:可靠|稳妥|稳当|好|佳|适合|契机|直接|究竟|殊胜|有效|根本|正确|圆满)(?:的)?)")
_RIGHT = re.compile(
    r"(?:唯有|只有|惟有|唯独|独有|仅有|唯|惟|只)[^，。；]{0,14}?(?:才|方|乃)?(?:是|为|算|称得上|堪称)" + _JUDGE_NOUN
    + r"|(?:唯有|只有|惟有|唯独)[^。；]{1,14}?[，,](?:才|方)(?:是|为|算|算得上|称得上|堪称)[^，。；]{0,6}?" + _JUDGE_NOUN
    + r"|(?:才|方|乃)(?:是|为|算|算得上|称得上)[^，。；]{0,8}?" + _JUDGE_NOUN
    + r"|(?:是|乃|为|实为|堪称|可称|当属|首推)[^，。；]{0,8}?第一(?![义次步轮条层句个位天时念])"
    + r"|(?:是|乃|为)[^，。；]{0,8}?唯一(?:的)?(?:正道|正途|出路|选择|法门|道路|途径|方法|办法|正法)"
    + r"|(?:真正的?|纯正的?)(?:佛法|正法|修行|法门|佛道)[^，。；]{0,4}?(?:只在|唯在|全在|尽在|仅在|只有|唯有)"
    + r"|(?:只有|唯有|惟有|仅有)[^，。；]{1,10}?(?:一条路|一途|一法可行|一门可走)|(?:别无|更无|再无|此外无|除此无|除此别无)(?:他途|出路|他法|选择|第二条路|办法)"
    + r"|(?:是|为|為|属|乃)(?:正|偏|邪|错|對|对)(?=[，。；！？,.;!?]|$)"
    + r"|(?:落在|落到|堕在|堕于|堕入|落入|落于|已落|落)(?:了)?(?:第二义|第二头|第二义门|偏空|边见|偏见|断见|断灭见|顽空|枯禅|窠臼|名相窠臼|下乘|下风)"
    + r"|(?:是|乃|乃是|为|即是|就是|属于|皆属|只属|属|堕入|落入|沦为|落于|已落|落)(?:一条|一种)?(?:唯一(?:的)?(?:正道|正途|出路|选择|法门)|正统|"
      r"不二之选|首选|最佳选择|最好的选择|正确的选择|正确答案|正宗|正脉|嫡传|真传|旁支|旁门|支流|歧途|歧路|邪道|邪路|邪法|外道|旁门左道|旁门|死路|"
      r"错路|弯路|迷途|末流|小道|下乘|下策|权宜之计而已|一无是处|毫无价值|误人子弟)"
    + r"|答案(?:自然|当然|显然|无疑)?(?:是|在)|(?:最好的|最佳|明智的?|不二的?)(?:选择|之选)|不值一提|一无是处")
_WRONG_PATH = re.compile(r"歧途|歧路|邪道|邪路|邪法|外道|旁门|死路|错路|弯路|迷途|误人子弟")
_RECOMMEND = re.compile(
    r"(?:舍|弃|放下|抛开|丢开|离开|抛弃)[^，。；]{0,6}?(?:归|从|取|入|投|就|改|转|专)"
    r"|(?:应该|应当|理应|自当|务必|最好|不妨|还是|只管|必须|大可|尽可|只须|只需|建议|奉劝|劝请|敬劝|须|应|当|宜|该|莫若|莫如|不如|何不|劝)"
    r"[^，。；]{0,4}?(?:选择|选|择|改学|改修|改宗|改投|转修|转学|转投|转向|改信|皈依|归依|归向|归入|投入|投身|"
    r"追随|跟随|专修|专学|专宗|放弃|放下|抛弃|离开|舍弃|收起|收了|丢下|丢掉|丢开|搁下|搁置|撇开|撇下|抛下|抛开|扔下|"
    r"扔掉|放一边|歇下|停下|舍|弃|改|转)"
    r"|改学|改修|改宗|改投|转修|转学|转投|改信|改走|转入|归入"
    r"|还是[^，。；]{1,10}?(?:为好|更好|最好|为宜|为上|为妥|才对|好些)"
    r"|与其[^。；]{1,24}?不如")
_LET_GO = re.compile(r"舍弃|放下|抛开|丢开|离开|抛弃|放弃|丢下|丢掉|搁下|撇开|撇下|抛下|扔下|舍|弃")
# What one lets go of when the object is an affliction, not a practice or a school (放下执取).
_AFFLICTION_OBJECT = re.compile(r"(?:对)?(?:执取|执著|执着|我执|法执|贪嗔|贪欲|贪心|嗔心|瞋心|烦恼|妄念|妄想|分别|攀缘|我见|成见|"
                                r"万缘|得失|计较|怨恨|怨气)")
_READER_CHOICE = re.compile("(?:" + "|".join(READERS) + r")(?:还是|应该|应当|最好|就该|该|须|得|只需|只要)"
                           r"(?:去)?(?:选|学|修|修学|走|信|跟|归|投)"
                           # 真正懂得佛法的人，都会选择禅宗 / 聪明人自然知道怎么选
                           r"|(?:(?:真正|真懂|懂得|明白|有智慧|有眼光|明理|聪明)[^，。；]{0,10}?(?:的人|之人|者)|聪明人|明眼人|明白人|有识之士|智者)"
                           r"[，,]?(?:都会|都将|自然会|自会|必然会?|必会|一定会|终究会|终会|都|皆)"
                           r"(?:去)?(?:选择|选|走向|归向|投向|转向|改修|归入)"
                           r"|(?:自然|当然|自会|自能|不难|一看便|一想便|一望便)(?:知道|明白|懂得|晓得)?(?:该)?(?:怎么|如何|怎样|该)(?:选|取舍|抉择|走)")
_STOP_OTHER = re.compile(r"(?:不必|无须|毋须|不用|别|莫|何必|何须|用不着|不要)再?(?:去|费心|费力)?"
                         r"(?:修|学|念|参|读|看|走|搞|练|求|执著于|执着于|拘泥于|在)?")
_RESOLVED = re.compile(r"(?:孰|谁)(?:优|胜|高|对|是|长|更)[^，。；？?]{0,6}[，,]?[^。；？?]{0,4}?"
                       r"(?:一目了然|不言自明|不言而喻|显而易见|自不待言|已见分晓|分明|立判|昭然|已明|自明|清清楚楚|"
                       r"无需多言|毋庸置疑|不问可知|可想而知|已有定论|很清楚|再清楚不过|清楚了|明白了|不难看出|不难判断|显然)")

_SUBJECTLESS = re.compile(r"[\s＿]|(?:在|于|就)[^，。；]{0,5}?(?:上|而言|来说|而论|看来)|根本上|本质上|实际上|事实上|归根结底|平心而论|相比之下|两相比较|"
                          r"实在|确实|的确|终究|毕竟|显然|自然|当然|可谓|堪称|其实|无疑|明显|终归|到底|说到底|"
                          r"[是乃要则就便才还也亦都实更而又皆均已]")
_NEG_MULTI = re.compile(r"不是|并非|并不|并未|未尝|绝非|决非|不能说|不可说|谈不上|说不上|无所谓|不在于|不论|不分|无分|不存在|"
                        r"没有|无有|何来|哪有|哪里有|未必|不见得|不应|不该|不宜|不可|无须|毋须|不必|毫不|并无|本无|"
                        r"不曾|从未|未曾|不作|不做|不比|不争|不评|不判|不谈|不言|不说|不求|不问|无意|不敢|无从|难以")
_NEG_SINGLE = set("不非无莫勿别未")
_RHETORICAL = re.compile(r"岂不|难道不|难道|何尝不|焉能不|焉得不|谁能否认|谁不知|谁(?:能|会|敢|又)?不(?:承认|认同|知道|明白|同意|赞叹)|"
                         r"(?:怎|岂|又怎|哪)能不|试问")
_QUESTION_WORDS = re.compile(r"谁|孰|哪|何者|是否|吗|么|呢|几何")
_CONTRAST = re.compile(r"然而|但是|可是|(?<=[，,；;：:\s])不过|其实|实则|殊不知|须知|但|却|然|而我|我则|本宗则|吾宗则")
_HYPOTHETICAL = re.compile(r"(?:若|如果|假如|倘若|倘|假使|若是|即便|即使|纵然|有人)(?:说|以为|认为|谓|讲|主张|判定|断言|问|要问|"
                           r"宣称|一味认为|硬说)|所谓(?![^，。；]{0,10}?(?:不过|只是|无非|充其量))|或(?:曰|谓|问)|世人(?:常|多|每)?(?:说|以为|认为|谓)")
_REPORT_VERBS = (r"(?<![之的可所])(?:一向|向来|始终|曾|上一轮|上轮|方才|刚才|也|亦|则|更)?(?:认为|以为|主张|说|指出|强调|谓|云|"
                 r"声称|批评|质疑|断言|坚持|提出|判定|立论|所言|所说|讲|担心|质问|追问|反问|宣称|提醒|警告|怀疑|否认)")


@dataclass(frozen=True)
class VerdictHit:
    kind: str
    phrase: str
    sentence: str

    def group(self, _i: int = 0) -> str:
        return self.phrase


@lru_cache(maxsize=32)
def _report_frame(others: str) -> re.Pattern:
    subj = r"(?:对方|彼宗|贵宗|有人|或人|世人|论者|批评者|外人|有论者|一般人|人们|彼等|他们|彼|他"
    if others:
        subj += "|" + others
    subj += ")"
    return re.compile(subj + r"[^，。；：]{0,10}?" + _REPORT_VERBS
                      + r"|(?:依|按|照|据|在|按照|依照|依据)" + subj
                      + r"(?:的|之)?(?:见|看法|见解|说法|主张|之见|所见|意思|观点|看来|理解|立场|逻辑)")


def _reported_ranges(sent: str, others: Optional[re.Pattern]) -> list[tuple[int, int]]:
    """Ranges of a (masked) sentence that report what someone else holds."""
    out: list[tuple[int, int]] = []
    frames: list[tuple[int, int, bool]] = []  # (start, end of frame, clause-only)
    for m in _report_frame(others.pattern if others is not None else "").finditer(sent):
        frames.append((m.start(), m.end(), False))
    for m in _HYPOTHETICAL.finditer(sent):
        frames.append((m.start(), m.end(), True))
    for start, fend, clause_only in frames:
        stop = len(sent)
        if clause_only:
            cm = re.search(r"[，,；;。]", sent[fend:])
            stop = fend + cm.start() if cm else len(sent)
        else:
            cm = _CONTRAST.search(sent, fend)
            if cm:
                stop = cm.start()
        out.append((start, stop))
    return out


def _in(ranges: list[tuple[int, int]], pos: int) -> bool:
    return any(s <= pos < e for s, e in ranges)


_LOCATIVE = re.compile(r"(?:在|于)[^，。；]{1,8}?(?:之中|当中|中|里|之内|以内)")
_NOT_NEGATION = re.compile(r"不过|不外乎|不外|无非|莫非|未免|不免|不禁|不断|不久|不少|无论|无限|无量|无上|无比|不可思议")


def _negated(before: str) -> bool:
    before = _NOT_NEGATION.sub("", before)
    if _RHETORICAL.search(before):
        return False
    if _NEG_MULTI.search(before):
        return True
    tail = before[-2:]
    return any(c in _NEG_SINGLE for c in tail)


def _is_question(clause_text: str, after: str) -> bool:
    if _RHETORICAL.search(clause_text):
        return False
    return bool(re.match(r"[^。！!]*?[？?]", after)) and bool(_QUESTION_WORDS.search(clause_text + after[:12]))


def verdict_hits(text: str, *, extra_sides: Iterable[str] = (), others: Optional[re.Pattern] = None,
                 limit: int = 0, strict: bool = False) -> list[VerdictHit]:
    """Every verdict in ``text`` (the speaker's own words only).  ``strict`` reads a fragment that
    will be reused out of its context: a question or a report does not excuse a verdict in it."""
    side = side_regex(tuple(sorted(set(extra_sides))))
    rec_side = recommend_side_regex(tuple(sorted(set(extra_sides))))
    masked = mask(text)
    masked_all = mask(text, "「『“‘\"【《（(")
    hits: list[VerdictHit] = []
    for s, e in sentences(text):
        sent = masked[s:e]
        reported = [] if strict else _reported_ranges(sent, others)
        sent_has_side = bool(side.search(sent))
        cl = [(a - s, b - s) for a, b in clauses(text, s, e, masked_all)]

        def clause_of(pos: int) -> tuple[int, int]:
            for a, b in cl:
                if a <= pos < b:
                    return a, b
            return pos, pos + 1

        def next_clause_end(b: int) -> int:
            for a2, b2 in cl:
                if a2 >= b:
                    return b2
            return b

        def accept(kind: str, m: re.Match, *, needs_side: bool, side_window: Optional[tuple[int, int]] = None,
                   check_question: bool = True, side_pat: Optional[re.Pattern] = None) -> None:
            pos = m.start()
            if _in(reported, pos):
                return
            a, b = clause_of(pos)
            before = sent[a:pos]
            if _negated(before):
                return
            if check_question and not strict and _is_question(sent[a:b], sent[pos:]):
                return
            if needs_side and not (strict and kind in ("degree", "rightness")):
                if side_window is None:
                    # the side is the clause's own subject, or — when the clause has none (禅宗之法，
                    # 更为究竟) — the previous clause's
                    lo = a
                    if not _SUBJECTLESS.sub("", sent[a:pos]):
                        for pa, pb in reversed([c for c in cl if c[1] <= a]):
                            lo = pa
                            if _SUBJECTLESS.sub("", sent[pa:pb]):
                                break
                    side_window = (lo, b)
                # a side named only as the place of a ranking (在唯识典籍中首屈一指) is not what is ranked
                window = _LOCATIVE.sub(lambda x: "＿" * len(x.group(0)), sent[side_window[0]:side_window[1]])
                if not (side_pat or side).search(window):
                    return
            hits.append(VerdictHit(kind, text[s + m.start(): s + m.end()], text[s:e].strip()))

        for m in _OUTCOME.finditer(sent):
            accept("outcome", m, needs_side=False)
        for m in _OUTCOME_SIDED.finditer(sent):
            accept("outcome", m, needs_side=True)
        for m in _COMPARE2.finditer(sent):
            if m.group("obj") is not None:  # 超过 / 超越: only with a side right after
                accept("comparison", m, needs_side=True, side_window=(m.end(), m.end() + 10))
            else:
                accept("comparison", m, needs_side=True)
        for m in _DEGREE_ADJ.finditer(sent):
            adj = m.group("adj")
            if len(adj) == 1:
                nxt = sent[m.end(): m.end() + 1]
                if nxt and nxt not in _ADJ_SINGLE_NEXT:
                    continue
            if sent[m.end(): m.end() + 1] in ("的", "之"):
                a, b = clause_of(m.start())
                if not _SUBJECTLESS.sub("", sent[a:m.start()]) and not side.search(sent[m.end():b]):
                    continue  # 最深的出离心由…触发: a superlative describing the subject, no side ranked
            accept("degree", m, needs_side=True)
        for m in _BI.finditer(sent):
            accept("degree", m, needs_side=True)
        for pat in (_MUCH, _NEAR, _BI_ABLE):
            for m in pat.finditer(sent):
                accept("degree", m, needs_side=True)
        for m in _BI_MORE.finditer(sent):  # what 比 compares with must be a side (not 比以前专注得多)
            accept("degree", m, needs_side=True, side_window=(m.start("y"), m.end("y")))
        for m in _IDIOM_RANK.finditer(sent):
            accept("comparison", m, needs_side=True)
        for m in _PROVISIONAL.finditer(sent):
            a, _b = clause_of(m.start())
            if _ALL_ALIKE.search(sent[a:m.start()]):
                continue  # 都不过是方便: every side alike, none ranked
            accept("rightness", m, needs_side=True)
        for m in _DISMISS.finditer(sent):
            accept("rightness", m, needs_side=True)
        for m in _RIGHT.finditer(sent):
            if _WRONG_PATH.search(m.group(0)):
                # a wrong path is said of whatever side the sentence names (净土行人…，方知走的是弯路)
                accept("rightness", m, needs_side=True, side_window=(0, len(sent)))
            else:
                accept("rightness", m, needs_side=True)
        for m in _RECOMMEND.finditer(sent):
            a, b = clause_of(m.start())
            if m.group(0).startswith("与其说") and m.group(0).endswith("不如") and sent[m.end():m.end() + 1] == "说":
                continue  # 与其说…不如说…: a rewording, not a preference
            if m.group(0).startswith("与其"):
                accept("recommendation", m, needs_side=True, side_window=(m.start(), min(len(sent), m.end() + 12)))
            elif (verb := _LET_GO.match(m.group(0))) and _AFFLICTION_OBJECT.match(sent, m.start() + verb.end()):
                continue  # 放下执取, 放下妄念: letting go of an affliction is a teaching, no side is dropped
            else:
                # what is dropped or taken up may be named in this clause or the next (放下佛号，直下参究)
                accept("recommendation", m, needs_side=True, side_window=(m.start(), next_clause_end(max(b, m.end()))),
                       check_question=False, side_pat=rec_side)
        if any(r in sent for r in READERS):
            for m in _STOP_OTHER.finditer(sent):
                if m.end() - m.start() < 2:
                    continue
                accept("recommendation", m, needs_side=True, side_window=(m.end(), m.end() + 6), check_question=False,
                       side_pat=rec_side)
        for m in _READER_CHOICE.finditer(sent):
            # the side chosen may stand anywhere in the sentence (禅宗太险，净土太稳，聪明人自然知道怎么选)
            accept("recommendation", m, needs_side=True, check_question=False, side_window=(0, len(sent)))
        for m in _RESOLVED.finditer(sent):
            accept("outcome", m, needs_side=False, check_question=False)
        if limit and len(hits) >= limit:
            break
    # one hit per phrase and sentence
    seen: set[tuple[str, str]] = set()
    out = []
    for h in hits:
        if (h.phrase, h.sentence) not in seen:
            seen.add((h.phrase, h.sentence))
            out.append(h)
    return out


class VerdictDetector:
    """Compatibility object for ``VERDICT_PATTERNS``: ``search(text)`` returns the first verdict
    (with ``.group(0)``) or None, like a compiled pattern."""

    pattern = "no_verdict"

    def search(self, text: str):
        hits = verdict_hits(text, limit=1)
        return hits[0] if hits else None

    def finditer(self, text: str):
        return iter(verdict_hits(text))
