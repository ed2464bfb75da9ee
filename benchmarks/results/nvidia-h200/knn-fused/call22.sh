#!/usr/bin/env bash
# k nearest on the H200, eighth call: small n (5,000 and 20,000), where 128 x 2 rows a group leave the GPU
# underfilled: rows' shapes, fused and the tiles; d = 128 by default (now fused); the device tests again.
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
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.3f wall %.3f ms" % (t["kernel_ms"], t["wall_ms"]), r["kernel"]["build_options"])' "$1" "$2"; }
run() {  # label binary n kernel out [d]
  cfg $3 "$4" $5 ${6:-64}; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }
}
rows() { echo "{\"knn\": \"rows\", \"knn_tile_rows\": $1, \"knn_subtiles\": $2, \"knn_cols_per_item\": $3}"; }
for n in 5000 20000; do for rep in 1 2; do
  run "n=$n tiles" .gpu/itercl $n '{"knn": "tiles"}' /tmp/k/t.json
  run "n=$n fused default" .gpu/itercl $n '{"knn": "fused"}' /tmp/k/t.json
  run "n=$n fused 16 8 4 8 8" .gpu/itercl $n '{"knn": "fused", "knn_tile_rows": 16}' /tmp/k/t.json
  for t in "128 2 4" "64 2 4" "128 1 4" "64 1 4" "32 1 4" "64 1 8" "32 2 4"; do
    set -- $t; run "n=$n rows $t" .gpu/itercl $n "$(rows $1 $2 $3)" /tmp/k/t.json
  done
done; done
run "d=128 default n=200000" .gpu/itercl 200000 '{}' /tmp/k/t.json 128
echo "== tests $(date +%T)"
ITERCL_SOURCE_DIR=$PWD timeout 240 .gpu/itercl_device_tests -tc="pairwise*,*tuning*,every family*" > $OUT/r/device-tests-pairwise.txt 2>&1; tail -3 $OUT/r/device-tests-pairwise.txt
echo "== end $(date +%T)"
