#!/usr/bin/env bash
# One device call of a whole-suite run from a pinned commit (every experiment of
# results/experiments.json on one GPU, over as many 10-minute calls as it takes): the benchmarks
# go through the bundle's run_experiments.py --parts (as gpu-check.sh --parts), each experiment (each dataset of the long ones) its own part.
#
#   scripts/suite-call.sh --sha SHA [--bundle DIR] [--mirror DIR ...] [--deadline SECONDS]
#                         [--filter REGEX] [--split REGEX]
#
# --sha     the pinned commit (10+ hex digits); the bundle must have been built from it, clean.
# --bundle  a folder with bench.tar.xz (the bundle without its test binaries) and, optionally,
#           nvcomp.tar.xz (nvCOMP's library), as packed from that commit's build; unpacked into
#           /tmp/parcomp-suite-SHA. Without it, an earlier call's unpacked bundle on the same (still
#           lent) machine is used, else the call stops: carry the bundle.
# --mirror  a folder laid out as the dataset mirror (repeatable): every dataset whose mirror file
#           is there is fetched into $PARCOMP_DATA (default /tmp/parcomp-data), which an earlier
#           call on the same machine may have filled already.
# The parts so far come from results/<gpu>/suite-SHA/parts.tar.xz of the checkout (committed after
# each call) or from /tmp/parcomp-suite-SHA-parts of the same machine; all of them come back in
# $OUT/parts.tar: commit it xz-compressed as that parts.tar.xz. Rows skipped for a dataset that is not there run again in a later call; enwik8 (served
# only by its canonical URL, not by the mirror) may stay skipped. Once every part is there,
# $OUT/bench.json is the merged run. --deadline (default 500) counts from the benchmarks'
# start: no part starts that its estimate says would end later (the parts' seconds measured so
# far on any GPU, else results/suite-SHA.estimate.json; $SUITE_ESTIMATE names another file), and
# one running at the deadline is stopped and runs again.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:?suite-call: OUT must name the folder whose files come back}
sha=""
bundle=""
mirrors=()
deadline=500
filter="."
split='^(codecs\.landscape|bz2\.|tool\.e2e|thesis\.table4_[12]|parle\.)'
while [ $# -gt 0 ]; do
  case "$1" in
    --sha) sha="$2"; shift 2 ;;
    --bundle) bundle="$2"; shift 2 ;;
    --mirror) mirrors+=("$2"); shift 2 ;;
    --deadline) deadline="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --split) split="$2"; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "suite-call: unknown argument $1" >&2; exit 2 ;;
  esac
done
die() { echo "suite-call: $*" >&2; exit 2; }
[[ "$sha" =~ ^[0-9a-f]{7,40}$ ]] || die "--sha must be the pinned commit's hex id"
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
pack() { tar cf "$out/parts.tar" -C "$parts" . 2>/dev/null; }
trap pack EXIT
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
# Each part's estimate: its measured seconds in this run on any GPU (a part that has rows left
# excepted), else results/suite-SHA.estimate.json (a rough one, from older runs), else none
# ($SUITE_ESTIMATE: a file of run_experiments.py's --estimate format instead).
estimate=(--estimate "${SUITE_ESTIMATE:-$out/estimate.json}")
[ -n "${SUITE_ESTIMATE:-}" ] || python3 - "$root" "$sha" "$parts" >"$out/estimate.json" <<'PY'
import glob, json, os, sys
root, sha, parts = sys.argv[1:4]
ctx = {"unit_seconds": {}, "experiment_seconds": {}}
rough = os.path.join(root, "results", f"suite-{sha}.estimate.json")
if os.path.exists(rough):
    c = json.load(open(rough))["context"]
    ctx["unit_seconds"].update(c.get("unit_seconds", {}))
    ctx["experiment_seconds"].update(c.get("experiment_seconds", {}))
import tarfile
def measured(names, read):
    for n in names:
        if n.endswith(".seconds") and n[: -len(".seconds")] + ".todo" not in names:
            ctx["unit_seconds"][os.path.basename(n)[: -len(".seconds")]] = float(read(n))
for archive in sorted(glob.glob(os.path.join(root, "results", "*", f"suite-{sha}", "parts.tar.xz"))):
    with tarfile.open(archive) as t:
        measured(set(t.getnames()), lambda n: t.extractfile(n).read())
measured({os.path.join(parts, n) for n in os.listdir(parts)}, lambda n: open(n).read())
print(json.dumps({"context": ctx, "benchmarks": []}))
PY
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
printf '%s\n' "$info" >"$out/device.json"
# The pinned bundle's own runner (run_experiments.py beside its parcomp-bench).
python3 "$dest/bundle/run_experiments.py" "$bench" --out "$out/bench.json" --filter "$filter" --parts "$parts" \
  --deadline "$deadline" --split "$split" --accept-missing enwik8 ${estimate[@]+"${estimate[@]}"} 2>&1 | tee "$out/run.log" >&2
rc=${PIPESTATUS[0]}
rc=$?
echo "[$((SECONDS - t0))s] run_experiments exit $rc (3: parts left for a later call)" >&2
exit $rc
