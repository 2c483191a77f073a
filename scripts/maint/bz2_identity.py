#!/usr/bin/env python3
"""Byte identity of parcomp's .bz2 with bzip2's: every dataset file in the cache, compressed by
`parcomp -N -c` and by the installed `bzip2 -N -c`, compared byte for byte; where they differ, the
difference must lie inside origPtr fields of periodic blocks (README, .bz2), and both must give the
input back. Also reads bzip2's, lbzip2's and pbzip2's files (where installed) with `parcomp -d`.

    scripts/maint/bz2_identity.py [--build build] [--levels 1,9] [--json OUT]

Exit status 1 if any file differs elsewhere or does not round-trip. Needs no GPU (parcomp's .bz2
runs on the CPU workers today).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK_MAGIC, END_MAGIC = 0x314159265359, 0x177245385090


def magic_bits(data: bytes, magic: int = BLOCK_MAGIC) -> list[int]:
    """Bit offsets where the 48-bit magic starts. At bit 8i + s it fills bytes i+1 .. i+4 of the
    8-byte window at i with fixed values: find those, then confirm."""
    found = []
    for s in range(8):
        m = (magic << (16 - s)).to_bytes(8, "big")
        core, start = m[1:5], 0
        while (j := data.find(core, start)) >= 0:
            start = j + 1
            i = j - 1
            if i < 0:
                continue
            w = int.from_bytes(data[i:i + 8].ljust(8, b"\0"), "big")
            if (w >> (16 - s)) & ((1 << 48) - 1) == magic:
                found.append(8 * i + s)
    return sorted(found)


def differs_in_orig_ptr_only(a: bytes, b: bytes) -> bool:
    if len(a) != len(b):
        return False
    fields = [(m + 81, m + 105) for m in magic_bits(a)]
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        for k in range(8):
            if (x ^ y) >> (7 - k) & 1 and not any(lo <= i * 8 + k < hi for lo, hi in fields):
                return False
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, default=ROOT / "build")
    ap.add_argument("--levels", default="1,9")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    parcomp = args.build / "codec" / "parcomp"
    bzip2 = shutil.which("bzip2")
    if not parcomp.exists() or bzip2 is None:
        print(f"needs {parcomp} and bzip2", file=sys.stderr)
        return 1
    cache = Path(os.environ.get("PARCOMP_DATA", ROOT / "datasets" / "cache"))
    manifest = json.loads((ROOT / "datasets" / "manifest.json").read_text())
    files = []
    for src in manifest["sources"]:
        for f in src["files"]:
            if (cache / f["name"]).is_file():
                files.append((f["name"], f["sha256"]))
    if not files:
        print(f"no dataset in {cache}: python3 datasets/fetch.py", file=sys.stderr)
        return 1
    levels = [int(x) for x in args.levels.split(",")]
    rows, bad = [], 0
    for name, sha in files:
        data = (cache / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha, f"{name}: sha256 differs from the manifest"
        for level in levels:
            t0 = time.monotonic()
            ours = subprocess.run([str(parcomp), f"-{level}", "-c", "-q", "--cpu", str(cache / name)], capture_output=True, check=True).stdout
            t_ours = time.monotonic() - t0
            theirs = subprocess.run([bzip2, f"-{level}", "-c", str(cache / name)], capture_output=True, check=True).stdout
            back = subprocess.run([bzip2, "-d", "-c"], input=ours, capture_output=True, check=True).stdout
            same = ours == theirs
            verdict = "identical" if same else ("origPtr only" if differs_in_orig_ptr_only(ours, theirs) else "DIFFERENT")
            ok = back == data and verdict != "DIFFERENT"
            bad += not ok
            rows.append({"file": name, "bytes": len(data), "level": level, "compressed": len(ours), "verdict": verdict,
                         "bzip2_reads_it": back == data, "parcomp_seconds": round(t_ours, 3)})
            print(f"{'ok ' if ok else 'BAD'} {name} -{level}: {len(data)} -> {len(ours)} bytes, {verdict}, "
                  f"bzip2 -d {'gives the input back' if back == data else 'DIFFERS'}", flush=True)
    readers = []
    for prog, flags in (("bzip2", ["-9"]), ("lbzip2", ["-9", "-n", "4"]), ("pbzip2", ["-9", "-p4"])):
        exe = shutil.which(prog)
        if exe is None:
            continue
        for name, _ in files:
            packed = subprocess.run([exe, *flags, "-c", str(cache / name)], capture_output=True, check=True).stdout
            r = subprocess.run([str(parcomp), "-d", "-c", "-q", "--cpu"], input=packed, capture_output=True)
            ok = r.returncode == 0 and r.stdout == (cache / name).read_bytes()
            bad += not ok
            readers.append({"program": prog, "file": name, "ok": ok})
        print(f"{'ok ' if all(x['ok'] for x in readers if x['program'] == prog) else 'BAD'} parcomp -d reads {prog}'s files", flush=True)
    if args.json:
        git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        cpu = next((l.split(":", 1)[1].strip() for l in Path("/proc/cpuinfo").read_text().splitlines() if l.startswith("model name")), "?")
        args.json.write_text(json.dumps({
            "what": "scripts/maint/bz2_identity.py: parcomp -N against bzip2 -N on every cached dataset file; parcomp -d on bzip2's, lbzip2's, pbzip2's files",
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "commit": git("rev-parse", "HEAD") + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else ""),
            "host": {"cpu_model": cpu, "logical_cpus": os.cpu_count()},
            "bzip2": subprocess.run([bzip2, "--version"], capture_output=True, text=True).stderr.splitlines()[0],
            "writer": rows, "reader": readers}, indent=1) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
