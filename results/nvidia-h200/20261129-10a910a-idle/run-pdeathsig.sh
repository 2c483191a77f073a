#!/usr/bin/env bash
# The bench's jobs and GPU holder die with it (PR_SET_PDEATHSIG): tool.load/parcomp.bz2/jobs=16.gpu-busy
# from the 10a910a bundle, the bench killed with SIGKILL after 15 s, then what is left. Writes $OUT/pd.txt.
B=/tmp/pdb; mkdir -p $B; tar xJf .data/s/bench.tar.xz -C $B --strip-components=1; tar xJf .data/s/nvcomp.tar.xz -C $B; xz -dc .data/pdb.xz > $B/parcomp-bench; chmod +x $B/parcomp-bench; ls $B | head -50 | tr "\n" " "
export PATH=$B:$PATH LD_LIBRARY_PATH=$B PARCOMP_DATA=/dev/shm/pd TMPDIR=/dev/shm
python3 datasets/fetch.py linux --mirror .data/m4 --cache /dev/shm/pd > /dev/null 2>&1 || echo "fetch failed"
{
$B/parcomp-bench --benchmark_filter='tool.load/parcomp.bz2/jobs=16.gpu-busy' > /dev/shm/pd-bench.log 2>&1 &
bp=$!; sleep 15
echo "before: $(ps -eo comm | grep -c "^parcomp") parcomp processes; gpu: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ';')"
kill -KILL $bp; wait $bp 2>/dev/null; sleep 2
echo "2 s after SIGKILL: $(ps -eo comm | grep -c "^parcomp") parcomp processes: $(ps -eo pid,ppid,comm | grep parcomp | tr '\n' ';')"
echo "gpu apps: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ';')"
tail -3 /dev/shm/pd-bench.log
} 2>&1 | tee $OUT/pd.txt
pkill -KILL parcomp; rm -rf /dev/shm/pd /dev/shm/parcomp-tool-*
