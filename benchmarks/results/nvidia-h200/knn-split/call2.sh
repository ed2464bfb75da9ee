#!/usr/bin/env bash
# k nearest on one H200 (issue 13): how many work-groups a compute unit knn_rows' column splits should aim
# for (EXP_SPLIT_UNITS, an experiment's switch; unset: 2, the rows' rule), d = 64, k = 10, two runs each.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p $OUT/r /tmp/k
cfg() {
cat > /tmp/k/c.json <<JSON
{"name": "knn", "algorithm": "pairwise_distances", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 64, "n_samples": $1, "random_state": 1},
 "params": {"metric": "euclidean", "form": "knn", "k": 10, "kernel": {}}, "output": "$2"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.3f wall %.3f ms" % (t["kernel_ms"], t["wall_ms"]), o[o.find("-D RPI"):])' "$1" "$2"; }
for rep in 1 2; do for n in 50000 100000 200000; do for u in 2 4 8 16; do
  cfg $n /tmp/k/u$u-$n.json
  EXP_SPLIT_UNITS=$u timeout 60 .gpu/itercl.exp run /tmp/k/c.json --quiet --out /tmp/k/u$u-$n.json > /dev/null 2>&1 && show "units=$u n=$n rep$rep" /tmp/k/u$u-$n.json || echo "units=$u n=$n FAILED"
done; done; done
echo "== end $(date +%T)"
