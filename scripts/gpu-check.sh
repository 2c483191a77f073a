#!/usr/bin/env bash
# The GPU routine: on a machine with a CUDA GPU, run every GPU test, the GPU tests again under the
# four compute-sanitizer tools (memcheck, racecheck, synccheck, initcheck), and the benchmarks for
# a filter; JSON and logs go to one folder.
# Runs from a source checkout (binaries in build/) or from a bundle folder (binaries beside it:
# `cmake --build build --target bundle`), which needs only the NVIDIA driver on the host.
#
#   gpu-check.sh [--out DIR] [--filter REGEX] [--bin DIR] [--no-bench] [--no-tests]
#                [--sanitizers "memcheck racecheck synccheck initcheck" | --no-sanitizer]
#                [--sanitizer-filter GTEST_FILTER] [--shards N] [--racecheck-shards M] [--shard-costs FILE ...]
#                [--sanitizer-timeout SECONDS] [--no-cpu-tests] [--bz2-fuzz-files N] [--unpack TAR ...]
#                [--bz2-times FILE [--ncu-source]] [--by-dataset]
#                [--parts DIR [--deadline SECONDS] [--split REGEX] [--accept-missing DATASET]]
#                [--mirror DIR --fetch "linux silesia/xml ..."] [-- extra bench args]
#
# --fetch (with --mirror for a local mirror) first fetches those datasets (datasets/fetch.py of the
# checkout, verified by sha256) into $PARCOMP_DATA (default: DIR/../parcomp-data), so that the
# real-data benchmarks run. --sanitizer-timeout stops a shard that runs longer (then a failure).
# --no-cpu-tests leaves out the CPU tests (CI runs them; on a GPU host they take device time).
# --unpack TAR (repeatable) unpacks bundle archives (scripts/maint/device-pack.sh makes them: the bundle
# without nvCOMP, and nvCOMP's library apart, to fit a copy's size limit) into one folder, and
# uses its binaries.
# With the sanitizers, the GPU .bz2 decoder is also fuzzed under memcheck: N mutated files
# (--bz2-fuzz-files, default 10000; 0 leaves it out), Bz2Gpu.MutatedFilesGiveTheCpuReadersVerdicts.
#
# --by-dataset runs the benchmarks as one process per dataset (bench-<dataset>.json, each complete
# with its metadata) and merges them into bench.json: a time limit then loses only the dataset it
# struck (a long run, such as codecs.landscape, over several jobs).
# --parts DIR runs the benchmarks through run_experiments.py (beside this script in a bundle): one
# process per experiment (per dataset for the experiments --split matches), each one's file kept in
# DIR, those done in an earlier call skipped, none started past --deadline SECONDS (counted from
# the benchmarks' start); rows skipped for a dataset or program not there run again in a later
# call (--accept-missing DATASET: rows that may stay skipped). Once every part is there they are
# merged into DIR/../bench.json; until then the step reports exit 3 (parts left).
# --bz2-times FILE runs bz2-times.sh on FILE after the benchmarks (wall times of parcomp -9/-d with
# --gpu and --cpu beside lbzip2, pbzip2 and cat, FILE and 5 copies of it, and the kernels' times
# by ncu) into DIR/bz2-times; scripts/maint/collect_bz2_times.py makes it a result file. --ncu-source
# adds bz2-times.sh's source-line profiles of the decoder's walk, its inverse MTF and the encoder.
#
# --shard-costs FILE (repeatable; "seconds name" lines, as shard_tests.py costs writes them from an
# earlier run's sanitizer logs) deals the tests out to the shards longest first instead of Google
# Test's turn by turn (shard_tests.py split), so that shards of about equal length end together:
# under racecheck a few engine and .bz2 tests take minutes each. Every run writes
# DIR/sanitizer-<tool>-seconds.txt for the next.
# The sanitizer runs use the tests' small-size mode (PARCOMP_TEST_SMALL=1: the same tests on
# smaller inputs) and split the tests into N shards per tool (default 3; racecheck M, default 8),
# all tools and shards running at once on the one GPU; each tool's logs are
# DIR/sanitizer-<tool>-<shard>.log and DIR/sanitizers.txt sums them up. Any error or hazard that
# a tool reports fails the check. racecheck leaves out CUB's kernels (--kernel-name-exclude
# kns=cub::): it checks the shared-memory accesses of parcomp's own kernels, and CUB's sorts and
# scans, NVIDIA's tested library, are most of its time otherwise (an H200 run of every test did not
# finish in 4 minutes with them); memcheck, synccheck and initcheck check every kernel, CUB's too.
# Exit status is non-zero if any step failed; a GPU test that skips on a GPU machine is a failure
# (except those skipped for lack of device memory, which are listed).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/gpu-check-out}
filter="."
bin=""
bench=1
sanitizers="memcheck racecheck synccheck initcheck"
# Left out under the sanitizers: the >2 GiB tests (tens of GB under instrumentation; the same
# kernels run in the smaller tests).
sanitizer_filter='-*Large*'
shards=3
racecheck_shards=8
sanitizer_timeout=0
shard_costs=()
tests=1
cpu_tests=1
bz2_fuzz_files=10000
mirror=""
fetch_names=""
bz2_times=""
ncu_source=()
by_dataset=0
parts=""
deadline=""
split=""
accept_missing=()
unpack=()
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --filter) filter="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --no-bench) bench=0; shift ;;
    --no-sanitizer) sanitizers=""; shift ;;
    --sanitizers) sanitizers="$2"; shift 2 ;;
    --sanitizer-filter) sanitizer_filter="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --racecheck-shards) racecheck_shards="$2"; shift 2 ;;
    --sanitizer-timeout) sanitizer_timeout="$2"; shift 2 ;;
    --shard-costs) shard_costs+=(--costs "$2"); shift 2 ;;
    --no-tests) tests=0; shift ;;
    --no-cpu-tests) cpu_tests=0; shift ;;
    --bz2-fuzz-files) bz2_fuzz_files="$2"; shift 2 ;;
    --unpack) unpack+=("$2"); shift 2 ;;
    --bz2-times) bz2_times="$2"; shift 2 ;;
    --ncu-source) ncu_source=(--ncu-source); shift ;;
    --by-dataset) by_dataset=1; shift ;;
    --parts) parts="$2"; shift 2 ;;
    --deadline) deadline="$2"; shift 2 ;;
    --split) split="$2"; shift 2 ;;
    --accept-missing) accept_missing+=(--accept-missing "$2"); shift 2 ;;
    --mirror) mirror="$2"; shift 2 ;;
    --fetch) fetch_names="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) awk 'NR > 1 && /^set -uo/ {exit} NR > 1' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ ${#unpack[@]} -gt 0 ]; then
  dest=${TMPDIR:-/tmp}/parcomp-bundle
  mkdir -p "$dest"
  for t in "${unpack[@]}"; do
    tar xf "$t" -C "$dest" || { echo "gpu-check: could not unpack $t" >&2; exit 2; }
  done
  [ -d "$dest/bundle" ] && dest="$dest/bundle"
  # nvCOMP's archive holds the library alone: it goes beside the binaries.
  for f in "${dest%/bundle}"/libnvcomp.so*; do [ -e "$f" ] && [ "$dest" != "${dest%/bundle}" ] && mv -f "$f" "$dest/"; done
  bin="$dest"
