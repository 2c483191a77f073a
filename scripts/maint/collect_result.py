#!/usr/bin/env python3
"""Copy a parcomp-bench JSON (from a GPU machine) into results/<gpu>/<date>-<time>-<sha>/run.json, named
from its own metadata, with the gpu-check logs beside it (nvidia-smi and the named logs, shortened).

    scripts/maint/collect_result.py BENCH.json CHECK_DIR [LOG ...]
"""
import json, sys, shutil, pathlib, datetime
src, check_dir, extra_logs = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3:]
d = json.load(open(src))
p = d["context"]["parcomp"]
slug = p["device"]["slug"]
sha = p["build"]["git_sha"][:7]
date = datetime.datetime.fromisoformat(d["context"]["date"]).strftime("%Y%m%d-%H%M%S")
out = pathlib.Path("results") / slug / f"{date}-{sha}" / "run.json"
out.parent.mkdir(parents=True, exist_ok=True)
shutil.copy(src, out)
log = out.parent / "gpu-check.txt"
parts = [f"# gpu-check.sh output for {out.name} (commit {sha}, bundle built with CUDA 13.0, sm_90)\n"]
for name in ["nvidia-smi.txt"] + extra_logs:
    f = check_dir / name
    if f.exists():
        txt = f.read_text()
        lines = txt.splitlines()
        if len(lines) > 60:
            txt = "\n".join(lines[:5] + ["..."] + lines[-40:])
        parts.append(f"\n## {name}\n{txt}\n")
log.write_text("".join(parts))
print(out)
