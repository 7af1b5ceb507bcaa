#!/usr/bin/env python3
"""Prints each benchmark group's means and its guard/bare ratio from criterion's output."""
import json, pathlib, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")
for group in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "report"):
    means = {}
    for bench in group.iterdir():
        est = bench / "new" / "estimates.json"
        if est.exists():
            means[bench.name] = json.loads(est.read_text())["mean"]["point_estimate"]
    line = "  ".join(f"{k}: {v:,.1f} ns" for k, v in sorted(means.items()))
    for base in ("bare", "decode", "parse"):
        for ours in ("guard", "scan"):
            if base in means and ours in means:
                line += f"  {ours}/{base} = {means[ours] / means[base]:.3f}"
    print(f"{group.name:12} {line}")