fi
if [ -z "$bin" ]; then
  if [ -x "$here/parcomp-bench" ]; then bin="$here"; else bin="$here/../build"; fi
fi
find_bin() {  # bundle layout (flat) or build layout (bench/, tests/)
  for p in "$bin/$1" "$bin/bench/$1" "$bin/tests/$1"; do [ -x "$p" ] && { echo "$p"; return; }; done
  echo "gpu-check: $1 not found under $bin (build it, or pass --bin)" >&2; exit 2
}
bench_bin=$(find_bin parcomp-bench)
tests_gpu=""  # needed by the tests and the sanitizers only (a benchmark-only bundle may leave it out)
{ [ $tests -eq 1 ] || [ -n "$sanitizers" ]; } && tests_gpu=$(find_bin parcomp-tests-gpu)
tests_cpu=""
[ $tests -eq 1 ] && [ $cpu_tests -eq 1 ] && tests_cpu=$(find_bin parcomp-tests-cpu)  # the device bundle leaves it out
mkdir -p "$out"
declare -a summary
failed=0
step() {  # step NAME LOG COMMAND...
  local name=$1 log=$2; shift 2
  echo "==> $name" >&2
  local t0=$SECONDS
  "$@" >"$log" 2>&1
  local rc=$?
  local secs=$((SECONDS - t0))
  if [ $rc -eq 0 ]; then summary+=("ok      $name (${secs}s)"); else summary+=("FAILED  $name (exit $rc, ${secs}s): see $(basename "$log")"); failed=1; fi
  tail -n 3 "$log" >&2
  return $rc
}

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "gpu-check: nvidia-smi failed (see nvidia-smi.txt)" >&2
"$bench_bin" --parcomp_device_info > "$out/device.json" 2>"$out/device.err"
# Without nvCOMP beside it (a call that carries a large dataset instead) the bench does not load:
# with --no-bench the GPU is then named by nvidia-smi, so that the tests and sanitizers still run.
if [ $bench -eq 0 ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/device.json" 2>/dev/null; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
  if [ -n "$gpu_name" ]; then
    python3 -c 'import json,sys; json.dump({"device": {"name": sys.argv[1]}, "note": "from nvidia-smi: parcomp-bench did not run: " + sys.argv[2]}, open(sys.argv[3], "w"))' \
      "$gpu_name" "$(head -c 300 "$out/device.err")" "$out/device.json"
    echo "gpu-check: parcomp-bench did not run ($(head -n 1 "$out/device.err")); the GPU named by nvidia-smi: $gpu_name" >&2
  fi
fi
if ! python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["device"] else 1)' "$out/device.json"; then
  echo "gpu-check: no usable CUDA device: $(cat "$out/device.json" "$out/device.err" | grep -i -m1 'note\|error')" >&2
  exit 1
