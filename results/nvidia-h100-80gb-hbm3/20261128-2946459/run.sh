#!/usr/bin/env bash
# One GPU: python.read of the 5.2 GB lbzip2-made file with the Reader's room at 64 MiB (6182358)
# against 256 MiB (2946459), beside the program (2946459) to /dev/null; 4 runs each, interleaved.
set -u
S=$(date +%s); left() { echo $(( 200 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O /tmp/u
tar xJf .data/b4.tar.xz -C /tmp/u || exit 2
B=/tmp/u/bundle; export PATH=$B:$PATH LD_LIBRARY_PATH=$B
for v in A B; do python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/py$v .data/w4/$v/*.whl > $O/pip-$v.log 2>&1 || exit 3; done
W=/dev/shm/w; mkdir -p $W
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; echo "cores $(nproc)"; python3 --version; parcomp --version | tail -1;
  for v in A B; do PYTHONPATH=/tmp/py$v python3 -c "import parcomp; print('python $v: parcomp', parcomp._version())"; done; } > $O/env.txt 2>&1
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n 16 -c $W/x25 > $W/x25.lbzip2.bz2; rm -f $W/x25; sha256sum $W/l.tar $W/x25.lbzip2.bz2 >> $O/env.txt; cat $O/env.txt
cat > /tmp/read.py <<'PY'
import sys, parcomp
f = parcomp.open(sys.argv[1]); n = 0
while b := f.read(1 << 20):
    n += len(b)
assert n == 5206272000, n
PY
bash scripts/maint/wall-ab.sh --runs 4 --jsonl $O/room.jsonl -- program "parcomp -q -d -c $W/x25.lbzip2.bz2 > /dev/null" \
  room64 "PYTHONPATH=/tmp/pyA python3 /tmp/read.py $W/x25.lbzip2.bz2" room256 "PYTHONPATH=/tmp/pyB python3 /tmp/read.py $W/x25.lbzip2.bz2" 2>&1 | tail -3
echo "done ($(left) s left)"
