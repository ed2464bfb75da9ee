#!/usr/bin/env bash
# k nearest on one H200 (issue 13): knn_rows with the columns split where its rows leave the units short
# of work-groups (itercl) against the binary before (itercl.skip), d = 64, k = 10, three runs each;
# PyTorch at the same sizes; the device tests of pairwise knn.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p $OUT/r /tmp/k
cfg() {  # n kernel-json out
cat > /tmp/k/c.json <<JSON
{"name": "knn", "algorithm": "pairwise_distances", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 64, "n_samples": $1, "random_state": 1},
 "params": {"metric": "euclidean", "form": "knn", "k": 10, "kernel": $2}, "output": "$3"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.3f wall %.3f ms" % (t["kernel_ms"], t["wall_ms"]), r["kernel"]["build_options"])' "$1" "$2"; }
run() { cfg $3 "$4" $5; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rep in 1 2 3; do for n in 5000 10000 20000 50000; do
  run "before n=$n rep$rep" .gpu/itercl.skip $n '{}' /tmp/k/before-$n.json
  run "split n=$n rep$rep" .gpu/itercl $n '{}' /tmp/k/new-$n.json
done; done
python3 - <<'PY'
import numpy as np
for n in (5000, 10000, 20000, 50000):
    a=np.load('/tmp/k/new-%d.indices.npy'%n); b=np.load('/tmp/k/before-%d.indices.npy'%n)
    da=np.load('/tmp/k/new-%d.distances.npy'%n); db=np.load('/tmp/k/before-%d.distances.npy'%n)
    print("n=%d split vs before: rows with identical indices %.5f, max |d diff| %.3g" % (n, (a==b).all(1).mean(), abs(da-db).max()))
PY
echo "== torch $(date +%T)"
timeout 120 python3 benchmarks/pairwise/peers.py --knn-n 5000 10000 20000 50000 --knn-d 64 --knn-k 10 > $OUT/r/torch-knn.json 2>&1; grep '"ms"\|workload' $OUT/r/torch-knn.json
echo "== tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 200 .gpu/itercl_device_tests -tc="pairwise knn*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
