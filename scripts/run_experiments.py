#!/usr/bin/env python3
"""Run parcomp-bench one experiment at a time, with a progress line per experiment, and merge the
calls into one result file (what scripts/reproduce.sh runs).

    scripts/run_experiments.py BENCH --out RUN.json [--filter REGEX] [--estimate EARLIER.json]
                               [--parts DIR [--deadline SECONDS]] [--split REGEX]
                               [--accept-missing DATASET ...] [--merge-only] [-- ARGS]

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

Without --parts a run is one sitting: rows that parcomp-bench skipped for what this machine lacks (a
dataset, a program, nvCOMP) stay in the merged file as skipped rows with their reason, the summary
lines count them by what they lacked with the command that brings it (also in
context.parcomp_skipped), and the exit status is 0.

A run longer than one job may last (a batch system's time limit per job) goes in parts: with --parts
DIR each experiment's file is kept as DIR/<experiment>.json (its seconds beside it), and an
experiment whose file is there from an earlier call is not run again; with --deadline SECONDS no
experiment starts once that many seconds have passed, nor one that the estimate says would not end
in time, and one running at the deadline is stopped and its file removed (it runs again next
time). RUN.json is written once every experiment has its part; until then the exit status is 3
and the standard error says how many are left.

--split REGEX runs the experiments it matches one dataset (the names' third part) per call, each
its own part (DIR/<experiment>@<dataset>.json): an experiment longer than one job's time limit (such as
codecs.landscape) goes over several calls, and a call that carries some datasets runs what they
allow. Rows that parcomp-bench skipped for something a later call can bring (a dataset not there, a
program or nvCOMP not found) are not results: they are taken out of the part and listed in
DIR/<unit>.todo, and a later call runs those names alone (into DIR/<unit>.2.json, ...), so the
merged file has them measured. --accept-missing DATASET (repeatable) lets that dataset's rows stay
skipped (enwik8, which only its canonical URL serves); the merged file records them as skipped.
A part is done when every row this bench lists for it is in its files, or dropped for good
(KEY.dropped): a row listed now that no file holds runs, and a row that KEY.todo names but this
bench does not list (one that lacks a program the earlier call's had) keeps the part open, said
so, until a bench that lists it runs it.
--merge-only runs nothing: it merges the parts once every one is there, else lists what is left
(for parts that came back from GPU machines, merged on a machine without one).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
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


# Whole programs (ours): parcomp and its peers take turns, repetition by repetition, so that a host's
# drift spreads over all of them (Google Benchmark's random interleaving), unless the caller says.
INTERLEAVED = ("tool.e2e", "tool.load", "bz2.compress", "bz2.decompress")
INTERLEAVE_FLAG = "--benchmark_enable_random_interleaving"


def interleaving(experiment: str, args: list[str]) -> list[str]:
    if experiment not in INTERLEAVED or any(x.startswith(INTERLEAVE_FLAG) for x in args):
        return []
    return [f"{INTERLEAVE_FLAG}=true"]


class Unit:
    """What one parcomp-bench call runs: an experiment, or with --split one dataset of it."""

    def __init__(self, key: str, experiment: str, names: list[str], whole: str | None):
        self.key, self.experiment, self.names = key, experiment, names
        self.whole = whole  # the filter for all of `names`, when a prefix selects exactly them

    def filter_for(self, names: list[str]) -> str:
        if self.whole is not None and len(names) == len(self.names):
            return self.whole
        return "^(" + "|".join(ere_escape(n) for n in names) + ")$"


def dataset_of(name: str) -> str:
    parts = name.split("/")
    return parts[2] if len(parts) > 3 else ""


def plan(bench: str, regex: str, args: list[str], split: str | None = None) -> list[Unit]:
    """The units to run, in the order parcomp-bench registers the experiments: one per experiment,
    or one per dataset (the names' third part) for the experiments that `split` matches."""
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
        if split is None or not re.search(split, e):
            out.append(Unit(e, e, mine, f"^{ere_escape(e)}/" if len(mine) == len(all_of[e]) else None))
            continue
        datasets: list[str] = []
        for n in mine:
            if dataset_of(n) not in datasets:
                datasets.append(dataset_of(n))
        for d in datasets:
            names = [n for n in mine if dataset_of(n) == d]
            every_of_d = [n for n in all_of[e] if dataset_of(n) == d]
            whole = f"^{ere_escape(e)}/[^/]+/{ere_escape(d)}/" if d and names == every_of_d else None
            out.append(Unit(f"{e}@{d}", e, names, whole))
    return out


def wait_unreaped(proc: subprocess.Popen, timeout: float | None) -> bool:
    """Waits up to `timeout` seconds for the bench to exit, without reaping it: while it is not
    reaped, its process group's id cannot be given to another group. True if it exited."""
    end = None if timeout is None else time.monotonic() + timeout
    while os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is None:
        if end is not None and time.monotonic() >= end:
            return False
        time.sleep(0.05)
    return True


def kill_group(proc: subprocess.Popen) -> int:
    """Kills a part's process group (the bench and every program it started, such as tool.load's
    jobs and the process holding the GPU's memory), then reaps the bench: its exit status."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return proc.wait()


def duration(s: float) -> str:
    s = max(0, round(s))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


def unit_estimate(u: Unit, earlier: dict[str, float], totals: dict[str, int]) -> float | None:
    """Seconds the unit took in the earlier run: its own, or its share of its experiment's."""
    if u.key in earlier:
        return earlier[u.key]
    if u.experiment in earlier and totals.get(u.experiment):
        return earlier[u.experiment] * len(u.names) / totals[u.experiment]
    return None


def estimate_left(rest: list[Unit], earlier: dict[str, float], totals: dict[str, int], seconds: float, benchmarks: int) -> float:
    per = seconds / benchmarks if benchmarks else 0.0
    total = 0.0
    for u in rest:
        est = unit_estimate(u, earlier, totals)
        total += est if est is not None else per * len(u.names)
    return total


def earlier_seconds(path: Path | None) -> dict[str, float]:
    """An earlier run's seconds by experiment, and by unit (experiment@dataset) where it ran split."""
    if path is None or not path.exists():
        return {}
    try:
        doc, _ = merge_results.load_repaired(path)
    except (OSError, json.JSONDecodeError, merge_results.MergeError):
        return {}
    ctx = doc.get("context", {})
    out = {k: float(v) for k, v in ctx.get("experiment_seconds", {}).items()}
    out.update({k: float(v) for k, v in ctx.get("unit_seconds", {}).items()})
    return out


# Rows skipped for something a later call can bring (a dataset, a program, nvCOMP): not results.
# They are taken out of the part and run again in a later call (the unit's .todo file).
MISSING_DATASET = re.compile(r"dataset '([^']+)' is not at")
RETRY = re.compile(r"not found|built without nvCOMP")


def retry_reason(entry: dict, accepted: set[str]) -> str | None:
    if not entry.get("error_occurred"):
        return None
    msg = entry.get("error_message", "")
    if not msg.startswith("skipped:"):
        return None
    m = MISSING_DATASET.search(msg)
    if m:
        return None if m.group(1) in accepted else f"dataset {m.group(1)}"
    m = RETRY.search(msg)
    return msg.split(":", 1)[1].strip().split(" (")[0][:60] if m else None


def skipped_rows(doc: dict, accepted: set[str]) -> dict[str, str]:
    """The rows of a call's file skipped for something a later call can bring: name -> what."""
    out: dict[str, str] = {}
    for b in doc.get("benchmarks", []):
        why = retry_reason(b, accepted)
        if why:
            out[b.get("run_name", b["name"])] = why
    return out


def how_to_bring(what: str) -> str:
    """The command that brings what a skipped row lacked."""
    if what.startswith("dataset "):
        return "scripts/reproduce.sh --fetch (or: python3 datasets/fetch.py all)"
    if "nvCOMP" in what:
        return "scripts/reproduce.sh --with-nvcomp"
    m = re.match(r"(\S+) not found", what)
    return f"apt-get install {m.group(1)}" if m else "see the rows' error_message"


def skip_summary(skipped: dict[str, str]) -> dict[str, dict]:
    """Skipped rows grouped by what they lacked: {what: {"rows": n, "how": command}}."""
    out: dict[str, dict] = {}
    for what in skipped.values():
        entry = out.setdefault(what, {"rows": 0, "how": how_to_bring(what)})
        entry["rows"] += 1
    return dict(sorted(out.items()))


def settle_part(part: Path, ran: list[str], accepted: set[str], keep: bool = False) -> tuple[list[str], list[str], dict[str, str]]:
    """Takes the rows that a later call must run again out of the part file (rewritten, or removed
    when nothing is left); with keep (one sitting) they stay in it as skipped rows. Returns (names
    still to run, why, the skipped rows: name -> what they lacked)."""
    doc, _ = merge_results.load_repaired(part)
    redo = skipped_rows(doc, accepted)
    kept = [b for b in doc.get("benchmarks", []) if keep or (b.get("run_name", b["name"]) not in redo and b["name"] not in redo)]
    present = {b.get("run_name", b["name"]) for b in kept} | {b["name"] for b in kept}
    todo = [n for n in ran if n not in present]
    if redo and not keep:
        if kept:
            doc["benchmarks"] = kept
            part.write_text(json.dumps(doc, indent=1) + "\n")
        else:
            part.unlink()
    reasons = [] if keep else sorted(set(redo.values()))
    taken_out = 0 if keep else len(redo)
    if len(todo) > taken_out:
        reasons.append(f"{len(todo) - taken_out} not in the file")
    return todo, reasons, redo


class PartState:
    """A unit's files in the --parts folder: KEY.json and KEY.<k>.json (its calls' files), KEY.seconds
    (their summed seconds), KEY.todo (names a later call still has to run), KEY.failed."""

    def __init__(self, folder: Path, key: str):
        self.folder, self.key = folder, key
        self.seconds_file = folder / f"{key}.seconds"
        self.todo_file = folder / f"{key}.todo"
        self.failed_file = folder / f"{key}.failed"

    def files(self) -> list[Path]:
        first = self.folder / f"{self.key}.json"
        more = sorted(self.folder.glob(f"{glob.escape(self.key)}.[0-9]*.json"), key=lambda p: int(p.suffixes[-2][1:]))
        return ([first] if first.exists() else []) + more

    def next_file(self) -> Path:
        k = len(self.files())
        return self.folder / (f"{self.key}.json" if k == 0 else f"{self.key}.{k + 1}.json")

    def started(self) -> bool:
        return self.seconds_file.exists()

    def stored_todo(self) -> set[str]:
        return set(self.todo_file.read_text().split()) if self.todo_file.exists() else set()

    def present(self) -> set[str]:
        """The rows the part's files hold (measured, or skipped for an accepted reason) and those
        dropped from it for good (KEY.dropped)."""
        names: set[str] = set()
        for f in self.files():
            doc, _ = merge_results.load_repaired(f)
            for b in doc.get("benchmarks", []):
                names.update((b["name"], b.get("run_name", b["name"])))
        dropped = self.folder / f"{self.key}.dropped"
        if dropped.exists():
            names.update(json.loads(dropped.read_text()))
        return names

    def todo(self, unit: Unit) -> list[str]:
        """The unit's rows still to run: all of them before its first call; after it, those its
        KEY.todo names and any row this bench lists that no file of the part holds (a bench that
        lists other rows than the one of the earlier calls: tool.e2e lists gzip where pigz is
        missing; such rows are run, never taken as done)."""
        if not self.started():
            return list(unit.names)
        left, present, held = self.stored_todo(), self.present(), self.held()
        return [n for n in unit.names if n not in held and (n in left or n not in present)]

    def held(self) -> set[str]:
        """Rows that scripts/maint/suite-call.sh --hold leaves for a later call (DIR/.held.json, which it
        writes for the call and folds back into KEY.todo after it)."""
        f = self.folder / ".held.json"
        return set(json.loads(f.read_text()).get(self.key, [])) if f.exists() else set()

    def unlisted(self, unit: Unit) -> list[str]:
        """Rows an earlier call left to do that this bench does not list (it lacks a program that
        the earlier one had, say): the part stays open until a bench that lists them runs them."""
        return sorted(self.stored_todo() - set(unit.names))

    def seconds(self) -> float:
        return float(self.seconds_file.read_text()) if self.seconds_file.exists() else 0.0

    def record(self, seconds: float, todo: list[str]) -> None:
        self.seconds_file.write_text(f"{self.seconds() + seconds:.3f}\n")
        if todo:
            self.todo_file.write_text("\n".join(todo) + "\n")
        else:
            self.todo_file.unlink(missing_ok=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--filter", default=".")
    ap.add_argument("--estimate", type=Path, help="an earlier run's file: its experiment_seconds")
    ap.add_argument("--parts", type=Path, help="keep each experiment's file here; skip those already here")
    ap.add_argument("--deadline", type=float, help="seconds: start no experiment that would end later (with --parts)")
    ap.add_argument("--split", help="regex: these experiments run one dataset per call (each its own part)")
    ap.add_argument("--merge-only", action="store_true",
                    help="with --parts: run nothing; merge the parts into --out when every one is there, "
                         "else list what is left (exit 3). For a run whose parts came from GPU machines, "
                         "merged where there is no GPU (BENCH then only lists the benchmarks)")
    ap.add_argument("--accept-missing", action="append", default=[], metavar="DATASET",
                    help="a dataset (as parcomp-bench names it, e.g. enwik8) whose rows may stay skipped "
                         "for lack of it; rows skipped for any other missing dataset run again in a later call")
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    a = ap.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    a.args = extra  # for parcomp-bench
    if a.deadline is not None and a.parts is None:
        ap.error("--deadline needs --parts (the experiments left run in a later call)")
    if a.merge_only and a.parts is None:
        ap.error("--merge-only needs --parts")
    accepted = set(a.accept_missing)
    steps = plan(a.bench, a.filter, a.args, a.split)
    if not steps:
        print(f"run_experiments: no benchmark matches {a.filter!r}", file=sys.stderr)
        return 1
    earlier = earlier_seconds(a.estimate)
    totals: dict[str, int] = {}
    for u in steps:
        totals[u.experiment] = totals.get(u.experiment, 0) + len(u.names)
    total_benchmarks = sum(len(u.names) for u in steps)
    n_experiments = len(totals)
    print(f"run_experiments: {n_experiments} experiments"
          + (f" in {len(steps)} calls" if len(steps) != n_experiments else "") + f", {total_benchmarks} benchmarks"
          + (f"; about {duration(estimate_left(steps, earlier, totals, 0, 0))} by {a.estimate.name}"
             if earlier and all(unit_estimate(u, earlier, totals) is not None for u in steps) else ""),
          file=sys.stderr, flush=True)
    t0 = time.monotonic()
    seconds: dict[str, float] = {}
    failed: list[str] = []
    skipped: dict[str, str] = {}  # one sitting: rows skipped for what this machine lacks -> what
    done_benchmarks = 0
    with tempfile.TemporaryDirectory(prefix="parcomp-run-") as tmp:
        parts_dir = a.parts if a.parts is not None else Path(tmp)
        parts_dir.mkdir(parents=True, exist_ok=True)
        left_over: list[str] = []
        for k, u in enumerate(steps, 1):
            state = PartState(parts_dir, u.key)
            if a.parts is None:  # a run in one sitting: nothing kept from before
                for f in state.files() + [state.seconds_file, state.todo_file, state.failed_file]:
                    f.unlink(missing_ok=True)
            names = state.todo(u)
            if state.failed_file.exists() and state.started():
                failed.append(f"{u.key} ({state.failed_file.read_text().strip()}, in an earlier call)")
            lost = state.unlisted(u)
            if lost:
                print(f"[{k}/{len(steps)}] {u.key}: {len(lost)} row{'s' if len(lost) != 1 else ''} that an earlier call left to do "
                      f"{'are' if len(lost) != 1 else 'is'} not listed by this parcomp-bench (a program missing here that the "
                      f"earlier one had?); the part stays open: {', '.join(lost[:3])}{' ...' if len(lost) > 3 else ''}",
                      file=sys.stderr, flush=True)
            if not names and lost:
                left_over.append(u.key)
                continue
            if not names:
                seconds[u.key] = state.seconds()
                done_benchmarks += len(u.names)
                print(f"[{k}/{len(steps)}] {u.key}: done in an earlier call ({duration(seconds[u.key])})", file=sys.stderr, flush=True)
                continue
            if a.merge_only:
                left_over.append(u.key)
                print(f"[{k}/{len(steps)}] {u.key}: {len(names)} of {len(u.names)} benchmarks left", file=sys.stderr, flush=True)
                continue
            timeout = None
            if a.deadline is not None:
                timeout = a.deadline - (time.monotonic() - t0)
                need = unit_estimate(u, earlier, totals) or 0.0
                need *= len(names) / len(u.names)
                if timeout <= 0 or need > timeout:
                    left_over.append(u.key)
                    print(f"[{k}/{len(steps)}] {u.key}: left for a later call ({duration(max(timeout, 0))} left, "
                          f"{'about ' + duration(need) if need else 'no estimate'})", file=sys.stderr, flush=True)
                    continue
            part = state.next_file()
            t = time.monotonic()
            # Its own process group, which goes when the part ends, is stopped or is interrupted
            # (Ctrl-C does not reach a group of its own): nothing the part started outlives it.
            proc = subprocess.Popen([a.bench, f"--benchmark_filter={u.filter_for(names)}", f"--benchmark_out={part}",
                                     "--benchmark_out_format=json", *interleaving(u.experiment, a.args), *a.args],
                                    start_new_session=True)
            try:
                ended = wait_unreaped(proc, timeout)
            finally:
                returncode = kill_group(proc)
            if not ended:
                part.unlink(missing_ok=True)
                left_over.append(u.key)
                print(f"[{k}/{len(steps)}] {u.key}: stopped at the deadline after {duration(time.monotonic() - t)}; "
                      "it runs again in a later call", file=sys.stderr, flush=True)
                continue
            took = time.monotonic() - t
            if returncode != 0:
                failed.append(f"{u.key} (exit {returncode})")
                if a.parts is not None:
                    state.failed_file.write_text(f"exit {returncode}\n")
            if not (part.exists() and part.stat().st_size > 0):
                todo, reasons = names, ["no file written"]
            else:
                # One sitting: rows skipped for what this machine lacks stay, as results that say so.
                todo, reasons, lacked = settle_part(part, names, accepted, keep=a.parts is None)
                if a.parts is None:
                    skipped.update(lacked)
            state.record(took, todo + lost)  # rows this bench does not list stay to do
            seconds[u.key] = state.seconds()
            done_benchmarks += len(u.names) - len(todo)
            if todo or lost:
                left_over.append(u.key)
            elapsed = time.monotonic() - t0
            left = estimate_left(steps[k:], earlier, totals, elapsed, done_benchmarks)
            n_skipped = sum(1 for n in names if n in skipped)
            print(f"[{k}/{len(steps)}] {u.key}: {len(names)} benchmark{'s' if len(names) != 1 else ''} in {duration(took)}; "
                  f"{duration(elapsed)} so far" + (f", about {duration(left)} left" if k < len(steps) else ", done")
                  + (f"; {n_skipped} skipped ({', '.join(sorted({skipped[n] for n in names if n in skipped}))})"
                     if n_skipped else "")
                  + ((f"; {len(todo)} to run again in a later call ({', '.join(reasons)})" if a.parts is not None
                      else f"; {len(todo)} missing from its file") if todo else ""),
                  file=sys.stderr, flush=True)
        if left_over and a.parts is None:
            print(f"run_experiments: {', '.join(left_over)}: rows missing from parcomp-bench's files", file=sys.stderr)
            failed.extend(k for k in left_over if not any(k in f for f in failed))
        elif left_over:
            print(f"run_experiments: {len(left_over)} of {len(steps)} {'calls' if len(steps) != n_experiments else 'experiments'} "
                  f"left for a later call with the same --parts {a.parts}: {', '.join(left_over)}", file=sys.stderr)
            if failed:
                print("run_experiments: failed: " + ", ".join(failed), file=sys.stderr)
            return 3
        files = [f for u in steps for f in PartState(parts_dir, u.key).files()]
        if not files:
            print("run_experiments: no call wrote results", file=sys.stderr)
            return 1
        # The first file must carry the full context: a call cut off early may not.
        files.sort(key=lambda p: 0 if "parcomp" in merge_results.load_repaired(p)[0].get("context", {}) else 1)
        try:
            # Parts may come from several hosts: other cards of the same model (recorded).
            doc = merge_results.merge(files, any_card=a.parts is not None)
        except merge_results.MergeError as err:
            print(f"run_experiments: {err}", file=sys.stderr)
            return 1
    by_experiment: dict[str, float] = {}
    for u in steps:
        by_experiment[u.experiment] = by_experiment.get(u.experiment, 0.0) + seconds.get(u.key, 0.0)
    doc["context"]["experiment_seconds"] = {e: round(s, 3) for e, s in by_experiment.items()}
    # Rows taken out of their parts for good (scripts/maint/suite-call.sh --drop), with the reason.
    dropped = {}
    if a.parts is not None:
        for u in steps:
            f = a.parts / f"{u.key}.dropped"
            if f.exists():
                dropped.update(json.loads(f.read_text()))
    if dropped:
        doc["context"]["parcomp_dropped"] = dropped
        print(f"run_experiments: {len(dropped)} rows dropped from the run (context.parcomp_dropped): "
              + "; ".join(f"{n} ({w})" for n, w in dropped.items()), file=sys.stderr)
    if skipped:
        summary = skip_summary(skipped)
        doc["context"]["parcomp_skipped"] = summary
        print(f"run_experiments: {len(skipped)} of {total_benchmarks} rows skipped for what this machine lacks "
              "(context.parcomp_skipped; each row's error_message says why):", file=sys.stderr)
        for what, e in summary.items():
            print(f"  {e['rows']:4d} for {what}: {e['how']}", file=sys.stderr)
    if any(u.key != u.experiment for u in steps):
        doc["context"]["unit_seconds"] = {u.key: round(seconds.get(u.key, 0.0), 3) for u in steps}
    # In parts, the run's seconds are its experiments' (the calls' gaps and set-up not counted).
    doc["context"]["run_seconds"] = round(sum(seconds.values()) if a.parts is not None else time.monotonic() - t0, 3)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=2) + "\n")
    print(f"run_experiments: {a.out}: {len(doc['benchmarks'])} entries from {n_experiments} experiments in {duration(time.monotonic() - t0)}",
          file=sys.stderr)
    if failed:
        print("run_experiments: failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
