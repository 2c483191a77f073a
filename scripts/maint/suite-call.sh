#!/usr/bin/env bash
# One job of a whole-suite run from a pinned commit (every experiment of
# results/experiments.json on one GPU, over as many 10-minute calls as it takes): the benchmarks
# go through the bundle's run_experiments.py --parts (as gpu-check.sh --parts), each experiment (each dataset of the long ones) its own part.
#
#   scripts/maint/suite-call.sh --sha SHA [--bundle DIR] [--mirror DIR ...] [--deadline SECONDS]
#                         [--filter REGEX] [--split REGEX] [--hold REGEX] [--only REGEX] [--drop REGEX --why TEXT]
#
# --sha     the pinned commit (10+ hex digits); the bundle must have been built from it, clean.
# --bundle  a folder with bench.tar.xz (the bundle without its test binaries) and, optionally,
#           nvcomp.tar.xz (nvCOMP's library), as packed from that commit's build; unpacked into
#           /tmp/parcomp-suite-SHA. Without it, an earlier call's unpacked bundle on the same (still
#           borrowed) machine is used, else the job stops: bring the bundle.
# --mirror  a folder laid out as the dataset mirror (repeatable): every dataset whose mirror file
#           is there is fetched into $PARCOMP_DATA (default /tmp/parcomp-data), which an earlier
#           call on the same machine may have filled already.
# The parts so far come from results/<gpu>/suite-SHA/parts.tar.xz of the checkout (committed after
# each call) or from /tmp/parcomp-suite-SHA-parts of the same machine; all of them come back in
# $OUT/parts.tar: commit it xz-compressed as that parts.tar.xz. Rows skipped for a dataset that is not there run again in a later call; enwik8 (served
# only by its canonical URL, not by the mirror) may stay skipped. Once every part is there,
# $OUT/bench.json is the merged run. --deadline (default 500) counts from the benchmarks'
# start: no part starts that its estimate says would end later (scripts/maint/suite_estimate.py: the
# parts' seconds measured so far on this GPU or another, a part's rows left by their own times,
# else results/suite-SHA.estimate.json; $SUITE_ESTIMATE names another file), and
# one running at the deadline is stopped and runs again; its seconds so far are kept in the parts
# as KEY.stopped, and a later call's estimate for it is at least 1.5 times that plus 30 s.
# --hold    rows (benchmark names) that this call leaves for a later one, though their part runs: for
#           a part longer than one call (tool.e2e@linux-2.6.11.1.tar.x25), run in pieces. The part is
#           marked as started with the held rows still to do, through the runner's own KEY.todo.
# --only    rows this run does, every other row left as --hold leaves it (for a part split over
#           several runs by kind of row: --only 'tool\.e2e/[^/]*\.stdin/' runs the rows that read pipes)
# --drop    rows no call can run (one longer than a call: pbzip2 -d of the 5.2 GB file, one thread):
#           taken out of their parts for good, with --why's reason in the parts as KEY.dropped; the
#           merge (run_experiments.py --merge-only) lists them in context.parcomp_dropped.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/scripts/lib.sh"  # missing_peers (its die is replaced below)
out=${OUT:?suite-call: OUT must name the folder whose files come back}
sha=""
bundle=""
mirrors=()
deadline=500
filter="."
split=$PARCOMP_SUITE_SPLIT
hold=""
only=""
drop=""
why=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sha) sha="$2"; shift 2 ;;
    --bundle) bundle="$2"; shift 2 ;;
    --mirror) mirrors+=("$2"); shift 2 ;;
    --deadline) deadline="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --split) split="$2"; shift 2 ;;
    --hold) hold="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --drop) drop="$2"; shift 2 ;;
    --why) why="$2"; shift 2 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "suite-call: unknown argument $1" >&2; exit 2 ;;
  esac
done
die() { echo "suite-call: $*" >&2; exit 2; }
[[ "$sha" =~ ^[0-9a-f]{7,40}$ ]] || die "--sha must be the pinned commit's hex id"
[ -z "$drop" ] || [ -n "$why" ] || die "--drop needs --why: the reason the merged run records"
t0=$SECONDS
tmp=${SUITE_TMP:-/tmp}  # where the machine keeps the bundle and the parts between calls
dest=$tmp/parcomp-suite-$sha
if [ -n "$bundle" ] && [ -f "$bundle/bench.tar.xz" ]; then
  rm -rf "$dest" && mkdir -p "$dest" && tar xf "$bundle/bench.tar.xz" -C "$dest" || die "could not unpack $bundle/bench.tar.xz"
  if [ -f "$bundle/nvcomp.tar.xz" ]; then tar xf "$bundle/nvcomp.tar.xz" -C "$dest/bundle" || die "could not unpack nvCOMP"; fi
  echo "[$((SECONDS - t0))s] unpacked the bundle into $dest" >&2
