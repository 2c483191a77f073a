#!/usr/bin/env python3
"""Test shards of about equal length for the sanitizer runs (gpu-check.sh), from each test's seconds.

Google Test's own sharding (GTEST_TOTAL_SHARDS) deals the tests out in turn, whatever they cost:
under racecheck a few engine and .bz2 tests take 2-6 minutes each while most take under a second,
so on the H200 at 2cdd84f four of twelve shards ran past 420 s while others ended after 170 s.
Here the tests go to the shards longest first, each to the shard with the least so far (LPT), by
their seconds in an earlier run's logs; a test not seen there counts as the median of those seen.

    shard_tests.py split --list LIST --shards N [--costs FILE ...]   one --gtest_filter per line
    shard_tests.py costs [--limit SECONDS] LOG ...                    "seconds name" lines

LIST is the test binary's --gtest_list_tests output. `costs` reads sanitizer logs (Google Test's
"[       OK ] name (N ms)" lines); a test still running when its shard was stopped at --limit
seconds counts as what was left of the limit after the tests before it (a lower bound).
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
from pathlib import Path


def parse_list(text: str) -> list[str]:
    """Full test names from --gtest_list_tests output ("Suite." lines, then indented test lines)."""
    names, suite = [], None
    for line in text.splitlines():
        if not line.strip():
            continue
        if not line.startswith(" "):
            suite = line.split("#")[0].strip()
            continue
        if suite is None:
            continue
        test = line.split("#")[0].strip()
        if test:
            names.append(suite + test)
    return names


def costs_from_log(text: str, limit: float | None = None) -> dict[str, float]:
    """Seconds per test from one shard's log; the test left running at the end, a lower bound."""
    costs: dict[str, float] = {}
    running = None
    for line in text.splitlines():
        m = re.match(r"^\[ RUN      \] (\S+)", line)
        if m:
            running = m.group(1)
            continue
        m = re.match(r"^\[       OK \] (\S+) \((\d+) ms\)", line)
        if m:
            costs[m.group(1)] = int(m.group(2)) / 1000
            running = None
    if running is not None and limit is not None:
        costs[running] = max(limit - sum(costs.values()), 0.0)
    return costs


def read_costs(paths: list[Path]) -> dict[str, float]:
    costs: dict[str, float] = {}
    for p in paths:
        for line in p.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            seconds, name = line.split(maxsplit=1)
            costs[name.strip()] = max(costs.get(name.strip(), 0.0), float(seconds))
    return costs


def split(names: list[str], costs: dict[str, float], shards: int) -> list[list[str]]:
    """Longest first, each to the shard with the least seconds so far; no empty shard."""
    shards = max(1, min(shards, len(names)))
    known = [costs[n] for n in names if n in costs]
    default = statistics.median(known) if known else 1.0
    load = [0.0] * shards
    out: list[list[str]] = [[] for _ in range(shards)]
    for n in sorted(names, key=lambda n: (-costs.get(n, default), n)):
        k = min(range(shards), key=lambda i: (load[i], i))
        out[k].append(n)
        load[k] += costs.get(n, default)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("split")
    s.add_argument("--list", type=Path, required=True)
    s.add_argument("--shards", type=int, required=True)
    s.add_argument("--costs", type=Path, action="append", default=[])
    c = sub.add_parser("costs")
    c.add_argument("--limit", type=float)
    c.add_argument("logs", type=Path, nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "split":
        names = parse_list(a.list.read_text())
        if not names:
            print("shard_tests: no tests in the list", file=sys.stderr)
            return 2
        for shard in split(names, read_costs(a.costs), a.shards):
            print(":".join(shard))
        return 0
    merged: dict[str, float] = {}
    for log in a.logs:
        for name, sec in costs_from_log(log.read_text(errors="replace"), a.limit).items():
            merged[name] = max(merged.get(name, 0.0), sec)
    for name, sec in sorted(merged.items(), key=lambda kv: -kv[1]):
        print(f"{sec:.3f} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
