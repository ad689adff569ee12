#!/usr/bin/env python3
"""The same cross-attention heatmap drawn the course notebooks' way (NumPy,
seaborn on matplotlib, savefig) against `transformer-tracer export`, for
the ratio. Each is a whole process, run RUNS times, user + sys CPU of the
child (os.wait4), the median; the notebook's peak RSS too.

    python3 bench/notebook_heatmap.py [BINARY] [RUNS]   (default build/transformer-tracer, 10)

The notebook is given the attention weights (from the tracer's own trace
JSON, written once and not timed), so it only draws: its import of NumPy,
matplotlib and seaborn, one heatmap of 1200 x 800 pixels with the tokens
as labels, and savefig to a PNG.

Needs the Debian packages python3-numpy, python3-matplotlib and
python3-seaborn, for this benchmark only (the tests never use them):
    sudo apt-get install python3-numpy python3-matplotlib python3-seaborn
Without them it says so and exits 0. The figures are in docs/PERFORMANCE.md."""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_cpu import cpu_ms  # noqa: E402

SENTENCE = "the cat sits on the mat ."
STAGE, HEAD, STEP = "dec.L2.cross_attn.weights", 1, 6

# What a notebook cell does, as its own process.
NOTEBOOK = """
import json, sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib import font_manager
import seaborn as sns

d = json.load(open(sys.argv[1]))
weights = np.array(d["values"], dtype=np.float32)
# the target tokens are Chinese: a CJK font, as the tracer draws them
cjk = [f.name for f in font_manager.fontManager.ttflist if "CJK" in f.name]
if cjk:
    plt.rcParams["font.family"] = cjk[0]
fig, ax = plt.subplots(figsize=(12, 8), dpi=100)
sns.heatmap(weights, xticklabels=d["col_labels"], yticklabels=d["row_labels"], cmap="viridis",
            vmin=0, vmax=1, annot=False, ax=ax)
ax.set_xlabel("source (keys)")
ax.set_ylabel("target (queries)")
ax.set_title(d["title"])
fig.savefig(sys.argv[2])
"""


def notebook_python():
    """A Python with the three packages: this one, else Debian's; or None."""
    for python in (sys.executable, "/usr/bin/python3"):
        probe = subprocess.run([python, "-c", "import numpy, matplotlib, seaborn"], capture_output=True)
        if probe.returncode == 0:
            return python
    return None


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "build/transformer-tracer"
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    python = notebook_python()
    if not python:
        print("notebook_heatmap: skipped: NumPy, matplotlib or seaborn is missing "
              "(sudo apt-get install python3-numpy python3-matplotlib python3-seaborn; for this benchmark only)")
        return
    with tempfile.TemporaryDirectory() as out:
        trace = os.path.join(out, "t.json")
        subprocess.run([binary, "trace", "--src", SENTENCE, "--out", trace], check=True)
        steps = json.load(open(trace))["steps"]
        s = next(s for s in steps if s["stage"] == STAGE and s["head"] == HEAD and s["step"] == STEP)
        data = os.path.join(out, "attn.json")
        json.dump({"values": s["values"], "row_labels": s["row_labels"], "col_labels": s["col_labels"],
                   "title": f"{STAGE}, head {HEAD}, step {STEP}"}, open(data, "w"), ensure_ascii=False)
        notebook = [python, "-c", NOTEBOOK, data, os.path.join(out, "nb.png")]
        tracer = [binary, "export", "--src", SENTENCE, "--stage", STAGE, "--head", str(HEAD), "--step", str(STEP),
                  "--out", os.path.join(out, "tt.png")]
        results = {}
        for name, argv in (("notebook (NumPy + seaborn + savefig)", notebook), ("transformer-tracer export", tracer)):
            cpu_ms(argv)  # the first run builds matplotlib's font cache and warms the page cache
            samples = [cpu_ms(argv) for _ in range(runs)]
            ms = [x[0] for x in samples]
            results[name] = statistics.median(ms)
            print(f"{name:<38} median {statistics.median(ms):8.1f} ms CPU (min {min(ms):.1f}, max {max(ms):.1f}), "
                  f"peak RSS {max(x[1] for x in samples) / 1024:.0f} MiB")
        nb, tt = results.values()
        print(f"ratio: the notebook's way takes {nb / tt:.0f}x the CPU of the export ({runs} runs each)")


if __name__ == "__main__":
    main()
