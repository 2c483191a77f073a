#!/usr/bin/env python3
"""Turn a bz2-times.sh folder (from a GPU machine) into results/<gpu>/<date>-<sha>/bz2-times.json:
per program and input, the runs' wall seconds, their median, GB/s of uncompressed data, the
fraction of `cat in > out`'s rate on the same input, whether every output matched, and the GPU
kernels' device times (ncu) and parcomp's --stats.

    scripts/maint/collect_bz2_times.py DIR [--date YYYYMMDD] [--note TEXT] [--checks FILE]
"""
import argparse
import csv
import datetime
import json
import pathlib
import re
import statistics

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--date", default=datetime.date.today().strftime("%Y%m%d"))
ap.add_argument("--note", default="")
ap.add_argument("--checks", help="a text file: what the GPU tests and sanitizers said in the same call")
a = ap.parse_args()
d = pathlib.Path(a.dir)

env = (d / "env.txt").read_text().splitlines()
gpu, driver, memory = [x.strip() for x in env[0].split(",")]
cuda = env[1].strip()
cores = int(env[2].split()[1])
_, file, sha = env[3].split()
commit = env[4].strip() if len(env) > 4 else ""

runs = [json.loads(line) for line in (d / "times.jsonl").read_text().splitlines() if line.strip()]
rows, order = {}, []
for r in runs:
    if r["label"] not in rows:
        rows[r["label"]] = []
        order.append(r["label"])
    rows[r["label"]].append(r)
out_rows, cat = [], {}
for label in order:
    rs = rows[label]
    secs = [float(r["seconds"]) for r in rs]
    med = statistics.median(secs)
    tag = label.split()[0]
    row = {
        "label": label,
        "input": tag,
        "input_bytes": rs[0]["input_bytes"],
        "seconds": secs,
        "median_seconds": med,
        "gb_per_s": round(rs[0]["input_bytes"] / med / 1e9, 3) if med > 0 else None,
        "output_bytes": rs[0]["output_bytes"],
        "exit_status": sorted({r["rc"] for r in rs}),
        "output_checked": None if rs[0]["same_as_reference"] is None else all(r["same_as_reference"] for r in rs),
    }
    if all("max_rss_kb" in r for r in rs):
        row["max_rss_mb"] = round(max(r["max_rss_kb"] for r in rs) / 1024, 1)
    if label.endswith(" cat"):
        cat[tag] = med
    out_rows.append(row)
for row in out_rows:
    c = cat.get(row["input"])
    row["fraction_of_cat"] = round(c / row["median_seconds"], 3) if c and row["median_seconds"] > 0 else None


def kernels(path):
    if not path.exists():
        return None
    lines = [line for line in path.read_text().splitlines() if line.startswith('"')]
    total = {}
    scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0, "s": 1e3, "second": 1e3}
    for x in csv.DictReader(lines):
        if x["Metric Name"] != "gpu__time_duration.sum":
            continue
        name = re.sub(r"\(.*", "", x["Kernel Name"]).replace("(anonymous namespace)::", "")
        total[name] = total.get(name, 0.0) + float(x["Metric Value"].replace(",", "")) * scale[x["Metric Unit"]]
    return {k: round(v, 3) for k, v in sorted(total.items(), key=lambda kv: -kv[1])}


doc = {
    "experiment": "bz2.tool_times",
    "what": "wall seconds of whole processes (start to exit), input in the page cache, output written to tmpfs; "
    "two runs each, median; GB/s of uncompressed data; fraction_of_cat: cat's median over this program's on the same input",
    "gpu": gpu,
    "driver": driver,
    "gpu_memory": memory,
    "cuda": cuda,
    "host_cores": cores,
    "commit": commit,
    "dataset": {"file": file, "sha256": sha, "inputs": "x1: the file; xN: the file N times"},
    "note": a.note,
    "rows": out_rows,
    "kernels_ms": {
        "note": "Nsight Compute gpu__time_duration per kernel, summed over launches, for one run on x1 (kernels serialised)",
        "decompress": kernels(d / "ncu-decompress.csv"),
        "compress": kernels(d / "ncu-compress.csv"),
    },
    "stats": {p.stem.removeprefix("stats-"): json.loads(p.read_text()) for p in sorted(d.glob("stats-*.json"))},
}
if a.checks:
    doc["checks"] = pathlib.Path(a.checks).read_text().splitlines()
slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
dest = pathlib.Path("results") / slug / f"{a.date}-{commit[:7] or 'unknown'}" / "bz2-times.json"
dest.parent.mkdir(parents=True, exist_ok=True)
dest.write_text(json.dumps(doc, indent=1) + "\n")
print(dest)
