#!/usr/bin/env bash
# k nearest fused on the H200: the per-work-item lists (this branch) against main's default (tiles), tilings
# at n = 200,000, d = 64, k = 10, float; agreement with the tiles; the knn device tests; PyTorch in the call.
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
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.2f wall %.2f ms" % (t["kernel_ms"], t["wall_ms"]), r["kernel"].get("options", r["kernel"].get("build_options","")) if isinstance(r["kernel"],dict) else "")' "$1" "$2"; }
run() {  # label binary n kernel out
  cfg $3 "$4" $5; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for rep in 1 2; do
  run "main default n=200000 rep$rep" .gpu/itercl.prev 200000 '{}' /tmp/k/main.json
  run "branch tiles n=200000 rep$rep" .gpu/itercl 200000 '{"knn": "tiles"}' /tmp/k/tiles.json
  run "branch fused default tile n=200000 rep$rep" .gpu/itercl 200000 '{"knn": "fused"}' /tmp/k/fused.json
done
python3 - <<'PY'
import numpy as np
a=np.load('/tmp/k/fused.indices.npy'); b=np.load('/tmp/k/tiles.indices.npy')
da=np.load('/tmp/k/fused.distances.npy'); db=np.load('/tmp/k/tiles.distances.npy')
print("fused vs tiles, n=200000: rows with identical indices %.5f, entries %.5f, max |d diff| %.3g" % ((a==b).all(1).mean(), (a==b).mean(), abs(da-db).max()))
PY
for t in "16 16 4 8 16" "16 16 8 4 16" "16 16 4 4 16" "8 16 8 8 16" "16 8 8 8 16" "8 8 8 8 16" "16 16 8 8 8" "16 16 8 8 32" "8 32 8 4 16" "32 8 4 8 16"; do
  set -- $t
  run "fused $t n=200000" .gpu/itercl 200000 "{\"knn\": \"fused\", \"tile_rows\": $1, \"tile_cols\": $2, \"subtiles\": $3, \"cols_per_item\": $4, \"slice\": $5}" /tmp/k/t.json
done
for n in 5000 50000; do
  run "main default n=$n" .gpu/itercl.prev $n '{}' /tmp/k/main.json
  run "branch fused default tile n=$n" .gpu/itercl $n '{"knn": "fused"}' /tmp/k/fused.json
done
echo "== tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 200 .gpu/itercl_device_tests -tc="pairwise knn*" 2>&1 | tail -4
echo "== torch $(date +%T)"
timeout 150 python3 benchmarks/pairwise/peers.py --knn-n 200000 --knn-d 64 --knn-k 10 > $OUT/r/torch-knn.json 2>&1; tail -c 600 $OUT/r/torch-knn.json
echo "== end $(date +%T)"
