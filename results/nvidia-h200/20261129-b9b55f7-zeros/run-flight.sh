#!/bin/bash
# x25 -9 and tarball -9: peak RSS and wall against the blocks in flight and lanes
mkdir -p /tmp/m; tar xJf .data/mini8.tar.xz -C /tmp/m || exit 2
B=/tmp/m/bundle; W=/dev/shm/x; O=$OUT/y; mkdir -p $W $O; export LD_LIBRARY_PATH=$B
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/parcomp --version | tail -1; } > $O/env.txt
xz -T0 -dc .data/m4/linux-2.6.11.1.tar.xz > $W/l.tar; for k in 1 2 3 4 5; do cat $W/l.tar; done > $W/x5; for k in 1 2 3 4 5; do cat $W/x5; done > $W/x25; rm $W/x5
sha256sum $W/l.tar >> $O/env.txt
$B/parcomp -q -9 -c $W/x25 | sha256sum > $W/ref
for v in "" "--blocks-in-flight 384" "--blocks-in-flight 256" "--gpu-lanes 2"; do $B/parcomp -q -9 $v -c $W/x25 | sha256sum | cmp -s - $W/ref && echo "x25 [$v] same bytes" >> $O/env.txt; done
for i in 1 2 3 4; do for v in "" "--blocks-in-flight 384" "--blocks-in-flight 256" "--gpu-lanes 2"; do /usr/bin/time -f "x25 [$v] %e s %M KB" $B/parcomp -q -9 $v -c $W/x25 > /dev/null; done; done 2>> $O/x25.txt
for i in 1 2 3 4 5 6; do for v in "" "--blocks-in-flight 384" "--blocks-in-flight 256" "--gpu-lanes 2"; do /usr/bin/time -f "tar [$v] %e s %M KB" $B/parcomp -q -9 $v -c $W/l.tar > /dev/null; done; done 2>> $O/tar.txt
cat $O/*.txt; rm -rf $W
