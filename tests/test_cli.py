"""The CLI end to end, in real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO, run_cli
from tests.master_script import master_script

TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"


def test_offline_debate_prints_the_framework():
    out = run_cli("debate", TOPIC, "--quiet")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert text.startswith("> 本对话依据历史佛教文献生成")
    for head in ("## 议题：" + TOPIC, "### R1｜慧能大师 立论", "### R2｜印光大师 反驳", "### R3｜慧能大师 回应",
                 "### R4｜印光大师 综合", "### 教内余争 — 中立观察"):
        assert head in text
    assert "引擎：离线引擎" in text


def test_debate_json_and_masters_option():
    out = run_cli("debate", "空与有", "--masters", "kumarajiva,玄奘", "--rounds", "2", "--format", "json", "--quiet")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["protocol"] == "master" and data["status"] == "completed"
    assert [p["label"] for p in data["participants"]] == ["kumarajiva", "xuanzang"]
    assert [r["role"] for r in data["rounds"]] == ["立论", "综合"]
    assert data["observation"]["to_reader"]
    assert all({"round", "speaker", "role", "text", "citations", "findings"} <= set(r) for r in data["rounds"])


@pytest.mark.parametrize("args,needle", [
    (["debate", ""], "topic is empty"),
    (["debate", "   "], "topic is empty"),
    (["debate", "字" * 501], "limit is 500"),
    (["debate", TOPIC, "--masters", "huineg,yinguang"], "did you mean 'huineng'"),
    (["debate", TOPIC, "--masters", "huineng,慧能"], "same master twice"),
    (["debate", TOPIC, "--rounds", "0"], "out of range"),
    (["debate", TOPIC, "--model", "deepseek/deepseek-chat"], "DEEPSEEK_API_KEY"),
    (["debate", TOPIC, "--model", "openai/x", "--api-base", "http://127.0.0.1:9/v1"], "cannot reach api_base"),
    (["pack", "check", "/nonexistent/pack"], "not found"),
])
def test_bad_input_gets_one_clear_line(args, needle):
    out = run_cli(*args, env={"DEEPSEEK_API_KEY": ""})
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert needle in out.stderr
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_model_path_through_an_openai_compatible_server(default_pack, scripted):
    scripted.script = master_script(default_pack)
    out = run_cli("debate", TOPIC, "--model", "openai/scripted", "--api-base", scripted.url, "--format", "json",
                  "--quiet")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "completed"
    assert {r["engine"] for r in data["rounds"]} == {"openai/scripted"}
    # one speech request a round, plus one per retry of a speech that failed a check
    retries = sum(r["retries"] for r in data["rounds"])
    assert len([r for r in scripted.requests if "你扮演" in r["messages"][0]["content"]]) == 4 + retries


def test_model_from_environment(default_pack, scripted):
    scripted.script = master_script(default_pack)
    out = run_cli("debate", TOPIC, "--quiet", env={"DEBATE_MODEL": "openai/env-model", "DEBATE_API_BASE": scripted.url})
    assert out.returncode == 0, out.stderr
    assert "引擎：openai/env-model" in out.stdout


def test_paths_without_a_model_do_not_import_litellm():
    code = ("import sys, io, contextlib\nfrom debate_core.cli.main import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            "    for argv in (['masters'], ['pair', '禅净'], ['debate', '禅净之争', '--quiet']):\n"
            "        assert main(argv) == 0\n"
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_masters_lists_the_default_pack():
    out = run_cli("masters", "--format", "json")
    assert out.returncode == 0
    slugs = {m["slug"] for m in json.loads(out.stdout)}
    assert {"huineng", "yinguang", "ouyi", "atisha"} <= slugs


def test_pack_check_names_a_broken_argument_layer_file_and_fails(tmp_path):
    # a cases file that is not YAML left its cases out silently: the check names the file and fails
    import shutil

    pack = tmp_path / "pack"
    shutil.copytree(REPO / "data" / "packs" / "default", pack)
    (pack / "master-debate" / "cases" / "anger.yaml").write_text("cases: [[[\n", encoding="utf-8")
    r = run_cli("pack", "check", str(pack))
    assert r.returncode == 1 and "master-debate/cases/anger.yaml: line 2 not valid YAML" in r.stdout, r.stdout[-400:]
    ok = run_cli("pack", "check", str(REPO / "data" / "packs" / "default"))
    assert ok.returncode == 0 and "argument layer:" not in ok.stdout
    # and a debate on that pack still runs, saying on stderr that entries were left out, and which file to fix
    d = run_cli("debate", "跟家里人说话总忍不住发火怎么办", "--pack", str(pack), "--quiet")
    assert d.returncode == 0 and "### R1｜" in d.stdout, d.stderr
    warning = [line for line in d.stderr.splitlines() if line.startswith("警告：")]
    assert len(warning) == 1 and "1 处问题" in warning[0] and "cases/anger.yaml" in warning[0], d.stderr
    assert f"debate pack check {pack}" in warning[0]
    clean = run_cli("debate", "跟家里人说话总忍不住发火怎么办", "--quiet")
    assert clean.returncode == 0 and "警告" not in clean.stderr, clean.stderr
