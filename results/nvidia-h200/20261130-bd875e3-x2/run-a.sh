#!/usr/bin/env bash
# Pipes on this host (the bundle: "parcomp" bd875e3: the GPUs join once 8 blocks wait for a CPU worker or the reader waits for room;
# "parcomp-prev" 21ab923: once the reader waits for room; "parcomp-main" 4960714: after 4 MiB / at once), each past 4 MiB
# (parcomp format 1 MiB): the engine's GPU tests of bd875e3; Silesia xml (5.3 MB), 60 MB and 360 MB of base64 text and zeros
# through a pipe at -9 (parcomp format too) beside lbzip2, and the 360 MB's .bz2 back, in turns, every output compared.
# Leaves the bundle in /tmp/n. Writes $OUT/q.tar.
set -u
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
O=$OUT/q; W=/dev/shm/q; mkdir -p $O /tmp/n $W; chmod 755 $W; tar xJf .data/mini20.tar.xz -C /tmp/n || exit 2
B=/tmp/n/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; parcomp --version | tail -1; parcomp-prev --version | tail -1; parcomp-main --version | tail -1; lbzip2 --version 2>&1 | head -1; } > $O/env.txt 2>&1; cat $O/env.txt
timeout 150 parcomp-tests-gpu --gtest_filter='EngineGpu.*' > $O/tests.log 2>&1; echo "tests rc $? ($(el) s)"; grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" $O/tests.log | tail -4
bzip2 -dc .data/m4/silesia/xml.bz2 > $W/xml; X=$W/xml
{ head -c 30000000 /dev/urandom | base64; head -c 20000000 /dev/zero; } > $W/mid; { head -c 200000000 /dev/urandom | base64; head -c 90000000 /dev/zero; } > $W/big; sha256sum $X $W/mid $W/big >> $O/env.txt
for f in xml mid big; do for p in parcomp parcomp-prev parcomp-main; do for fm in bz2 parcomp; do
  cat $W/$f | $p -v --format $fm 2>$W/v > $W/o; echo "$f $p $fm: $(grep -c 'GPUs join' $W/v) join [$(grep -o '[0-9]* bytes read and' $W/v)] $(grep -o '[0-9]* on [0-9] GPU(s)' $W/v); $(parcomp -d -c $W/o | cmp - $W/$f && echo the input)"; done; done; done 2>&1 | tee -a $O/env.txt
echo "($(el) s)"
bash scripts/maint/wall-ab.sh --runs 10 --jsonl $O/xml-pipe.jsonl -- new "cat $X | parcomp -q -9 > /dev/null" prev "cat $X | parcomp-prev -q -9 > /dev/null" main "cat $X | parcomp-main -q -9 > /dev/null" lbzip2 "cat $X | lbzip2 -9 > /dev/null" pcmp.new "cat $X | parcomp -q --format parcomp > /dev/null" pcmp.prev "cat $X | parcomp-prev -q --format parcomp > /dev/null" 2>&1 | tail -6
bash scripts/maint/wall-ab.sh --runs 8 --jsonl $O/mid-pipe.jsonl -- new "cat $W/mid | parcomp -q -9 > /dev/null" prev "cat $W/mid | parcomp-prev -q -9 > /dev/null" main "cat $W/mid | parcomp-main -q -9 > /dev/null" lbzip2 "cat $W/mid | lbzip2 -9 > /dev/null" new.name "parcomp -q -9 -c $W/mid > /dev/null" 2>&1 | tail -5
parcomp-main -q -9 -c $W/big > $W/big.bz2
bash scripts/maint/wall-ab.sh --runs 6 --jsonl $O/big-pipe.jsonl -- new "cat $W/big | parcomp -q -9 > /dev/null" prev "cat $W/big | parcomp-prev -q -9 > /dev/null" main "cat $W/big | parcomp-main -q -9 > /dev/null" lbzip2 "cat $W/big | lbzip2 -9 > /dev/null" pcmp.new "cat $W/big | parcomp -q --format parcomp > /dev/null" pcmp.prev "cat $W/big | parcomp-prev -q --format parcomp > /dev/null" pcmp.main "cat $W/big | parcomp-main -q --format parcomp > /dev/null" new.d "cat $W/big.bz2 | parcomp -q -d > /dev/null" main.d "cat $W/big.bz2 | parcomp-main -q -d > /dev/null" 2>&1 | tail -9
rm -rf $W; gzip -f $O/*.log; tar cf $OUT/q.tar -C $OUT q; echo "took $(el) s"