fi

# The golden files (tests/golden) for a bundle run from a checkout.
if [ -z "${PARCOMP_GOLDEN_DIR:-}" ] && [ -d "$here/../tests/golden" ]; then export PARCOMP_GOLDEN_DIR="$here/../tests/golden"; fi
if [ -n "$fetch_names" ]; then
  export PARCOMP_DATA=${PARCOMP_DATA:-$out/../parcomp-data}
  # shellcheck disable=SC2086
  step "datasets ($fetch_names)" "$out/fetch.log" python3 "$here/../datasets/fetch.py" $fetch_names \
    ${mirror:+--mirror "$mirror"} --cache "$PARCOMP_DATA"
fi
if [ $tests -eq 1 ]; then
[ $cpu_tests -eq 1 ] && step "CPU tests" "$out/cpu-tests.log" "$tests_cpu" --gtest_output="json:$out/cpu-tests.json"
step "GPU tests" "$out/gpu-tests.log" "$tests_gpu" --gtest_output="json:$out/gpu-tests.json"
# On a GPU, a skipped GPU test means it did not run: only the memory-bound Large tests may skip.
# A multi-GPU test on a one-GPU machine says so ("this test needs two or more"): that skip is the
# machine's, not the test's.
python3 - "$out/gpu-tests.json" "$out/gpu-tests.log" <<'PY' || { summary+=("FAILED  GPU tests skipped on a GPU machine"); failed=1; }
import json, re, sys
doc = json.load(open(sys.argv[1]))
log = open(sys.argv[2], errors="replace").read()
skipped = [f"{s['name']}.{t['name']}" for s in doc["testsuites"] for t in s["testsuite"]
           if t.get("result") == "SKIPPED"]
def needs_more_gpus(name):
    m = re.search(r"\[ RUN      \] " + re.escape(name) + r"\n(.*?)\[  SKIPPED \] " + re.escape(name), log, re.S)
    return m is not None and "this test needs two or more" in m.group(1)
