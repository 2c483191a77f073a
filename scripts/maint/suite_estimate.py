#!/usr/bin/env python3
"""The estimate a whole-suite job (scripts/maint/suite-call.sh) gives its runner: how long each
part still to do will take, so that no part starts that would run past the call's deadline.

    scripts/maint/suite_estimate.py ROOT SHA PARTS SLUG BUNDLE BENCH FILTER SPLIT > estimate.json

ROOT is the checkout (results/<gpu>/suite-SHA/parts.tar.xz: every GPU's committed parts), PARTS
the machine's parts folder (this GPU's, SLUG, newer than its committed ones), BUNDLE the pinned
bundle (its run_experiments.py plans the units and says which rows of each are still to run, after
--hold), BENCH its parcomp-bench. The output is run_experiments.py's --estimate format.

For each unit with rows to run:
- its seconds: this GPU's own where the part is done here; else another GPU's, times the 90th
  percentile of this GPU's seconds over that GPU's on the parts both have done (at least 1: the
  H100 took 0.77-1.19 times the H200's seconds, and a part estimated at the H200's 48 s was
  stopped at 54 s on the H100); else results/suite-SHA.estimate.json's rough seconds;
- the share of its rows still to run: by the rows' own timed seconds in a done part's JSON (each
  row's iterations times its time, plus an even share of the part's untimed rest), where one
  exists; else by their times in another run's parts of the same unit with the same rows (an
  earlier pinned commit's, results/<gpu>/suite-*/); else by the number of rows. The rows of one part differ by far (codecs.landscape on the
  tarball: zstd -19 143 s, nvCOMP's LZ4 8.5 s on the H200), and by count the 12 slowest of 68 rows
  were estimated at 108 s and stopped at the deadline after 173 s on the H100;
- a part stopped at a deadline (KEY.stopped): at least 1.5 times that, less the timed seconds of
  its rows done in later calls (the part's JSON files newer than KEY.stopped), plus 30 s, for the
  rows it had then and has still to do; where this call holds some of them back (suite-call.sh --hold, PARTS/.held.json), that
  floor times the share of those rows it runs (by their times as above, else their count): a part
  stopped at 375 s by its two slowest rows was otherwise never started again without them. Where
  the stop names the rows it was running (KEY.stopped-rows: the call that stopped held others
  back), the floor is theirs: times the share of them this call runs, nothing for the others
  (tool.load's four parcomp.fast rows, stopped at 259 s while its lbzip2 rows were held, were
  estimated at their share of all eight and stopped again at 370 s).
The bundle's runner (575289d's too) scales a unit's estimate by the share of its rows to run, so
the unit's seconds written are the rows' estimate divided by that share.
"""
from __future__ import annotations

import glob
import json
import math
import os
import sys
import tarfile
from pathlib import Path

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


class Parts:
    """One GPU's parts: done units' seconds, stopped units' seconds, and done units' row seconds."""

    def __init__(self):
        self.seconds: dict[str, float] = {}   # units done (no KEY.todo)
        self.stopped: dict[str, float] = {}
        self.stopped_rows: dict[str, list[str]] = {}  # the rows a stopped unit was running (KEY.stopped-rows)
        self.rows: dict[str, dict[str, float]] = {}  # done units: timed seconds per row
        self.done_since: dict[str, float] = {}  # stopped units: timed seconds of rows done after the stop

    @classmethod
    def read(cls, names: set[str], read, mtime=None) -> "Parts":
        p = cls()
        base = {os.path.basename(n): n for n in names}
        for b, n in base.items():
            if b.endswith(".seconds") and b[: -len(".seconds")] + ".todo" not in base:
                p.seconds[b[: -len(".seconds")]] = float(read(n))
            if b.endswith(".stopped"):
                p.stopped[b[: -len(".stopped")]] = float(read(n))
            if b.endswith(".stopped-rows"):
                p.stopped_rows[b[: -len(".stopped-rows")]] = read(n).decode().split()

        def part_rows(key: str, after: float | None = None) -> dict[str, float]:
            """Timed seconds per row in the unit's JSON files (only those newer than `after`)."""
            rows: dict[str, float] = {}
            for b, n in base.items():
                if b == f"{key}.json" or (b.startswith(f"{key}.") and b.endswith(".json")
                                          and b[len(key) + 1: -len(".json")].isdigit()):
                    if after is not None and not mtime(n) > after:
                        continue
                    try:
                        doc = json.loads(read(n))
                    except (ValueError, TypeError):
                        continue  # a file cut short: no row times from it
                    for r in doc.get("benchmarks", []):
                        if r.get("run_type", "iteration") != "iteration" or "real_time" not in r:
                            continue
                        name = r.get("run_name", r["name"])
                        rows[name] = rows.get(name, 0.0) + (r["real_time"] * UNITS.get(r.get("time_unit", "ns"), 1e-9)
                                                            * r.get("iterations", 1))
            return rows

        for key in p.seconds:
            if rows := part_rows(key):
                p.rows[key] = rows
        if mtime is not None:
            for key in p.stopped:
                if key not in p.seconds and (since := part_rows(key, mtime(base[f"{key}.stopped"]))):
                    p.done_since[key] = sum(since.values())
        return p

    @classmethod
    def from_archive(cls, path: Path) -> "Parts":
        with tarfile.open(path) as t:
            return cls.read({n for n in t.getnames() if t.getmember(n).isfile()}, lambda n: t.extractfile(n).read(),
                            lambda n: t.getmember(n).mtime)

    @classmethod
    def from_folder(cls, folder: Path) -> "Parts":
        return cls.read({str(p) for p in folder.iterdir() if p.is_file()}, lambda n: Path(n).read_bytes(),
                        lambda n: Path(n).stat().st_mtime)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def slowdown(mine: Parts, other: Parts, least_seconds: float = 5.0, least_parts: int = 3) -> float:
    """How much longer than `other` this GPU takes: the 90th percentile of the ratios of the parts
    both have done (those of at least `least_seconds` there), at least 1; 1 with fewer than
    `least_parts` such parts."""
    ratios = [mine.seconds[k] / s for k, s in other.seconds.items() if k in mine.seconds and s >= least_seconds]
    return max(1.0, percentile(ratios, 0.9)) if len(ratios) >= least_parts else 1.0


