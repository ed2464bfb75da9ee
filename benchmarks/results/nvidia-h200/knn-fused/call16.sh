#!/usr/bin/env bash
# k nearest fused on the H200, second call: double-buffered slices and an unrolled k loop (this binary)
# against call 15's (per-work-item lists, single-buffered); tilings at n = 200,000, d = 64, k = 10, float.
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
tile() { echo "{\"knn\": \"fused\", \"tile_rows\": $1, \"tile_cols\": $2, \"subtiles\": $3, \"cols_per_item\": $4, \"slice\": $5}"; }
for t in "32 8 4 8 16" "16 16 8 8 16"; do
  run "call15 $t" .gpu/itercl.call15 200000 "$(tile $t)" /tmp/k/t.json
done
for t in "32 8 4 8 16" "16 16 8 8 16" "16 16 4 8 16" "16 16 4 4 16" "32 8 4 8 8" "32 8 4 8 32" "32 8 8 8 16" "16 8 4 8 16" "64 4 4 8 16" "32 16 4 4 16" "16 16 4 16 16" "32 8 4 4 16" "16 16 8 4 16"; do
  run "new $t" .gpu/itercl 200000 "$(tile $t)" /tmp/k/t.json
done
for t in "32 8 4 8 16" "16 16 8 8 16"; do
  run "call15 $t again" .gpu/itercl.call15 200000 "$(tile $t)" /tmp/k/t.json
  run "new $t again" .gpu/itercl 200000 "$(tile $t)" /tmp/k/t.json
done
run "new tiles" .gpu/itercl 200000 '{"knn": "tiles"}' /tmp/k/tiles.json
run "new fused 32 8 4 8 16 for check" .gpu/itercl 200000 "$(tile 32 8 4 8 16)" /tmp/k/fused.json
python3 - <<'PY'
import numpy as np
a=np.load('/tmp/k/fused.indices.npy'); b=np.load('/tmp/k/tiles.indices.npy')
da=np.load('/tmp/k/fused.distances.npy'); db=np.load('/tmp/k/tiles.distances.npy')
print("fused vs tiles, n=200000: rows with identical indices %.5f, entries %.5f, max |d diff| %.3g" % ((a==b).all(1).mean(), (a==b).mean(), abs(da-db).max()))
PY
echo "== tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 200 .gpu/itercl_device_tests -tc="pairwise knn*" 2>&1 | tail -3
echo "== end $(date +%T)"
