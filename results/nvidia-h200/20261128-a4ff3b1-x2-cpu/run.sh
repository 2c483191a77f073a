#!/usr/bin/env bash
# Two GPUs of one host, a4ff3b1: the CPU time, faults and context switches of .bz2 -d and -9 on
# one GPU and two (GNU time -v), to see whether the host's threads bound two GPUs.
set -u
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b21.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
W=/dev/shm/w; mkdir -p $W; N=$(nproc)
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n $N -c $W/x25 > $W/x25.lbzip2.bz2; f=$W/x25.lbzip2.bz2
which perf; nproc; lscpu | grep -E "Model name|Socket|Thread|NUMA node|L3"
for r in 1 2; do for a in "-d --devices 0" "-d" "-d --gpu-batch 512" "-d --cpu"; do
  /usr/bin/time -f "$a: %e s wall, %U user, %S sys, %P cpu, %F major %R minor faults, %w waits %c switches, %M KB" parcomp -q -f $a -c $f 2>&1 >/dev/null | tail -1; done; done | tee $O/time-d.txt
for a in "-9 --devices 0" "-9"; do
  /usr/bin/time -f "$a: %e s wall, %U user, %S sys, %P cpu, %F major %R minor faults, %w waits %c switches, %M KB" parcomp -q -f $a -c $W/x25 2>&1 >/dev/null | tail -1; done | tee $O/time-c.txt
/usr/bin/time -f "lbzip2 -d: %e s wall, %U user, %S sys, %P cpu" lbzip2 -d -n $N -c $f 2>&1 >/dev/null | tail -1 | tee -a $O/time-d.txt
mpstat -P ALL 1 1 2>/dev/null | tail -3
tar cf $OUT/r.tar -C $OUT r