def rows_share(rows: dict[str, float], total: float, names: list[str], todo: list[str]) -> float | None:
    """The share of a unit's seconds that its rows `todo` take, by the rows' timed seconds in a done
    part plus an even share of the untimed rest; None where the part's rows are not all timed."""
    if not names or any(n not in rows for n in names):
        return None
    timed = sum(rows[n] for n in names)
    if timed <= 0:
        return None
    rest = max(0.0, total - timed) / len(names)
    return sum(rows[n] + rest for n in todo) / max(total, timed)


def estimate(units: list[tuple[str, list[str], list[str]]], slug: str, gpus: dict[str, Parts],
             rough: dict, held: dict[str, list[str]] | None = None,
             earlier: dict[str, dict[str, float]] | None = None) -> dict[str, float]:
    """Seconds for each unit (key, all its rows, its rows to run) that has rows to run, in the
    runner's terms (scaled up by the share of its rows it will run); `held`: each unit's rows this
    call holds back; `earlier`: row times per unit from other runs, for the shares only."""
    mine = gpus.get(slug, Parts())
    others = sorted((g for g in gpus if g != slug),
                    key=lambda g: -len(set(gpus[g].seconds) & set(mine.seconds)))
    slower = {g: slowdown(mine, gpus[g]) for g in others}
    out: dict[str, float] = {}
    for key, names, todo in units:
        if not todo or not names:
            continue
        base, rows = None, None
        if key in mine.seconds:
            base, rows = mine.seconds[key], mine.rows.get(key)
        else:
            for g in others:
                if key in gpus[g].seconds:
                    base = gpus[g].seconds[key] * slower[g]
                    rows = gpus[g].rows.get(key)
                    break
        if base is None:
            experiment = key.split("@")[0]
            if key in rough.get("unit_seconds", {}):
                base = float(rough["unit_seconds"][key])
            elif experiment in rough.get("experiment_seconds", {}) and key == experiment:
                base = float(rough["experiment_seconds"][experiment])

        if not rows or any(n not in rows for n in names):
            rows = (earlier or {}).get(key) or rows

        def part_of(these: list[str]) -> float:
            got = rows_share(rows, base, names, these) if base is not None and rows else None
            return got if got is not None else len(these) / len(names)

        need = None if base is None else base * part_of(todo)
        if key in mine.stopped:
            kept = [n for n in (held or {}).get(key, []) if n not in todo]
            floor = 1.5 * max(0.0, mine.stopped[key] - mine.done_since.get(key, 0.0)) + 30
            if key in mine.stopped_rows:  # the rows it was running then: the floor is theirs
                then = [n for n in mine.stopped_rows[key] if n in todo or n in kept]
                now = [n for n in then if n in todo]
                floor = floor * part_of(now) / part_of(then) if now else 0.0
            elif kept:
                floor *= part_of(todo) / part_of(todo + kept)
            need = max(need or 0.0, floor)
        if need is not None:
            out[key] = round(need * len(names) / len(todo), 3)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 8:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    root, sha, parts, slug, bundle, bench, regex, split = argv
    gpus: dict[str, Parts] = {}
    for archive in sorted(glob.glob(os.path.join(root, "results", "*", f"suite-{sha}", "parts.tar.xz"))):
        gpus[Path(archive).parent.parent.name] = Parts.from_archive(Path(archive))
    if Path(parts).is_dir() and any(Path(parts).iterdir()):
        gpus[slug] = Parts.from_folder(Path(parts))  # the machine's: at least as new as the committed ones
    earlier: dict[str, dict[str, float]] = {}  # row times from other runs' parts (this GPU's first)
    for archive in sorted(glob.glob(os.path.join(root, "results", "*", "suite-*", "parts.tar.xz")),
                          key=lambda a: Path(a).parent.parent.name != slug):
        if Path(archive).parent.name != f"suite-{sha}":
            for key, rows in Parts.from_archive(Path(archive)).rows.items():
                earlier.setdefault(key, rows)
    rough_file = Path(root) / "results" / f"suite-{sha}.estimate.json"
    rough = json.loads(rough_file.read_text())["context"] if rough_file.exists() else {}
    sys.path.insert(0, bundle)
    import run_experiments as rx  # the bundle's own runner: its units, its part files
    units = [(u.key, list(u.names), rx.PartState(Path(parts), u.key).todo(u)) for u in rx.plan(bench, regex, [], split)]
    held_file = Path(parts) / ".held.json"
    held = json.loads(held_file.read_text()) if held_file.is_file() and held_file.stat().st_size else {}
    seconds = estimate(units, slug, gpus, rough, held, earlier)
    # Units with no estimate here fall back on the runner's own: their share of the experiment's.
    ctx = {"unit_seconds": seconds, "experiment_seconds": rough.get("experiment_seconds", {})}
    print(json.dumps({"context": ctx, "benchmarks": []}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
