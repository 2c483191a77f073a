#!/usr/bin/env python3
"""Run parcomp-bench one experiment at a time, with a progress line per experiment, and merge the
calls into one result file (what scripts/reproduce.sh runs).

    scripts/run_experiments.py BENCH --out RUN.json [--filter REGEX] [--estimate EARLIER.json]
                               [--parts DIR [--deadline SECONDS]] [-- ARGS]

The experiments are the benchmark names' first part (`parle.encode`, `thesis.fig4_4`, ...), in the
order parcomp-bench registers them; those with benchmarks matching REGEX run one after the other,
each in its own parcomp-bench call (ARGS passed on), and after each the standard error gets

    [3/24] pavle.fig4a: 12 benchmarks in 41 s; 2 min 05 s so far, about 7 min left

The estimate of what is left: the seconds each experiment took in EARLIER.json (an earlier run's
file, context.experiment_seconds; scripts/reproduce.sh passes the newest one of the same GPU)
where it has the experiment, else the mean seconds per benchmark of this run so far. The merged
file (scripts/merge_results.py: the first call's context, every other call under
context.merged_runs) records context.experiment_seconds for the next run's estimate and for the
README's "how long it takes". Exit status 1 when a call failed (the others still run).

A run longer than one sitting (a GPU machine lent 10 minutes a call) goes in parts: with --parts
DIR each experiment's file is kept as DIR/<experiment>.json (its seconds beside it), and an
experiment whose file is there from an earlier call is not run again; with --deadline SECONDS no
experiment starts once that many seconds have passed, nor one that the estimate says would not end
in time, and one running at the deadline is stopped and its file removed (it runs again next
time). RUN.json is written once every experiment has its part; until then the exit status is 3
and the standard error says how many are left.
"""
from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import merge_results  # noqa: E402

ERE_SPECIAL = set("\\.[]()*+?{}|^$")


def ere_escape(s: str) -> str:
    """A literal for POSIX extended regular expressions (Google Benchmark's filters)."""
    return "".join("\\" + c if c in ERE_SPECIAL else c for c in s)


def experiment_of(name: str) -> str:
    return name.split("/", 1)[0]


def list_names(bench: str, regex: str, args: list[str]) -> list[str]:
    r = subprocess.run([bench, "--benchmark_list_tests=true", f"--benchmark_filter={regex}", *args],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"run_experiments: {bench} could not list its benchmarks: {r.stderr.strip()[-500:]}")
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def plan(bench: str, regex: str, args: list[str]) -> list[tuple[str, str, int]]:
    """(experiment, filter that selects exactly its benchmarks matching regex, how many)."""
    every = list_names(bench, ".", args)
    chosen = list_names(bench, regex, args)
    chosen_set = set(chosen)
    order: list[str] = []
    all_of: dict[str, list[str]] = {}
    for n in every:
        e = experiment_of(n)
        if e not in all_of:
            all_of[e] = []
            order.append(e)
        all_of[e].append(n)
    out = []
    for e in order:
        mine = [n for n in all_of[e] if n in chosen_set]
        if not mine:
            continue
        if len(mine) == len(all_of[e]):
            f = f"^{ere_escape(e)}/"
        else:  # part of the experiment: its names one by one
            f = "^(" + "|".join(ere_escape(n) for n in mine) + ")$"
        out.append((e, f, len(mine)))
    return out


def duration(s: float) -> str:
    s = max(0, round(s))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def estimate_left(rest: list[tuple[str, str, int]], earlier: dict[str, float], seconds: float, benchmarks: int) -> float:
    per = seconds / benchmarks if benchmarks else 0.0
    return sum(earlier.get(e, per * n) for e, _, n in rest)


