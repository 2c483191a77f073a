#!/usr/bin/env bash
# One GPU: python.read (ours): the 5.2 GB file as lbzip2 writes it, and its tarball, read to the end
# from Python (parcomp.open(...).read(1 MiB) in a loop; indexed_bzip2 with 16 threads; bz2 on the
# tarball) beside the parcomp program to /dev/null and cat; 3 interleaved runs each.
set -u
S=$(date +%s); left() { echo $(( 560 - ($(date +%s) - S) )); }
O=$OUT/r; mkdir -p $O
tar xJf .data/prog.tar.xz -C /tmp || exit 2
export PATH=/tmp/bundle:$PATH LD_LIBRARY_PATH=/tmp/bundle
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvcc --version | tail -1; echo "cores $(nproc)"; python3 --version; parcomp --version | tail -1; } > $O/env.txt 2>&1
python3 -m pip install -q --no-deps --no-index --break-system-packages .data/wheels/*.whl > $O/pip.log 2>&1 || python3 -m pip install -q --no-deps --no-index .data/wheels/*.whl >> $O/pip.log 2>&1
python3 -c "import parcomp, indexed_bzip2; print('parcomp', parcomp._version(), 'indexed_bzip2', indexed_bzip2.__version__)" 2>&1 | tail -1 | tee -a $O/env.txt
W=/dev/shm/w; mkdir -p $W
xz -T0 -dc .data/mirror/linux-2.6.11.1.tar.xz > $W/l.tar; for k in $(seq 25); do cat $W/l.tar; done > $W/x25
lbzip2 -9 -n 16 -c $W/x25 > $W/x25.lbzip2.bz2; lbzip2 -9 -n 16 -c $W/l.tar > $W/l.tar.bz2; rm -f $W/x25
sha256sum $W/l.tar $W/x25.lbzip2.bz2 $W/l.tar.bz2 >> $O/env.txt; cat $O/env.txt
cat > /tmp/read.py <<'PY'
import sys
what, path = sys.argv[1], sys.argv[2]
if what == "parcomp":
    import parcomp; f = parcomp.open(path)
elif what == "indexed_bzip2":
    import indexed_bzip2; f = indexed_bzip2.open(path, parallelization=16)
else:
    import bz2; f = bz2.open(path)
n = 0
while b := f.read(1 << 20):
    n += len(b)
print(n)
PY
for w in parcomp indexed_bzip2 bz2; do echo "$w $(python3 /tmp/read.py $w $W/l.tar.bz2)"; done | tee -a $O/env.txt
AB="bash scripts/maint/wall-ab.sh --runs 3"
echo "== x25 ($(left) s left)"
$AB --jsonl $O/pyread-x25.jsonl -- program "parcomp -q -d -c $W/x25.lbzip2.bz2 > /dev/null" python.parcomp "python3 /tmp/read.py parcomp $W/x25.lbzip2.bz2" \
  python.indexed_bzip2 "python3 /tmp/read.py indexed_bzip2 $W/x25.lbzip2.bz2" cat "cat $W/x25.lbzip2.bz2 > /dev/null" 2>&1 | tail -4
echo "== tarball ($(left) s left)"
$AB --jsonl $O/pyread-tar.jsonl -- program "parcomp -q -d -c $W/l.tar.bz2 > /dev/null" python.parcomp "python3 /tmp/read.py parcomp $W/l.tar.bz2" \
  python.indexed_bzip2 "python3 /tmp/read.py indexed_bzip2 $W/l.tar.bz2" python.bz2 "python3 /tmp/read.py bz2 $W/l.tar.bz2" 2>&1 | tail -4
echo "== done ($(left) s left)"
