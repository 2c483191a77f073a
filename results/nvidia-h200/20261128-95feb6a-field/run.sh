#!/usr/bin/env bash
# HEAD on one H200: every GPU test, memcheck of the GPU batch tests, zero-filled files (bytes against
# bzip2, 4 GB -9 and -d beside lbzip2 with peak RSS), the field checks (16 jobs, a held GPU, pipes,
# a reader that stops early, private files, no process left), the Silesia mix beside lbzip2, then
# the first mirror's datasets into /tmp/parcomp-data for the suite's next calls.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-450} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests ran" $O/tests.log | tail -12
PARCOMP_TEST_SMALL=1 timeout 90 compute-sanitizer --tool memcheck parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2WithGpuSortingWritesTheCpuBytes:Bz2Gpu.TheEncoderWritesTheCpuWritersBlocks' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W
head -c 1000000000 /dev/zero > $W/z1; head -c 4000000000 /dev/zero > $W/z4
bzip2 -9 -c $W/z1 > $W/z1.ref
for m in "" --gpu --cpu; do echo "zeros 1 GB -9 $m: $(parcomp -q -9 $m -c $W/z1 | cmp - $W/z1.ref && echo bzip2s bytes)"; done | tee -a $O/env.txt
parcomp -v -9 -c $W/z4 2> $O/z4-v.txt > $W/z4.bz2; tail -4 $O/z4-v.txt
parcomp -v -d -c $W/z4.bz2 2> $O/z4d-v.txt | cmp - $W/z4 && echo "z4 round trip same" | tee -a $O/env.txt; tail -3 $O/z4d-v.txt
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/z4.jsonl -- parcomp "parcomp -q -f -9 -c $W/z4 > /dev/null" cpu "parcomp -q -f -9 --cpu -c $W/z4 > /dev/null" lbzip2 "lbzip2 -9 -c $W/z4 > /dev/null" 2>&1 | tail -4; echo "($(left) s left)"
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/z4d.jsonl -- parcomp "parcomp -q -f -d -c $W/z4.bz2 > /dev/null" lbzip2 "lbzip2 -d -c $W/z4.bz2 > /dev/null" 2>&1 | tail -3; echo "($(left) s left)"
rm -f $W/z4 $W/z4.bz2 $W/z1 $W/z1.ref
for f in .data/m1/*/*.bz2; do bzip2 -dc "$f"; done > $W/mix 2>/dev/null
ls -la $W/mix | tee -a $O/env.txt; sha256sum $W/mix >> $O/env.txt
head -c 10000000 $W/mix > $W/in10
for p in parcomp.bz2 lbzip2; do bash scripts/load-test.sh --program $p --jobs 16 --input $W/in10 --tag $p-16; done > $O/load.jsonl 2>&1
bash scripts/load-test.sh --program parcomp.bz2 --jobs 16 --input $W/in10 --gpu-busy 1G --tag busy-1G >> $O/load.jsonl 2>&1
cat $O/load.jsonl | cut -c1-300; echo "($(left) s left)"
{ echo "pipe -9|-d: $(cat $W/mix | parcomp -9 | parcomp -d | cmp - $W/mix && echo same)"
  parcomp -q -9 -c $W/mix > $W/mix.bz2
  for k in 1 2 3 4 5 6 7 8; do cat $W/mix.bz2; done > $W/mix8.bz2
  parcomp -dc $W/mix8.bz2 | head -c 1000 > /dev/null; echo "reader stops early: pipestatus ${PIPESTATUS[*]}"
  sleep 1; echo "parcomp processes left: $(pgrep -c -x parcomp)"
  umask 077; cp $W/in10 $W/priv; touch -d '2020-01-02 03:04:05' $W/priv; chmod 600 $W/priv
  parcomp -9 $W/priv && stat -c '%n %a %y' $W/priv.bz2 && parcomp -d $W/priv.bz2 && stat -c '%n %a %y' $W/priv && cmp $W/priv $W/in10 && echo "private round trip same"
  umask 022
  head -c 300000 $W/mix.bz2 | parcomp -d > /dev/null; echo "truncated exit ${PIPESTATUS[1]}"
} 2>&1 | tee $O/field.txt
bash scripts/maint/wall-ab.sh --runs 5 --jsonl $O/mix.jsonl -- parcomp9 "parcomp -q -f -9 -c $W/mix > /dev/null" lbzip2_9 "lbzip2 -9 -c $W/mix > /dev/null" parcompd "parcomp -q -f -d -c $W/mix.bz2 > /dev/null" lbzip2d "lbzip2 -d -c $W/mix.bz2 > /dev/null" 2>&1 | tail -5; echo "($(left) s left)"
ids=$(python3 - datasets/manifest.json .data/m1 <<'PY'
import json, sys
from pathlib import Path
doc, mirror = json.load(open(sys.argv[1])), Path(sys.argv[2])
print(" ".join(s["id"] for s in doc["sources"] if any((mirror / f["file"]).is_file() for f in s.get("mirror", []))))
PY
)
python3 datasets/fetch.py $ids --mirror .data/m1 --cache /tmp/parcomp-data > $O/fetch.log 2>&1; echo "fetched m1: $? $ids"
rm -rf $W
gzip -f $O/*.log; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
