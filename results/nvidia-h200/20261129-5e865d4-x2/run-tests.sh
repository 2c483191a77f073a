#!/usr/bin/env bash
# main (.data/bundle-core.tar.xz) on two H200s of one host: the GPU tests (the two-GPU one included), memcheck of the
# engine's large-input tests, bytes of a .bz2 past 64 MiB on one and two GPUs, with CPU workers kept beside and
# through a pipe, and with whole batches per GPU (--gpu-batch 384). Leaves the bundle in /tmp/u for x2b.sh.
# Writes $OUT/r.tar.
set -u
S=$(date +%s); left() { echo $(( ${BUDGET:-240} - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/bundle-core.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; nvidia-smi topo -m | head -4; echo "cores $(nproc)"; free -g | head -2; uname -r; parcomp --version | tail -1; git log -1 --format=%H; git status --porcelain | head -3; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 200 parcomp-tests-gpu > $O/tests.log 2>&1; echo "tests rc $? ($(left) s left)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $O/tests.log | tail -6
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 parcomp-tests-gpu --gtest_filter='EngineGpu.Bz2LargeInputs*' > $O/memcheck.log 2>&1; echo "memcheck rc $? ($(left) s left)"; grep -E "ERROR SUMMARY|PASSED|FAILED" $O/memcheck.log | tail -3
W=/dev/shm/w; mkdir -p $W; chmod 755 $W
K=${SMALL:+0}; K=${K:-000}; { head -c 150000${K} /dev/urandom | base64; head -c 60000${K} /dev/zero; head -c 60000${K} /dev/urandom | base64; } > $W/big; lbzip2 -9 -c $W/big > $W/big.bz2; ls -l $W/big $W/big.bz2 | tee -a $O/env.txt
for m in "" "--devices 0" "--devices 1" --gpu --cpu "--cpu-beside-gpus 8" "--cpu-beside-gpus 16 --devices 1,0" "--gpu-batch 384"; do echo "big -d $m: $(parcomp -q -d $m -c $W/big.bz2 | cmp - $W/big && echo the input)"; done | tee -a $O/env.txt
echo "big -d through a pipe: $(cat $W/big.bz2 | parcomp -d | cmp - $W/big && echo the input)" | tee -a $O/env.txt
parcomp -q -9 --devices 0 -c $W/big > $W/big.own; for m in "" "--cpu-beside-gpus 8" "--devices 1" "--gpu-batch 256"; do echo "big -9 $m: $(parcomp -q -9 $m -c $W/big | cmp - $W/big.own && echo the bytes of one GPU)"; done | tee -a $O/env.txt
parcomp -v -d --trace $O/big-d-trace.json -c $W/big.bz2 2> $O/big-d-v.txt > /dev/null; tail -2 $O/big-d-v.txt
rm -rf $W; gzip -f $O/*.log $O/*.json 2>/dev/null; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