def earlier_seconds(path: Path | None) -> dict[str, float]:
    if path is None or not path.exists():
        return {}
    try:
        doc, _ = merge_results.load_repaired(path)
    except (OSError, json.JSONDecodeError, merge_results.MergeError):
        return {}
    return {k: float(v) for k, v in doc.get("context", {}).get("experiment_seconds", {}).items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--filter", default=".")
    ap.add_argument("--estimate", type=Path, help="an earlier run's file: its experiment_seconds")
    ap.add_argument("--parts", type=Path, help="keep each experiment's file here; skip those already here")
    ap.add_argument("--deadline", type=float, help="seconds: start no experiment that would end later (with --parts)")
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.args = extra  # for parcomp-bench
    if a.deadline is not None and a.parts is None:
        ap.error("--deadline needs --parts (the experiments left run in a later call)")
    steps = plan(a.bench, a.filter, a.args)
    if not steps:
        print(f"run_experiments: no benchmark matches {a.filter!r}", file=sys.stderr)
        return 1
    earlier = earlier_seconds(a.estimate)
    total_benchmarks = sum(n for _, _, n in steps)
    print(f"run_experiments: {len(steps)} experiments, {total_benchmarks} benchmarks"
          + (f"; about {duration(estimate_left(steps, earlier, 0, 0))} by {a.estimate.name}" if earlier and all(e in earlier for e, _, _ in steps) else ""),
          file=sys.stderr, flush=True)
    t0 = time.monotonic()
    files: list[Path] = []
    seconds: dict[str, float] = {}
    failed: list[str] = []
    done_benchmarks = 0
    with tempfile.TemporaryDirectory(prefix="parcomp-run-") as tmp:
        parts_dir = a.parts if a.parts is not None else Path(tmp)
        parts_dir.mkdir(parents=True, exist_ok=True)
        left_over: list[str] = []
        for k, (e, f, n) in enumerate(steps, 1):
            part = parts_dir / f"{e}.json"
            secs_file = parts_dir / f"{e}.seconds"
            if a.parts is not None and part.exists() and secs_file.exists():
                seconds[e] = float(secs_file.read_text())
                files.append(part)
                done_benchmarks += n
                if (parts_dir / f"{e}.failed").exists():
                    failed.append(f"{e} ({(parts_dir / f'{e}.failed').read_text().strip()}, in an earlier call)")
                print(f"[{k}/{len(steps)}] {e}: done in an earlier call ({duration(seconds[e])})", file=sys.stderr, flush=True)
                continue
            timeout = None
            if a.deadline is not None:
                timeout = a.deadline - (time.monotonic() - t0)
                need = earlier.get(e, 0.0)
                if timeout <= 0 or need > timeout:
                    left_over.append(e)
                    print(f"[{k}/{len(steps)}] {e}: left for a later call ({duration(max(timeout, 0))} left, "
                          f"{'about ' + duration(need) if need else 'no estimate'})", file=sys.stderr, flush=True)
                    continue
            t = time.monotonic()
            proc = subprocess.Popen([a.bench, f"--benchmark_filter={f}", f"--benchmark_out={part}", "--benchmark_out_format=json", *a.args])
            try:
                returncode = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                part.unlink(missing_ok=True)
                left_over.append(e)
                print(f"[{k}/{len(steps)}] {e}: stopped at the deadline after {duration(time.monotonic() - t)}; "
                      "it runs again in a later call", file=sys.stderr, flush=True)
                continue
            seconds[e] = time.monotonic() - t
            done_benchmarks += n
            if returncode != 0:
                failed.append(f"{e} (exit {returncode})")
                if a.parts is not None:
                    (parts_dir / f"{e}.failed").write_text(f"exit {returncode}\n")
            if part.exists() and part.stat().st_size > 0:
                files.append(part)
                if a.parts is not None:
                    secs_file.write_text(f"{seconds[e]:.3f}\n")
            elapsed = time.monotonic() - t0
            left = estimate_left(steps[k:], earlier, elapsed, done_benchmarks)
            print(f"[{k}/{len(steps)}] {e}: {n} benchmark{'s' if n != 1 else ''} in {duration(seconds[e])}; "
                  f"{duration(elapsed)} so far" + (f", about {duration(left)} left" if k < len(steps) else ", done"),
                  file=sys.stderr, flush=True)
        if left_over:
            print(f"run_experiments: {len(left_over)} of {len(steps)} experiments left for a later call with the same "
                  f"--parts {a.parts}: {', '.join(left_over)}", file=sys.stderr)
            if failed:
                print("run_experiments: failed: " + ", ".join(failed), file=sys.stderr)
            return 3
        if not files:
            print("run_experiments: no call wrote results", file=sys.stderr)
            return 1
        # The first file must carry the full context: a call cut off early may not.
        files.sort(key=lambda p: 0 if "parcomp" in merge_results.load_repaired(p)[0].get("context", {}) else 1)
        try:
            doc = merge_results.merge(files)
        except merge_results.MergeError as err:
            print(f"run_experiments: {err}", file=sys.stderr)
            return 1
    doc["context"]["experiment_seconds"] = {e: round(s, 3) for e, s in seconds.items()}
    # In parts, the run's seconds are its experiments' (the calls' gaps and set-up not counted).
    doc["context"]["run_seconds"] = round(sum(seconds.values()) if a.parts is not None else time.monotonic() - t0, 3)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"run_experiments: {a.out}: {len(doc['benchmarks'])} entries from {len(steps)} experiments in {duration(time.monotonic() - t0)}",
          file=sys.stderr)
    if failed:
        print("run_experiments: failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
