#!/usr/bin/env python3
"""Recompute prep-bench's SSIM-Y with ../shared/bench/quality.py's own functions, unrounded.

    Benchmarks/crosscheck-ssim.py RESULTS.json WORK [QUALITY_DIR]

RESULTS.json is what `prep-bench --json` wrote, WORK the folder it used (`--work`), and
QUALITY_DIR the folder holding quality.py (default: ../shared/bench next to the repository).
For every photo and tool it prints both values and their difference, choosing the reference
orientation exactly as quality.py does, and exits 1 when any differs by more than 1e-6.
Slow: Python makes each float64 reference in a few seconds.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) not in (3, 4):
    sys.exit(__doc__)
sys.path.insert(0, sys.argv[3] if len(sys.argv) == 4 else os.path.join(here, "..", "..", "shared", "bench"))
import quality  # noqa: E402

results = json.load(open(sys.argv[1]))["results"]
work = sys.argv[2]
worst = 0.0
for photo, tools in sorted(results["quality"].items()):
    original = quality.Original(photo)
    stem = os.path.splitext(os.path.basename(photo))[0]
    height0, width0 = original.pixels.shape[:2]
    for tool, measured in sorted(tools.items()):
        output = os.path.join(work, "single", tool.replace(" ", ""), stem, stem + ".jpg")
        pixels, _ = quality.load_rgb(output)
        height, width = pixels.shape[:2]
        best = None
        for orient in sorted({1, original.orient}):
            w, h = (height0, width0) if orient in (5, 6, 7, 8) else (width0, height0)
            if abs((width / height) / (w / h) - 1) < 0.02:
                ssim = quality.ssim_y(original.reference(orient, width, height), pixels)
                if best is None or ssim > best:
                    best = ssim
        difference = measured["ssim"] - best
        worst = max(worst, abs(difference))
        print(f"{stem:28s} {tool:18s} {width}x{height} prep-bench {measured['ssim']:.7f} "
              f"quality.py {best:.7f} difference {difference:+.1e}")
    del original
print(f"largest difference {worst:.1e}")
sys.exit(0 if worst <= 1e-6 else 1)
