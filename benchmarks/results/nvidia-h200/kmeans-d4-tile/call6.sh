#!/usr/bin/env bash
# Issue 13, one H200: with the tile loop unrolled (call 5's build, committed as 18a3142), is expanded's
# shape at D = 32 still the fastest? Points a work-item (3 to 6) and the local memory for staged
# centroids (16,384 bytes, the default, against 32,768 and 45,000), set through the config, for the
# assignment alone (update on the host) and the default fit (fused Lloyd), N = 1,048,576, K = 1,024,
# float, 6 iterations, two rounds. The inertia must not move.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/k
km() {  # km <kernel json> <D> <N> <K>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"))' "$1"; }
run() {  # run <label> <binary>
  timeout 90 .gpu/itercl.$2 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -3 /tmp/k/err; }
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for shape in '' '"points_per_item": 3' '"points_per_item": 5' '"points_per_item": 6' \
               '"local_memory_bytes": 32768' '"local_memory_bytes": 45000' \
               '"points_per_item": 3, "local_memory_bytes": 45000' '"work_group_size": 64' '"work_group_size": 256'; do
    sep=${shape:+, }
    km "{\"update\": \"host\"$sep$shape}" 32 1048576 1024; run "assign D=32 {$shape}" final
    km "{\"variant\": \"expanded\"$sep$shape}" 32 1048576 1024; run "lloyd D=32 {$shape}" final
  done
done 2>&1 | tee $OUT/r/suite.txt
echo "== end $(date +%T)"
