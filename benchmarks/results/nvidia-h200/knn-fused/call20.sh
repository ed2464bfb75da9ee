#!/usr/bin/env bash
# k nearest on the H200, sixth call: knn_rows with CPS columns a step (knn_cols_per_item) against fused 32 x 8 of 4 x 8 (the default) at n = 200,000, d = 64, k = 10.
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
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.2f wall %.2f ms" % (t["kernel_ms"], t["wall_ms"]))' "$1" "$2"; }
run() {  # label binary n kernel out
  cfg $3 "$4" $5; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }
}
rows() { echo "{\"knn\": \"rows\", \"knn_tile_rows\": $1, \"knn_tile_cols\": 1, \"knn_subtiles\": $2, \"knn_slice\": $3}"; }
PTXAS=$(find / -name ptxas -type f 2>/dev/null | head -1)
rows() { echo "{\"knn\": \"rows\", \"knn_tile_rows\": $1, \"knn_tile_cols\": 1, \"knn_subtiles\": $2, \"knn_slice\": $3, \"knn_cols_per_item\": $4}"; }
run "default (fused 32 8 4 8 8)" .gpu/itercl 200000 '{}' /tmp/k/fused.json
for t in "128 2 64 1" "128 2 64 2" "128 2 64 4" "128 2 128 2" "128 2 128 4" "64 2 64 2" "64 2 64 4" "256 1 64 2" "256 1 64 4" "128 1 64 4" "128 1 64 8" "96 2 96 2" "128 2 64 1" "128 2 64 2"; do
  set -- $t; run "rows $t" .gpu/itercl 200000 "$(rows $1 $2 $3 $4)" /tmp/k/t.json
done
run "rows 128 2 64 2 for check" .gpu/itercl 200000 "$(rows 128 2 64 2)" /tmp/k/rows.json
python3 - <<'PY'
import numpy as np
a=np.load('/tmp/k/rows.indices.npy'); b=np.load('/tmp/k/fused.indices.npy')
print("rows vs fused: identical rows %.6f, max |d diff| %.3g" % ((a==b).all(1).mean(), abs(np.load('/tmp/k/rows.distances.npy')-np.load('/tmp/k/fused.distances.npy')).max()))
PY
echo "== end $(date +%T)"
