#!/usr/bin/env bash
# Branch gpu-periodic-host (bundle .data/bundle-core.tar.xz) against main's parcomp (4c92a9e)
# (.data/parcomp-main.xz) on one H200: the branch's GPU tests and memcheck of the encoder tests;
# 4 GB of zeros -9 (default and --cpu) both builds beside lbzip2, with -v and --trace of each; the
# Silesia mix -9 both builds; then the first mirror's datasets for the suite.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-450} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
xz -dc .data/parcomp-main.xz > $B/parcomp-main && chmod +x $B/parcomp-main
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-main --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | tail -12
PARCOMP_TEST_SMALL=1 timeout 90 compute-sanitizer --tool memcheck parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2WithGpuSortingWritesTheCpuBytes:Bz2Gpu.TheEncoderWritesTheCpuWritersBlocks' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W
head -c 1000000000 /dev/zero > $W/z1; head -c 4000000000 /dev/zero > $W/z4
bzip2 -9 -c $W/z1 > $W/z1.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; done | tee -a $O/env.txt
for p in parcomp parcomp-main; do $p -v -9 --trace $O/z4-trace-$p.json -c $W/z4 2> $O/z4-v-$p.txt > /dev/null; tail -1 $O/z4-v-$p.txt; $p -v -9 --cpu --trace $O/z4cpu-trace-$p.json -c $W/z4 2> $O/z4cpu-v-$p.txt > /dev/null; tail -1 $O/z4cpu-v-$p.txt; done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/z4.jsonl -- new "parcomp -q -f -9 -c $W/z4 > /dev/null" main "parcomp-main -q -f -9 -c $W/z4 > /dev/null" new.cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" main.cpu "parcomp-main -q -f -9 --cpu -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -5; echo "($(left) s left)"
parcomp -q -9 -c $W/z4 > $W/z4.bz2
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/z4d.jsonl -- d "parcomp -q -f -d -c $W/z4.bz2 > /dev/null" d.gpu "parcomp -q -f -d --gpu -c $W/z4.bz2 > /dev/null" lbzip2 "lbzip2 -d -c $W/z4.bz2 > /dev/null" 2>&1 | tail -3
echo "z4 -d --gpu: $(parcomp -q -d --gpu -c $W/z4.bz2 | cmp - $W/z4 && echo same)" | tee -a $O/env.txt
rm -f $W/z4 $W/z4.bz2 $W/z1 $W/z1.ref
for f in .data/m1/silesia/*.bz2; do bzip2 -dc "$f"; done > $W/mix 2>/dev/null; sha256sum $W/mix >> $O/env.txt
head -c 5000000 $W/mix > $W/s5
bash scripts/maint/wall-ab.sh --runs 11 --jsonl $O/s5.jsonl -- new "parcomp -q -f -9 -c $W/s5 > /dev/null" main "parcomp-main -q -f -9 -c $W/s5 > /dev/null" lbzip2 "lbzip2 -9 -c $W/s5 > /dev/null" 2>&1 | tail -3
for k in 1 2 3; do parcomp -q -f -9 --trace $O/s5-trace-new-$k.json -c $W/s5 > /dev/null; parcomp-main -q -f -9 --trace $O/s5-trace-main-$k.json -c $W/s5 > /dev/null; done
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/mix.jsonl -- new "parcomp -q -f -9 -c $W/mix > /dev/null" main "parcomp-main -q -f -9 -c $W/mix > /dev/null" lbzip2 "lbzip2 -9 -c $W/mix > /dev/null" 2>&1 | tail -3; echo "($(left) s left)"
ids=$(python3 - datasets/manifest.json .data/m1 <<'PY'
import json, sys
from pathlib import Path
doc, mirror = json.load(open(sys.argv[1])), Path(sys.argv[2])
print(" ".join(s["id"] for s in doc["sources"] if any((mirror / f["file"]).is_file() for f in s.get("mirror", []))))
PY
)
python3 datasets/fetch.py $ids --mirror .data/m1 --cache /tmp/parcomp-data > $O/fetch.log 2>&1; echo "fetched m1: $? $ids"
rm -rf $W; gzip -f $O/*.log $O/*.json; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
