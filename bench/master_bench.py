"""Master-debate speed: an offline 4-round debate in-process, and `masters` as a command.

Targets (issue 2): a 4-round offline debate under 0.5 s wall excluding interpreter
start-up; `python -m debate_core masters` under 1.5 s wall, litellm not imported.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
TOPIC = "禅宗顿悟和净土念佛，到底谁更直接？"


def one_debate(cold: bool) -> float:
    from debate_core.api import _cached_pack, run_debate
    from debate_core.models import DebateConfig
    from debate_core.render import render_markdown

    if cold:
        _cached_pack.cache_clear()
    t0 = time.perf_counter()
    d = run_debate(DebateConfig(topic=TOPIC))
    render_markdown(d)
    assert d.status == "completed" and len(d.rounds) == 4
    return time.perf_counter() - t0


def main() -> None:
    first = one_debate(cold=True)  # includes importing debate_core's modules and loading the pack
    cold = [one_debate(cold=True) for _ in range(10)]
    warm = [one_debate(cold=False) for _ in range(20)]
    print("offline 4-round master debate (pick pair, 4 checked rounds, summaries, observation, render):")
    print(f"  first in a fresh interpreter (imports + pack load): {first * 1000:.0f} ms")
    print(f"  pack re-loaded each time: median {statistics.median(cold) * 1000:.1f} ms over 10 runs")
    print(f"  pack cached:              median {statistics.median(warm) * 1000:.1f} ms over 20 runs")
    print(f"  target < 500 ms: {'met' if max(first, max(cold)) < 0.5 else 'NOT met'}")

    walls = []
    for _ in range(5):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "debate_core", "masters"], cwd=REPO, capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        assert out.returncode == 0, out.stderr
    probe = subprocess.run([sys.executable, "-c", "import sys, contextlib, io\nfrom debate_core.cli import main\n"
                            "with contextlib.redirect_stdout(io.StringIO()): main(['masters'])\n"
                            "print('litellm' in sys.modules)"], cwd=REPO, capture_output=True, text=True)
    print("`python -m debate_core masters` as a whole command (interpreter start-up included):")
    print(f"  median {statistics.median(walls) * 1000:.0f} ms, max {max(walls) * 1000:.0f} ms over 5 runs; "
          f"litellm imported: {probe.stdout.strip()}")
    print(f"  target < 1500 ms: {'met' if max(walls) < 1.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
