"""The library's structure, as docs/architecture.md draws it: one-way layers, small files,
no streamlit, protocol dispatch in one place."""

from __future__ import annotations

import ast
import configparser
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "debate_core"
MAX_LINES = 700
MAX_PROTOCOL_BRANCHES = 3  # outside debate_core/protocols/, the app side included


def _layers() -> list[str]:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / ".importlinter")
    raw = cfg["importlinter:contract:layers"]["layers"]
    return [m.strip() for line in raw.splitlines() for m in line.replace("|", ":").split(":") if m.strip()]


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    r = subprocess.run([str(lint) if lint.exists() else "lint-imports", "--config", str(ROOT / ".importlinter"),
                        "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "BROKEN" not in r.stdout and "Contracts: 3 kept, 0 broken" in r.stdout, r.stdout[-1500:]


def test_every_top_level_module_sits_in_a_layer():
    listed = set(_layers())
    mine = {f"debate_core.{p.stem if p.is_file() else p.name}" for p in LIB.iterdir()
            if (p.suffix == ".py" and p.name != "__init__.py") or (p.is_dir() and (p / "__init__.py").exists())}
    assert mine - listed == set(), f"modules in no layer of .importlinter: {sorted(mine - listed)}"
    assert listed - mine == set(), f"layers naming no module: {sorted(listed - mine)}"


def test_no_import_cycles_between_modules():
    import grimp

    graph = grimp.build_graph("debate_core")
    # Strongly connected components over module-to-module imports (a package's __init__ that
    # re-exports its own submodules is the package itself, not a cycle).
    nodes = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def edges(m: str) -> list[str]:
        out = []
        for t in graph.find_modules_directly_imported_by(m):
            if not t.startswith("debate_core"):
                continue
            if m.startswith(t + ".") or t.startswith(m + "."):
                continue  # a module and its own package
            out.append(t)
        return out

    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for n in nodes:
        if n not in index:
            visit(n)
    assert cycles == [], f"import cycles: {cycles}"


def test_no_library_file_is_over_700_lines():
    big = {str(p.relative_to(ROOT)): n for p in LIB.rglob("*.py")
           if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert big == {}, big


def test_importing_the_whole_library_never_loads_streamlit():
    code = ("import pkgutil, importlib, sys, debate_core\n"
            "for m in pkgutil.walk_packages(debate_core.__path__, 'debate_core.'):\n"
            "    if m.name != 'debate_core.__main__':\n"
            "        importlib.import_module(m.name)\n"
            "bad = sorted(k for k in sys.modules if k == 'streamlit' or k.startswith('streamlit.'))\n"
            "print(len(list(pkgutil.walk_packages(debate_core.__path__, 'debate_core.'))), bad[:3])\n"
            "assert not bad, bad[:3]\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(r.stdout.split()[0]) > 40  # the walk really imported the library


def _protocol_branches(path: Path) -> list[str]:
    """Comparisons of a protocol-like name with a protocol's name: ``x.protocol == "master"``,
    ``protocol in ("topic", "trial")``, ``kind != "trial"`` on a protocol variable, …"""
    from debate_core.protocols import registry

    names = set(registry.names())
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hits = []

    def is_protocolish(node: ast.AST) -> bool:
        text = ast.unparse(node)
        return "protocol" in text.lower()

    def strs(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return {node.value}
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        return set()

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
            if any(is_protocolish(p) for p in parts) and any(strs(p) & names for p in parts):
                hits.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict):  # {"master": …, "topic": …} keyed by protocol
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if len(keys & names) >= 2:
                hits.append(f"{path.relative_to(ROOT)}:{node.lineno}: a dict keyed by protocol names")
    return hits


def test_protocol_dispatch_lives_in_the_registry():
    files = [p for p in LIB.rglob("*.py") if "protocols" not in p.relative_to(LIB).parts]
    files += [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    if (ROOT / "webapp").is_dir():
        files += sorted((ROOT / "webapp").rglob("*.py"))
    hits = [h for f in files for h in _protocol_branches(f)]
    assert len(hits) <= MAX_PROTOCOL_BRANCHES, "\n".join(hits)


def test_the_branch_finder_sees_a_branch(tmp_path):
    """The dispatch test above is only as good as its finder: it must flag the usual shapes."""
    probe = ROOT / "tests" / "_probe_branches.py"
    probe.write_text('def f(d, protocol):\n    if d.protocol == "master":\n        pass\n'
                     '    if protocol in ("topic", "trial"):\n        pass\n    return {"topic": 1, "trial": 2}\n',
                     encoding="utf-8")
    try:
        assert len(_protocol_branches(probe)) == 3
    finally:
        probe.unlink()
