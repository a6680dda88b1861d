"""
Benchmarks: skinkit against its peers
=====================================

``benchmarks/run.py`` times skinkit and its peers (NumPy, SciPy, smplx on torch) side by side
and writes JSON.  This plots, for each case, how many times faster skinkit is than each peer
("vs skinkit": the peer's median time over skinkit's; above 1, skinkit is faster), from
``benchmarks/results.json`` when a full (not ``--quick``) run left one there, else from
``examples/data/benchmark_results.json``, a run committed with the examples (its machine and
date are in the title).
"""
import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Patch

# the repository: this file's folder's parent (the gallery runs examples in examples/, no __file__)
ROOT = Path(globals().get("__file__", "plot.py")).resolve().parent.parent
path = ROOT / "benchmarks" / "results.json"
if not path.exists() or json.loads(path.read_text())["meta"].get("quick"):
    path = ROOT / "examples" / "data" / "benchmark_results.json"
results = json.loads(path.read_text())

rows = []   # (case label, peer, ratio)
for case in results["cases"]:
    label = f"{case['operation']}, {case['size']} {case['dtype']}, {case['threads']} thr"
    for impl in case["impls"]:
        if impl["name"].startswith("skinkit") or not impl.get("ratio_to_skinkit"):
            continue
        rows.append((label, impl["name"], impl["ratio_to_skinkit"]))
peers = list(dict.fromkeys(r[1] for r in rows))
colors = {peer: f"C{i}" for i, peer in enumerate(peers)}

fig, ax = plt.subplots(figsize=(10, 0.3 * len(rows) + 1.5))
y = np.arange(len(rows))
ax.barh(y, [ratio for _, _, ratio in rows], color=[colors[peer] for _, peer, _ in rows])
ax.axvline(1.0, color="k", linewidth=0.8)
ax.set_xscale("log")
ax.set_yticks(y)
ax.set_yticklabels([label for label, _, _ in rows], fontsize=6)
ax.invert_yaxis()
ax.set_xlabel("times faster than the peer (log scale; > 1: skinkit is faster)")
meta = results["meta"]
ax.set_title(f"{meta['cpu']}, {meta['cpus']} CPUs, {meta['date'][:10]}, load average "
             f"{meta['loadavg_start'][0]:.1f} to {meta['loadavg_end'][0]:.1f}\n"
             f"{path.relative_to(ROOT)}", fontsize=8)
ax.legend(handles=[Patch(color=c, label=peer) for peer, c in colors.items()], fontsize=7)
fig.tight_layout()
plt.show()