bad = [n for n in skipped if "Large" not in n and not needs_more_gpus(n)]
print(f"GPU tests: {doc['tests']} run, {doc['failures']} failed, {len(skipped)} skipped {skipped}")
sys.exit(1 if bad else 0)
PY
fi
# One sanitizer run: tool, shard; prints "<tool> <shard> <exit> <seconds> <errors> <tests>".
sanitize() {
  local tool=$1 shard=$2 total=$3 log="$out/sanitizer-$1-$2.log" t0=$SECONDS extra_flags=()
  case "$tool" in
    racecheck) extra_flags=(--racecheck-report all --kernel-name-exclude kns=cub::) ;;
  esac
  local limit=()
  [ "$sanitizer_timeout" -gt 0 ] && limit=(timeout "$sanitizer_timeout")
  # With --shard-costs, the shard's own list of tests (line shard + 1 of the split); else Google
  # Test's sharding.
  local filter="$sanitizer_filter" shard_env=(GTEST_TOTAL_SHARDS="$total" GTEST_SHARD_INDEX="$shard")
  if [ -s "$out/sanitizer-shards-$total.txt" ]; then
    filter=$(sed -n "$((shard + 1))p" "$out/sanitizer-shards-$total.txt")
    shard_env=()
    [ -n "$filter" ] || { echo "$tool $shard 0 0 0 0"; return; }  # no test left for this shard
  fi
  env PARCOMP_TEST_SMALL=1 "${shard_env[@]}" \
    "${limit[@]}" compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 50 "${extra_flags[@]}" \
    "$tests_gpu" --gtest_filter="$filter" >"$log" 2>&1
  local rc=$?
  # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors"; racecheck: "RACECHECK SUMMARY: N hazards displayed".
  local errors
  errors=$(grep -Eo '(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard)' "$log" | grep -Eo '[0-9]+' | tail -1)
  local tests
  tests=$(grep -Eo '\[==========\] [0-9]+ tests? from' "$log" | grep -Eo '[0-9]+' | head -1)
  echo "$tool $shard $rc $((SECONDS - t0)) ${errors:-?} ${tests:-?}"
}
if [ -n "$sanitizers" ]; then
  if command -v compute-sanitizer >/dev/null 2>&1; then
    echo "==> GPU tests under compute-sanitizer: $sanitizers ($shards shards each, small sizes, filter '$sanitizer_filter')" >&2
    t0=$SECONDS
    rm -f "$out"/sanitizer-*.result
    # No more shards than tests: an empty shard ends before CUDA starts, which compute-sanitizer
    # reports as an error.
    "$tests_gpu" --gtest_list_tests --gtest_filter="$sanitizer_filter" >"$out/sanitizer-tests.txt" 2>/dev/null
    n_tests=$(grep -c '^  ' "$out/sanitizer-tests.txt")
    rm -f "$out"/sanitizer-shards-*.txt
    for tool in $sanitizers; do
      n=$shards
      [ "$tool" = racecheck ] && n=$racecheck_shards
      [ "$n_tests" -gt 0 ] && [ "$n" -gt "$n_tests" ] && n=$n_tests
      if [ ${#shard_costs[@]} -gt 0 ] && [ ! -s "$out/sanitizer-shards-$n.txt" ]; then
        python3 "$here/shard_tests.py" split --list "$out/sanitizer-tests.txt" --shards "$n" "${shard_costs[@]}" \
          >"$out/sanitizer-shards-$n.txt" || { echo "gpu-check: shard_tests.py failed: Google Test's shards instead" >&2; rm -f "$out/sanitizer-shards-$n.txt"; }
      fi
      for ((k = 0; k < n; k++)); do
        sanitize "$tool" "$k" "$n" >"$out/sanitizer-$tool-$k.result" &
      done
    done
    wait
    {
      echo "# compute-sanitizer over the GPU tests ($(basename "$tests_gpu"), PARCOMP_TEST_SMALL=1, --gtest_filter='$sanitizer_filter')"
      echo "# all tools and shards ran at once: ${shards} shards per tool (racecheck ${racecheck_shards}, CUB's kernels left out), $((SECONDS - t0)) s wall in all"
      if [ ${#shard_costs[@]} -gt 0 ]; then echo "# tests dealt to the shards longest first by earlier seconds (--shard-costs:${shard_costs[*]//--costs/})"; else echo "# tests dealt to the shards by Google Test (GTEST_TOTAL_SHARDS)"; fi
      echo "# tool  shard  exit  seconds  errors_or_hazards  tests"
      cat "$out"/sanitizer-*.result
    } >"$out/sanitizers.txt"
    rm -f "$out"/sanitizer-*.result
    cat "$out/sanitizers.txt" >&2
    limit_arg=()
    [ "$sanitizer_timeout" -gt 0 ] && limit_arg=(--limit "$sanitizer_timeout")
    for tool in $sanitizers; do  # each test's seconds, for the next run's --shard-costs
      python3 "$here/shard_tests.py" costs "${limit_arg[@]}" "$out"/sanitizer-"$tool"-*.log \
        >"$out/sanitizer-$tool-seconds.txt" 2>/dev/null || rm -f "$out/sanitizer-$tool-seconds.txt"
    done
    for tool in $sanitizers; do
      bad=$(awk -v t="$tool" '$1 == t && ($3 != 0 || $5 != "0") {n++} END {print n + 0}' "$out/sanitizers.txt")
      secs=$(awk -v t="$tool" '$1 == t && $4 > m {m = $4} END {print m + 0}' "$out/sanitizers.txt")
      found=$(awk -v t="$tool" '$1 == t && $5 ~ /^[0-9]+$/ {n += $5} END {print n + 0}' "$out/sanitizers.txt")
      if [ "$bad" -eq 0 ]; then
        summary+=("ok      compute-sanitizer $tool: 0 reports (${secs}s, slowest shard)")
      else
        summary+=("FAILED  compute-sanitizer $tool: $found reports, or a shard failed: see sanitizer-$tool-*.log"); failed=1
      fi
    done
    if [ "$bz2_fuzz_files" -gt 0 ]; then
      step "GPU .bz2 decoder fuzzed under memcheck ($bz2_fuzz_files mutated files)" "$out/bz2-fuzz-memcheck.log" \
        env PARCOMP_BZ2_FUZZ_FILES="$bz2_fuzz_files" compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 50 \
        "$tests_gpu" --gtest_filter='Bz2Gpu.MutatedFilesGiveTheCpuReadersVerdicts'
    fi
  else
    summary+=("FAILED  compute-sanitizer not found"); failed=1
  fi
fi
if [ $bench -eq 1 ] && [ -n "$parts" ]; then
  runner=$here/run_experiments.py
  [ -f "$runner" ] || runner=$here/../scripts/run_experiments.py
  step "benchmarks in parts (filter '$filter', parts in $parts)" "$out/bench.log" \
    python3 "$runner" "$bench_bin" --out "$out/bench.json" --filter "$filter" --parts "$parts" \
      ${deadline:+--deadline "$deadline"} ${split:+--split "$split"} "${accept_missing[@]}" -- "${extra[@]}"
elif [ $bench -eq 1 ] && [ $by_dataset -eq 0 ]; then
  step "benchmarks (filter '$filter')" "$out/bench.log" \
    "$bench_bin" --benchmark_filter="$filter" --benchmark_out="$out/bench.json" --benchmark_out_format=json "${extra[@]}"
elif [ $bench -eq 1 ]; then
  # One bench process per dataset (the names' third part), each file complete with its metadata,
  # so that a time limit loses at most the dataset it struck; merged into bench.json at the end.
  mapfile -t datasets < <("$bench_bin" --benchmark_list_tests --benchmark_filter="$filter" | cut -d/ -f3 | awk '!seen[$0]++')
  merge=$here/merge_results.py
  [ -f "$merge" ] || merge=$here/../scripts/merge_results.py
  parts=()
  for d in "${datasets[@]}"; do
    [ -n "$d" ] || continue
    esc=$(printf '%s' "$d" | sed 's/[][\\.^$*+?(){}|]/\\&/g')
    step "benchmarks on $d (filter '$filter')" "$out/bench-$d.log" \
      "$bench_bin" --benchmark_filter="(${filter})(.*/)?${esc}/n=" --benchmark_out="$out/bench-$d.json" --benchmark_out_format=json "${extra[@]}"
    [ -s "$out/bench-$d.json" ] && parts+=("$out/bench-$d.json")
  done
  [ ${#parts[@]} -gt 0 ] && step "merging ${#parts[@]} dataset files" "$out/merge.log" python3 "$merge" "${parts[@]}" -o "$out/bench.json" --context "$out/device.json"
fi
if [ -n "$bz2_times" ]; then
  times_script="$here/bz2-times.sh"
  [ -x "$times_script" ] || times_script="$here/../scripts/bz2-times.sh"
  step "bz2 wall times on $(basename "$bz2_times")" "$out/bz2-times.log" \
    bash "$times_script" "$bz2_times" --out "$out/bz2-times" --ncu "${ncu_source[@]}" --bin "$(dirname "$bench_bin")"
fi

echo
echo "gpu-check summary ($(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device"]["name"])' "$out/device.json")):"
printf '  %s\n' "${summary[@]}"
exit $failed
