#!/usr/bin/env bash
# Two H200s (or one): every GPU test of 21ab923 (the bundle: "parcomp" 21ab923, "parcomp-main" 4960714), memcheck of the engine's
# pipe and large-input tests, the exit's cost (parcomp-exit-cost: one context and two, with pinned and device memory,
# released before the exit one device after another or all at once), CUDA's start (two contexts), then pipes: the GPUs join
# a pipe once the CPU workers fall behind (21ab923) against after 4 MiB / at once (4960714): Silesia xml through a pipe at -9
# in both formats beside lbzip2 and by name (10 runs each in turns); 360 MB of base64 text and zeros through a pipe at -9
# and back, both formats (6 runs each), every output compared. Leaves the bundle in /tmp/n. Writes $OUT/p.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
O=$OUT/p; W=/dev/shm/p; mkdir -p $O /tmp/n $W; chmod 755 $W; tar xJf .data/mini19.tar.xz -C /tmp/n || exit 2
B=/tmp/n/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; uname -r; git log -1 --format=%H; git status --porcelain | head -3; parcomp --version | tail -1; parcomp-main --version | tail -1; lbzip2 --version 2>&1 | head -1; } > $O/env.txt 2>&1; cat $O/env.txt; nvidia-smi topo -m > $O/topo.txt 2>&1
timeout 300 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(el) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $O/tests.log | tail -6
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 parcomp-tests-gpu --gtest_filter='EngineGpu.CpuWorkersStepAside*:EngineGpu.Bz2LargeInputs*:EngineGpu.AnyMix*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(el) s)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
timeout 200 bash scripts/maint/exit-cost.sh --bin $B --runs 3 > $O/exit-cost.jsonl 2>$O/exit-cost.err; echo "exit-cost rc $? ($(el) s)"; python3 - $O/exit-cost.jsonl <<'PY'
import json,sys,collections
g=collections.defaultdict(list)
for l in open(sys.argv[1]):
    r=json.loads(l); k=(r['devices'],r['pinned_bytes']>>20,r['device_bytes']>>20,r['register'],r['release'])
    g[k].append((r['exit_s'],r.get('release_parallel_s',sum(v for kk,v in r.items() if kk.startswith(('free_','reset_'))))))
for k,v in g.items(): print(k, ' '.join('%.3f+%.3f'%x for x in v))
PY
timeout 90 bash scripts/maint/start-cost.sh --bin $B --runs 4 > $O/start-cost.jsonl 2>&1; echo "start-cost ($(el) s)"; cut -c1-260 $O/start-cost.jsonl | tail -6
bzip2 -dc .data/m4/silesia/xml.bz2 > $W/xml; X=$W/xml; sha256sum $X >> $O/env.txt
bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/xml-pipe.jsonl -- new "cat $X | parcomp -q -9 > /dev/null" main "cat $X | parcomp-main -q -9 > /dev/null" lbzip2 "cat $X | lbzip2 -9 > /dev/null" new.name "parcomp -q -9 -c $X > /dev/null" pcmp.new "cat $X | parcomp -q --format parcomp > /dev/null" pcmp.main "cat $X | parcomp-main -q --format parcomp > /dev/null" 2>&1 | tail -6
for f in bz2 parcomp; do cat $X | parcomp -v --format $f 2>&1 > $W/xml.$f | tail -2; parcomp -d -c $W/xml.$f | cmp - $X && echo "xml pipe $f: the input"; done 2>&1 | tee -a $O/env.txt
{ head -c 200000000 /dev/urandom | base64; head -c 90000000 /dev/zero; } > $W/big; ls -l $W/big | tee -a $O/env.txt; echo "($(el) s)"
for f in bz2 parcomp; do parcomp-main -q --format $f -c $W/big > $W/big.ref.$f; cat $W/big | parcomp --format $f -v 2>&1 > $W/big.$f | tail -3; cmp $W/big.$f $W/big.ref.$f && echo "big pipe $f: the bytes by name"; cat $W/big.$f | parcomp -d -v 2>&1 > $W/out | tail -2; cmp $W/out $W/big && echo "big pipe -d $f: the input"; done 2>&1 | tee -a $O/env.txt; rm -f $W/out $W/big.ref.*
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/big-pipe.jsonl -- new "cat $W/big | parcomp -q -9 > /dev/null" main "cat $W/big | parcomp-main -q -9 > /dev/null" new.d "cat $W/big.bz2 | parcomp -q -d > /dev/null" main.d "cat $W/big.bz2 | parcomp-main -q -d > /dev/null" pcmp.new "cat $W/big | parcomp -q --format parcomp > /dev/null" pcmp.main "cat $W/big | parcomp-main -q --format parcomp > /dev/null" 2>&1 | tail -6
rm -rf $W; gzip -f $O/*.log; tar cf $OUT/p.tar -C $OUT p; echo "took $(el) s"