fi
bench="$dest/bundle/parcomp-bench"
[ -x "$bench" ] || die "no bundle at $dest (a machine that did not run the previous call): carry --bundle"
# Every program the benchmarks measure beside parcomp must be in the bundle (lib.sh's
# PARCOMP_PEER_PROGRAMS): a part run without one lacks its rows (H200, 26 Nov: pigz).
missing=$(missing_peers "$dest/bundle")
[ -z "$missing" ] || die "the bundle lacks $missing: pack it again (scripts/maint/suite-pack.sh) where they are installed (apt-get install $missing)"
# A bench process keeps its inputs and the programs' outputs in $TMPDIR/parcomp-tool-PID (the
# 25-fold tarball alone is 5.2 GB) and, up to 575289d, leaves the folder behind; one stopped at the
# deadline always does. Five were left on one H200 machine in one day (16 GB after two x25
# parts); a few more fill its 64 GB disk. Those of processes no longer running go, before the
# benchmarks and after them.
sweep() {
  local w pid
  for w in "${TMPDIR:-/tmp}"/parcomp-tool-*; do
    [ -d "$w" ] || continue
    pid=${w##*-}
    [[ "$pid" =~ ^[0-9]+$ ]] && ! kill -0 "$pid" 2>/dev/null && rm -rf "$w"
  done
  return 0
}
sweep
info=$("$bench" --parcomp_device_info) || die "parcomp-bench does not start (nvCOMP's library missing?): carry nvcomp.tar.xz"
read -r slug built dirty < <(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["device"]["slug"], d["build"]["git_sha"], d["build"]["git_dirty"])' <<<"$info")
[ -n "${slug:-}" ] && [ "$slug" != None ] || die "no usable CUDA device: $(head -c 300 <<<"$info")"
[[ "$built" == "$sha"* ]] || die "the bundle was built from $built, not $sha"
[ "$dirty" = False ] || die "the bundle was built from a dirty tree"
# The parts live on the machine (a later call on the same machine finds them there too) and come
# back as one archive, $OUT/parts.tar: a call returns few files, and none with '@' in its name.
parts=$tmp/parcomp-suite-$sha-parts
mkdir -p "$parts"
src="$root/results/$slug/suite-$sha/parts.tar.xz"
# A machine that ran an earlier call of this run has parts at least as new as the committed ones.
if [ -f "$src" ] && [ -z "$(ls -A "$parts")" ]; then tar xJf "$src" -C "$parts" || die "could not unpack $src"; fi
# Rows held back by --hold go back into their parts' KEY.todo before the parts are packed, however
# the call ends.
held=$parts/.held.json
restore() {
  [ -f "$held" ] || return 0
  python3 - "$parts" "$held" <<'PY'
import json, sys
from pathlib import Path
parts, held = Path(sys.argv[1]), json.load(open(sys.argv[2]))
for key, names in held.items():
    todo = parts / f"{key}.todo"
    now = todo.read_text().split() if todo.exists() else []
    todo.write_text("\n".join(now + [n for n in names if n not in now]) + "\n")
PY
  rm -f "$held"
}
pack() { restore; sweep; tar cf "$out/parts.tar" -C "$parts" . 2>/dev/null; }
trap pack EXIT
restore  # a call that died before it could put its held rows back
echo "[$((SECONDS - t0))s] $slug: $(ls "$parts" | grep -c '\.seconds$') parts done in earlier calls" >&2
export PARCOMP_DATA=${PARCOMP_DATA:-$tmp/parcomp-data}
for m in ${mirrors[@]+"${mirrors[@]}"}; do
  ids=$(python3 - "$root/datasets/manifest.json" "$m" <<'PY'
import json, sys
from pathlib import Path
doc, mirror = json.load(open(sys.argv[1])), Path(sys.argv[2])
print(" ".join(s["id"] for s in doc["sources"] if any((mirror / f["file"]).is_file() for f in s.get("mirror", []))))
PY
)
  [ -n "$ids" ] || continue
  # shellcheck disable=SC2086
  python3 "$root/datasets/fetch.py" $ids --mirror "$m" --cache "$PARCOMP_DATA" >>"$out/fetch.log" 2>&1 \
    || echo "suite-call: some datasets of $m could not be fetched (see fetch.log): their rows run in a later call" >&2
  echo "[$((SECONDS - t0))s] datasets from $m: $ids" >&2
done
if [ -n "$hold$only$drop" ]; then
  python3 - "$dest/bundle" "$bench" "$parts" "$held" "$filter" "$split" "$hold" "$drop" "$why" "$only" <<'PY' || die "--hold/--only/--drop: could not plan the rows"
import json, re, sys
from pathlib import Path
bundle, bench, parts, held_file, regex, split, hold, drop, why, only = sys.argv[1:11]
sys.path.insert(0, bundle)
import run_experiments as rx  # the bundle's own runner: its units, its part files
parts = Path(parts)
held = {}
for u in rx.plan(bench, regex, [], split):
    state = rx.PartState(parts, u.key)
    todo = state.todo(u)
    gone = [n for n in todo if drop and re.search(drop, n)]
    mine = [n for n in todo if ((hold and re.search(hold, n)) or (only and not re.search(only, n))) and n not in gone]
    if not mine and not gone:
        continue
    if not state.started():
        state.seconds_file.write_text("0.000\n")
    state.todo_file.write_text("".join(n + "\n" for n in todo if n not in mine and n not in gone))
    if gone:
        f = parts / f"{u.key}.dropped"
        old = json.loads(f.read_text()) if f.exists() else {}
        f.write_text(json.dumps({**old, **{n: why for n in gone}}, indent=1) + "\n")
        print(f"suite-call: {u.key}: {len(gone)} of {len(u.names)} rows dropped ({why})", file=sys.stderr)
    if mine:
        held[u.key] = mine
        print(f"suite-call: {u.key}: {len(mine)} of {len(u.names)} rows held for a later call", file=sys.stderr)
json.dump(held, open(held_file, "w"))
PY
fi
# Each part's estimate (scripts/maint/suite_estimate.py): its seconds measured in this run on this GPU,
# else on another (times how much slower this one has been), else results/suite-SHA.estimate.json's
# rough ones; for a part with rows left, those rows' share by their own times; at least 1.5 times a
# stop at a deadline plus 30 s. Made after --hold, for the rows this call will run
# ($SUITE_ESTIMATE: a file of run_experiments.py's --estimate format instead).
estimate=(--estimate "${SUITE_ESTIMATE:-$out/estimate.json}")
[ -n "${SUITE_ESTIMATE:-}" ] || python3 "$root/scripts/maint/suite_estimate.py" "$root" "$sha" "$parts" "$slug" "$dest/bundle" "$bench" \
  "$filter" "$split" >"$out/estimate.json" || die "could not make the parts' estimate"
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
printf '%s\n' "$info" >"$out/device.json"
# The pinned bundle's own runner (run_experiments.py beside its parcomp-bench).
python3 "$dest/bundle/run_experiments.py" "$bench" --out "$out/bench.json" --filter "$filter" --parts "$parts" \
  --deadline "$deadline" --split "$split" "${PARCOMP_SUITE_ACCEPT_MISSING[@]}" ${estimate[@]+"${estimate[@]}"} > >(tee "$out/run.log" >&2) 2>&1
rc=$?
# An older pinned runner stops a part at the deadline without the programs it started, which would
# hold the GPU's memory and the log's pipe: whatever the bundle started goes (one job of a run at a
# time on a machine: its jobs share the parts and the bundle).
pkill -KILL -f "^$dest/bundle/" 2>/dev/null
wait $! 2>/dev/null
# A part stopped at the deadline took at least that long: KEY.stopped keeps the longest such time,
# and KEY.stopped-rows the rows it was running then (its KEY.todo during the call, held rows out; no
# file: all of its rows).
python3 - "$out/run.log" "$parts" <<'PY'
import re, sys
from pathlib import Path
parts = Path(sys.argv[2])
unit = {"s": 1, "min": 60, "h": 3600}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^\[\d+/\d+\] (\S+): stopped at the deadline after (.+?); it runs again", line)
    if not m:
        continue
    seconds = sum(int(v) * unit[u] for v, u in re.findall(r"(\d+) (s|min|h)\b", m.group(2)))
    f = parts / f"{m.group(1)}.stopped"
    old = float(f.read_text()) if f.exists() else 0.0
    if seconds >= old:
        f.write_text(f"{seconds:.0f}\n")
        todo, rows = parts / f"{m.group(1)}.todo", parts / f"{m.group(1)}.stopped-rows"
        if todo.exists():
            rows.write_text(todo.read_text())
        else:
            rows.unlink(missing_ok=True)
PY
if [ -s "$held" ] && [ "$(cat "$held")" != "{}" ]; then
  # The runner took the held rows' parts for done and may have merged a run without them.
  rm -f "$out/bench.json"
  [ "$rc" -ne 0 ] || rc=3
  echo "suite-call: rows held by --hold are left for a later call (no merged run yet)" >&2
fi
echo "[$((SECONDS - t0))s] run_experiments exit $rc (3: parts left for a later call)" >&2
exit $rc
