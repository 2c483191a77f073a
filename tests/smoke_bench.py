#!/usr/bin/env python3
"""Smoke test of parcomp-bench (run by ctest as bench.smoke).

1. --benchmark_list_tests lists cpu.serial, gpu.paper and gpu.cub for parle.encode and parle.decode.
2. A tiny filtered run writes JSON whose context carries the parcomp metadata.
3. Without a GPU, the GPU benchmarks are reported as skipped (an error message saying so), never
   as measured; with a GPU they must have run.
"""
import json
import subprocess
import sys
from pathlib import Path


def main() -> int:
    bench, workdir = Path(sys.argv[1]), Path(sys.argv[2])
    workdir.mkdir(parents=True, exist_ok=True)

    listing = subprocess.run([bench, "--benchmark_list_tests", "--benchmark_filter=parle"],
                             check=True, capture_output=True, text=True).stdout.split()
    for exp in ("parle.encode", "parle.decode"):
        for variant in ("cpu.serial", "gpu.paper", "gpu.cub"):
            prefix = f"{exp}/{variant}/"
            assert any(n.startswith(prefix) for n in listing), f"no benchmark {prefix}* in the listing"
    # Google Benchmark appends how it timed: /manual_time (CUDA events) or /real_time (wall clock).
    assert "parle.encode/gpu.paper/runs-mean8/n=16777216/manual_time" in listing, "name scheme changed"
    assert "parle.encode/cpu.serial/runs-mean8/n=16777216/real_time" in listing, "name scheme changed"

    out = workdir / "smoke.json"
    run = subprocess.run([bench, "--benchmark_filter=parle.*/n=65536/", "--benchmark_min_time=0.001",
                          "--benchmark_repetitions=1", f"--benchmark_out={out}", "--parcomp_force_debug"],
                         capture_output=True, text=True)
    print(run.stdout[-3000:])
    print(run.stderr[-3000:], file=sys.stderr)
    assert run.returncode == 0, f"parcomp-bench exited with {run.returncode}"

    doc = json.loads(out.read_text())
    ctx = doc["context"]["parcomp"]
    assert ctx["schema_version"] == 1
    for key in ("build", "host", "argv", "datasets", "date_utc"):
        assert key in ctx, f"context.parcomp lacks {key}"
    assert any(k.startswith("parle/random/n=65536") for k in ctx["datasets"]), ctx["datasets"].keys()
    for record in ctx["datasets"].values():
        assert len(record["sha256"]) == 64

    benches = doc["benchmarks"]
    cpu = [b for b in benches if "/cpu.serial/" in b["name"]]
    gpu = [b for b in benches if "/gpu." in b["name"]]
    assert cpu and gpu, "the filter selected no CPU or no GPU benchmarks"
    for b in cpu:
        assert not b.get("error_occurred"), b
        assert b["bytes_per_second"] > 0
    if ctx["device"] is None:
        for b in gpu:
            assert b.get("error_occurred") and b["error_message"].startswith("skipped: no CUDA device"), b
        print(f"GPU benchmarks: {len(gpu)} skipped (no CUDA device), as they must be")
    else:
        for b in gpu:
            assert not b.get("error_occurred"), b
            assert 0 < b["bw_util"] < 1.5, b
        assert ctx["device"]["measured_bandwidth_bytes_per_second"] > 0
    print("bench smoke test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
