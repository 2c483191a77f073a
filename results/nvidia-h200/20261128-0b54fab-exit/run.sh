#!/usr/bin/env bash
# Where a one-GPU -d of 25 tarball copies to /dev/null spends the time outside its trace: wall time
# from the shell beside the trace's last span (3 runs), -v's summary, and the syscalls of one run
# under strace (times and durations) from the last write to the exit.
set -u
S=$(date +%s); left() { echo $(( 570 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b26.tar.xz -C /tmp/u || exit 2; tar xJf .data/st.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B TMPDIR=/dev/shm
{ date -u; nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader; nvidia-smi | grep -o "CUDA Version: [0-9.]*"; echo "cores $(nproc)"; uname -r; parcomp --version | tail -1; } > $O/env.txt 2>&1; cat $O/env.txt
W=/dev/shm/w; mkdir -p $W; xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
parcomp -q -f -9 -c $W/x25 > $W/x25.bz2; sha256sum $W/l.tar $W/x25.bz2 >> $O/env.txt; rm -f $W/x25
for k in 1 2 3 4; do
  a=$(date +%s.%N); parcomp -q -f -d --trace $O/t$k.json -c $W/x25.bz2 > /dev/null; b=$(date +%s.%N)
  echo "run $k wall $(python3 -c "print(round($b - $a, 4))") trace-end $(python3 -c "import json;d=json.load(open('$O/t$k.json'));print(max(s['end'] for s in d['spans']))")"
done | tee $O/walls.txt
parcomp -v -f -d -c $W/x25.bz2 2> $O/v.txt > /dev/null; tail -15 $O/v.txt
a=$(date +%s.%N); LD_LIBRARY_PATH=/tmp/u/st:$B /tmp/u/st/strace --seccomp-bpf -f -ttt -T -qq -e trace='!futex,sched_yield' -o $O/st.txt parcomp -q -f -d -c $W/x25.bz2 > /dev/null; b=$(date +%s.%N)
echo "strace run: start $a end $b" | tee -a $O/walls.txt
grep -c . $O/st.txt; tail -5 $O/st.txt
gzip -f $O/*.json $O/st.txt; tar cf $OUT/r.tar -C $OUT r; rm -rf $O
echo "done ($(left) s left)"
