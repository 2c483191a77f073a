#!/usr/bin/env python3
"""Runs a command and samples its threads from /proc every few milliseconds until it exits: each
thread's name, state (R running or runnable, S sleeping, D in the kernel uninterruptibly), scheduling
policy (0 SCHED_OTHER, 3 SCHED_BATCH, 5 SCHED_IDLE), CPU time, time on a CPU and time waiting for
one (schedstat), CPU and kernel wait channel, and where a thread in D waits (its kernel stack,
where /proc lets this user read it). For a thread that holds a block for far longer than its CPU
time says: was it waiting for a core (R), for a lock or for memory (D, and where), or asleep (S).
Each sample also gives the process's memory (a line with "memory": resident, anonymous, file and
shared resident bytes, and pinned and locked bytes, from /proc/PID/status), so that a peak RSS can
be put beside the trace's spans.

  thread-states.py --every 2 --out states.jsonl -- parcomp -9 -c big > /dev/null

Writes one JSON line per sample and thread (t: seconds since the start) and one of the process's
memory; then prints, per thread, the longest stretch in one state with its policy and wait channel,
and the peak resident memory with its parts and its time.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def sample(pid: int) -> list[dict]:
    rows = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return rows
    for tid in tids:
        stat = read(f"/proc/{pid}/task/{tid}/stat")
        if stat is None:
            continue
        # comm is in parentheses and may hold spaces: the fields after its closing one
        f = stat[stat.rfind(")") + 2:].split()
        # schedstat: time on a CPU and time runnable but waiting for one (ns), where the kernel keeps it
        sched = (read(f"/proc/{pid}/task/{tid}/schedstat") or "0 0").split()
        rows.append({"tid": int(tid), "name": stat[stat.find("(") + 1:stat.rfind(")")], "state": f[0], "cpu_s": (int(f[11]) + int(f[12])) / TICK, "cpu": int(f[36]),
                     "policy": int(f[38]), "run_s": int(sched[0]) / 1e9, "runqueue_s": int(sched[1]) / 1e9,
                     "wchan": (read(f"/proc/{pid}/task/{tid}/wchan") or "").strip() or "0"})
        if f[0] == "D":  # in the kernel, uninterruptibly: where (readable by root only)
            stack = (read(f"/proc/{pid}/task/{tid}/stack") or "").split("\n")
            rows[-1]["stack"] = [line.split(" ", 1)[-1] for line in stack if line][:6]
    return rows


MEMORY = {"VmRSS": "rss", "RssAnon": "anon", "RssFile": "file", "RssShmem": "shmem", "VmPin": "pinned", "VmLck": "locked"}


def memory(pid: int) -> dict | None:
    """The process's memory now, in bytes (the fields /proc/PID/status has)."""
    status = read(f"/proc/{pid}/status")
    if status is None:
        return None
    got = {}
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key in MEMORY and value.strip().endswith("kB"):
            got[MEMORY[key]] = int(value.split()[0]) * 1024
    return got or None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--every", type=float, default=2.0, help="milliseconds between samples")
    ap.add_argument("--out", required=True, help="JSON lines, one per sample and thread")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd)
    stretches: dict[int, tuple[str, int, str, float, float]] = {}  # tid -> (state, policy, wchan, from, to)
    longest: dict[int, tuple[float, str, int, str, float]] = {}
    names: dict[int, str] = {}
    peak: dict = {}
    with open(a.out, "w") as out:
        while proc.poll() is None:
            t = time.monotonic() - t0
            m = memory(proc.pid)
            if m is not None:
                out.write(json.dumps({"t": round(t, 4), "memory": m}) + "\n")
                if m.get("rss", 0) > peak.get("rss", -1):
                    peak = {**m, "t": round(t, 4)}
            for r in sample(proc.pid):
                out.write(json.dumps({"t": round(t, 4), **r}) + "\n")
                names[r["tid"]] = r["name"]
                key = (r["state"], r["policy"], r["wchan"])
                s = stretches.get(r["tid"])
                if s is None or s[:3] != key:
                    s = (*key, t, t)
                else:
                    s = (*key, s[3], t)
                stretches[r["tid"]] = s
                if s[4] - s[3] > longest.get(r["tid"], (0.0,))[0]:
                    longest[r["tid"]] = (s[4] - s[3], s[0], s[1], s[2], s[3])
            time.sleep(a.every / 1000)
    for tid, (d, state, policy, wchan, start) in sorted(longest.items(), key=lambda kv: -kv[1][0])[:24]:
        print(f"thread {tid} ({names.get(tid, '?')}): {d:.3f} s in {state} from {start:.3f} s, policy {policy}, wchan {wchan}", file=sys.stderr)
    if peak:
        parts = ", ".join(f"{k} {peak[k] / 1e6:.1f} MB" for k in MEMORY.values() if k != "rss" and k in peak)
        print(f"peak resident memory {peak['rss'] / 1e6:.1f} MB at {peak['t']:.3f} s ({parts})", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
