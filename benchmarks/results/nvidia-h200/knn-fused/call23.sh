#!/usr/bin/env bash
# k nearest on the H200, ninth call: rows with 1 or 2 rows a work-item (128 work-items, 4 columns a step)
# at n = 50,000, 100,000 and 200,000: where does 2 stop paying?
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
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.3f wall %.3f ms" % (t["kernel_ms"], t["wall_ms"]))' "$1" "$2"; }
run() { cfg $3 "$4" $5; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }; }
for n in 35000 50000 70000 100000 200000; do for rep in 1 2; do for r in 1 2; do
  run "n=$n rows_per_item=$r" .gpu/itercl $n "{\"knn\": \"rows\", \"knn_subtiles\": $r}" /tmp/k/t.json
done; done; done
echo "== end $(date +%T)"
