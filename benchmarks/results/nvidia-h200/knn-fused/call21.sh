#!/usr/bin/env bash
# k nearest on the H200, seventh call: the default now (auto: the H200 entry's rows, 128 work-items of 2
# rows, 4 columns a step) against main's (tiles) at 5,000 / 50,000 / 200,000, d = 64, three runs each;
# d = 32 and 128 with each form; the pairwise and tuning device tests; PyTorch in the same call.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p $OUT/r /tmp/k
cfg() {  # n kernel-json out [d]
cat > /tmp/k/c.json <<JSON
{"name": "knn", "algorithm": "pairwise_distances", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": ${4:-64}, "n_samples": $1, "random_state": 1},
 "params": {"metric": "euclidean", "form": "knn", "k": 10, "kernel": $2}, "output": "$3"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.2f wall %.2f ms" % (t["kernel_ms"], t["wall_ms"]), r["kernel"]["build_options"])' "$1" "$2"; }
run() {  # label binary n kernel out [d]
  cfg $3 "$4" $5 ${6:-64}; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }
}
fused='{"knn": "fused", "knn_tile_rows": 32, "knn_tile_cols": 8, "knn_subtiles": 4, "knn_cols_per_item": 8, "knn_slice": 8}'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rep in 1 2 3; do for n in 5000 50000 200000; do
  run "main default n=$n rep$rep" .gpu/itercl.prev $n '{}' /tmp/k/main-$n.json
  run "branch default n=$n rep$rep" .gpu/itercl $n '{}' /tmp/k/new-$n.json
done; done
python3 - <<'PY'
import numpy as np
for n in (5000, 50000, 200000):
    a=np.load('/tmp/k/new-%d.indices.npy'%n); b=np.load('/tmp/k/main-%d.indices.npy'%n)
    da=np.load('/tmp/k/new-%d.distances.npy'%n); db=np.load('/tmp/k/main-%d.distances.npy'%n)
    print("n=%d default vs main's: rows with identical indices %.5f, entries %.5f, max |d diff| %.3g" % (n, (a==b).all(1).mean(), (a==b).mean(), abs(da-db).max()))
PY
run "fused 32 8 4 8 8 n=200000" .gpu/itercl 200000 "$fused" /tmp/k/t.json
for d in 32 128; do
  run "d=$d default n=200000" .gpu/itercl 200000 '{}' /tmp/k/t.json $d
  run "d=$d tiles n=200000" .gpu/itercl 200000 '{"knn": "tiles"}' /tmp/k/t.json $d
  run "d=$d fused n=200000" .gpu/itercl 200000 "$fused" /tmp/k/t.json $d
  run "d=$d rows 1 row n=200000" .gpu/itercl 200000 '{"knn": "rows", "knn_subtiles": 1}' /tmp/k/t.json $d
  run "d=$d rows 2 rows n=200000" .gpu/itercl 200000 '{"knn": "rows", "knn_subtiles": 2}' /tmp/k/t.json $d
done
echo "== tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 240 .gpu/itercl_device_tests -tc="pairwise*,*tuning*,every family*" > $OUT/r/device-tests-pairwise.txt 2>&1; tail -3 $OUT/r/device-tests-pairwise.txt
echo "== torch $(date +%T)"
timeout 200 python3 benchmarks/pairwise/peers.py --knn-n 5000 50000 200000 --knn-d 64 --knn-k 10 > $OUT/r/torch-knn.json 2>&1; grep '"ms"\|workload' $OUT/r/torch-knn.json
echo "== end $(date +%T)"
