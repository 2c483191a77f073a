#!/usr/bin/env bash
# One GPU: python.read at 2f5d36b (the Reader's pieces recycled) against 21ba813, same run.
set -u
S=$(date +%s); left() { echo $(( 400 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O
tar xJf .data/prog.tar.xz -C /tmp || exit 2
export PATH=/tmp/bundle:$PATH LD_LIBRARY_PATH=/tmp/bundle
for v in old new; do python3 -m pip install -q --no-deps --no-index --target /tmp/py-$v .data/wheels/$v/*.whl > $O/pip-$v.log 2>&1; done
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; python3 --version; parcomp --version | tail -1;
  for v in old new; do PYTHONPATH=/tmp/py-$v python3 -c "import parcomp; print('python $v: parcomp', parcomp._version())"; done; } > $O/env.txt 2>&1
W=/dev/shm/w; mkdir -p $W
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n 16 -c $W/x25 > $W/x25.lbzip2.bz2; rm -f $W/x25
sha256sum $W/l.tar $W/x25.lbzip2.bz2 >> $O/env.txt; cat $O/env.txt
cat > /tmp/read.py <<'PY'
import sys, parcomp
f = parcomp.open(sys.argv[1]); n = 0
while b := f.read(1 << 20):
    n += len(b)
print(n)
PY
cat > /tmp/readinto.py <<'PY'
import sys, parcomp
f = parcomp.open(sys.argv[1]); n = 0; buf = bytearray(1 << 20)
while k := f.readinto(buf):
    n += k
print(n)
PY
for v in old new; do echo "$v $(PYTHONPATH=/tmp/py-$v python3 /tmp/read.py $W/x25.lbzip2.bz2)"; done | tee -a $O/env.txt
bash scripts/maint/wall-ab.sh --runs 3 --jsonl $O/pyread-x25.jsonl -- program "parcomp -q -d -c $W/x25.lbzip2.bz2 > /dev/null" \
  python.old "PYTHONPATH=/tmp/py-old python3 /tmp/read.py $W/x25.lbzip2.bz2" python.new "PYTHONPATH=/tmp/py-new python3 /tmp/read.py $W/x25.lbzip2.bz2" \
  python.new.readinto "PYTHONPATH=/tmp/py-new python3 /tmp/readinto.py $W/x25.lbzip2.bz2" 2>&1 | tail -4
echo "== done ($(left) s left)"
