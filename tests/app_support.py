"""Debates for the app tests and the app benchmark, written through the archive API."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from debate_core.models import Debate, DebateConfig, Participant, RoundComment, Speech, Verdict, VerdictRow

REPO = Path(__file__).resolve().parent.parent
APP_PY = REPO / "app.py"
TOPIC = "念佛与参禅，哪个更适合现代人？"
XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(1)>"
XSS_ID = "xss0000000001"


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def browser_skip_reason() -> str | None:
    """Why the browser tests cannot run here (no Chromium, no playwright), or None."""
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (scripts/test.sh installs Debian's chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (requirements-dev.txt)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_streamlit(script: Path, env: dict, cwd: Path, log) -> tuple[subprocess.Popen, str]:
    """``streamlit run script`` headless on a free local port, logging to ``log``; returns the
    process and its URL once /_stcore/health answers ok (RuntimeError after 60 s or an exit).
    The workbench's own app.py is started as ``make run`` starts it (``python -m webapp.serve``)."""
    port = free_port()
    run = ["-m", "webapp.serve"] if Path(script).resolve() == APP_PY else ["-m", "streamlit", "run", str(script)]
    proc = subprocess.Popen(
        [sys.executable, *run, "--server.headless", "true", "--server.port",
         str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            raise RuntimeError(f"streamlit did not start ({script})")
        time.sleep(0.05)


def stop_streamlit(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def offline_debate(archive, topic: str = TOPIC, masters: list[str] | None = None) -> Debate:
    """A real offline master debate, run to the end and archived as it went."""
    from debate_core.api import start_debate

    runner, debate = start_debate(DebateConfig(topic=topic, masters=masters or []), archive)
    return runner.run(debate)


def xss_debate(archive) -> Debate:
    """A completed master debate whose first speech carries a script tag and an img onerror."""
    d = offline_debate(archive).model_copy(deep=True)
    d.id = XSS_ID
    d.topic = "XSS probe " + XSS_SCRIPT
    d.rounds[0].text = f"Before {XSS_SCRIPT} middle {XSS_IMG} after **bold**"
    archive.save(d)
    return d


def failed_debate(archive, failed_round: int = 3) -> Debate:
    """A master debate that failed at ``failed_round`` (as a model failure leaves it)."""
    d = offline_debate(archive).model_copy(deep=True)
    keep = [s for s in d.rounds if s.round < failed_round]
    gone = next(s for s in d.rounds if s.round == failed_round)
    d.rounds = keep + [Speech(round=failed_round, speaker=gone.speaker, speaker_name=gone.speaker_name,
                              role=gone.role, status="failed", engine="offline",
                              warnings=["等待模型超时（共尝试 4 次）"])]
    d.summaries = [s for s in d.summaries if s.round < failed_round]
    d.observation = None
    d.status = "failed"
    d.stop_reason = f"第 {failed_round} 轮失败：等待模型超时（共尝试 4 次）"
    archive.save(d)
    return d


FLAGGED_ID = "flagged00001"
FLAGGED_TAIL = "依我看，净土法门远胜禅宗，乃是唯一的出路。慧能大师当面答曰：汝且念佛。详见 https://example.org/x"
OLD_MESSAGE = "不是发言正文：旧版记录里的一条"  # a finding stored before findings had details


def flagged_debate(archive) -> Debate:
    """A completed master debate whose second speech breaks rules (a verdict, an invented dialogue, a URL): its
    findings are the real checks' (messages and details), as a run that kept it after its retries leaves it;
    the third speech carries a finding stored the old way (a message, no details)."""
    from debate_core.checks import CheckContext, run_checks
    from debate_core.content.packs import get_pack
    from debate_core.models import Finding

    d = offline_debate(archive).model_copy(deep=True)
    d.id = FLAGGED_ID
    pack = get_pack(d.config.pack)
    s, first = d.rounds[1], d.rounds[0]
    s.text += FLAGGED_TAIL
    speaker, opponent = pack.masters[s.speaker], pack.masters[first.speaker]
    ctx = CheckContext(speaker=speaker, opponent=opponent, role=s.role, ammo=speaker.ammo_against(opponent.slug),
                       opponent_summary=d.summaries[0].text, pack_source_ids=pack.all_source_ids(), pack=pack)
    s.findings, s.status = run_checks(s.text, ctx), "flagged"
    third = d.rounds[2]
    third.findings = [f for f in third.findings if f.rule != "hygiene"] + [
        Finding(rule="hygiene", passed=False, message=OLD_MESSAGE)]
    third.status = "flagged"
    archive.save(d)
    return d


def judged_debate(archive, protocol: str = "topic", debate_id: str = "judged000001", lang: str = "zh") -> Debate:
    """A completed topic debate (or trial) with a parsed verdict, scores and commentary, in Chinese (``lang``
    "zh") or English ("en"): its own words (topic, stances, speeches, the judge's) in that language, and what
    the library writes about it (a trial's side names and stances, the stop reason) from the library's catalog
    in that language, as a run leaves them."""
    from debate_core.engines.judged_prompts import for_lang
    en = lang == "en"
    P = for_lang(lang)
    if protocol == "trial":
        parts = [Participant(label=side, name=P.SIDE_NAMES[side], stance=P.SIDE_STANCES[side],
                             model=f"openai/{side}-model") for side in ("pro", "con")]
        winner = "pro"
        reasons = ({"Strength": "Pro's case was more complete", "Exchanges": "Con answered weakly"} if en else
                   {"论点强度": "正方论证更完整", "攻防表现": "反方回应较弱"})
    else:
        labels = P.LABELS[:2]
        stances = (["Remote work raises productivity", "Remote work lowers productivity"] if en else
                   ["远程办公提高效率", "远程办公降低效率"])
        parts = [Participant(label=lab, name=lab, stance=st, model=f"openai/model-{'ab'[i]}")
                 for i, (lab, st) in enumerate(zip(labels, stances))]
        winner = labels[1]
        reasons = ({"Strength": "Debater B's data were sounder", "Exchanges": "Debater B answered A's core point",
                    "Flaws": "Debater A generalised from a few cases"} if en else
                   {"论点强度": "辩手乙的数据更扎实", "攻防表现": "辩手乙正面回应了甲的核心论点",
                    "逻辑硬伤": "辩手甲以偏概全"})
    rounds = []
    for r in (1, 2):
        for p in parts:
            point = f"Round {r} point: {p.stance}" if en else f"第{r}轮论点：{p.stance}"
            env = {"stance": p.stance, "arguments": [{"id": f"{p.label}-{r}", "point": point,
                                                      "reasoning": "why" if en else "理由",
                                                      "evidence": "evidence" if en else "证据"}],
                   "rebuttals": [], "no_new_points": r == 2}
            rounds.append(Speech(round=r, speaker=p.label, speaker_name=p.name,
                                 role="opening" if r == 1 else "rebuttal",
                                 text=f"{p.name}, round {r}: {p.stance}" if en else f"{p.name} 第 {r} 轮：{p.stance}",
                                 envelope=env if protocol == "topic" else None, engine=p.model,
                                 prompt_tokens=100 * r, completion_tokens=50 * r, cost=0.001 * r,
                                 latency_ms=900.0))
    rows = (("productivity data", "generalises from a few cases"), ("coordination costs", "a small sample")) if en \
        else (("效率数据", "以偏概全"), ("协作成本", "样本偏小"))
    verdict = Verdict(
        winner=winner, summary="the side with the sounder case wins" if en else "论证更扎实的一方胜出",
        reasons=reasons, judge="openai/judge-model",
        rows=[VerdictRow(label=parts[0].label, stance=parts[0].stance, strongest=rows[0][0], weakness=rows[0][1],
                         score=6.5),
              VerdictRow(label=parts[1].label, stance=parts[1].stance, strongest=rows[1][0], weakness=rows[1][1],
                         score=8.0)],
        per_round=[RoundComment(round=1, comment="both openings were clear" if en else "第一轮双方立论清楚"),
                   RoundComment(round=2, comment="B's rebuttal was stronger" if en else "第二轮乙方反驳有力")],
        note="readers may weigh this against their own job" if en else "读者可结合自身岗位判断")
    topic = "Does remote work raise productivity?" if en else "远程办公是否提高效率？"
    stop = P.NOTES["converged"].format(r=2) if en else "reached the 2-round cap"  # (the Chinese one as first stored)
    d = Debate(id=debate_id, protocol=protocol, topic=topic, status="completed", lang=lang,
               stop_reason=stop, participants=parts,
               models=[p.model for p in parts] + ["openai/judge-model"], planned_rounds=2,
               config=DebateConfig(protocol=protocol, topic=topic, rounds=2, lang=lang,
                                   models=[p.model for p in parts], judge_model="openai/judge-model",
                                   stances=[p.stance for p in parts] if protocol == "topic" else []),
               rounds=rounds, verdict=verdict, source="run")
    archive.save(d)
    return d



# ------------------------------------------------------------------ Vega-Lite charts (the Archive's Charts tab)


def vega_specs(at) -> list[dict]:
    """The Vega-Lite charts an AppTest run drew (``st.altair_chart``), their specifications in page order."""
    import json

    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def vega_data(chart) -> list[dict]:
    """An AppTest Vega-Lite chart's rows, as the page sent them (Arrow datasets beside the specification)."""
    import pyarrow as pa

    rows: list[dict] = []
    for ds in chart.proto.datasets:
        rows += pa.ipc.open_stream(ds.data.data).read_all().to_pylist()
    return rows


def vega_title(spec: dict) -> str:
    title = spec.get("title", "")
    return title.get("text", "") if isinstance(title, dict) else str(title)


def vega_values(spec: dict, field: str) -> list:
    """The values of ``field`` in a specification's inline data (``webapp.views.chart_spec``)."""
    return [row[field] for rows in spec.get("datasets", {}).values() for row in rows if field in row]


def vega_strings(spec: dict) -> list[str]:
    """Every string of a specification outside its data: titles, axis and legend titles, formats."""
    out: list[str] = []

    def walk(v, key=""):
        if key == "datasets":
            return
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(spec)
    return out
