#!/usr/bin/env bash
# Issue 13, one H200: the library with calls 1-2's findings (the tile loop unrolled 4 times, each tile's
# norms staged as vectors beside its -2c, the running minimum kept with a select and an fmin, and the
# H200's tiled entry at 10 points a work-item) against main's binary (0012a2e), both with the defaults a
# user gets, three rounds interleaved. K-Means, float, uniform data, 6 iterations (tol 0), kernel and
# wall time of the median iteration: the assignment alone (update on the host) at D = 4 (N = 4,194,304,
# K = 300) and D = 32 (N = 1,048,576, K = 1,024); the default fit (the fused Lloyd iteration on the
# device) at both. The inertia after 6 iterations is printed: labels must not move. Then PyTorch at both
# shapes, `itercl tune kmeans` with the new tiled space (points 8, 10, 12, 16), and the K-Means device tests.
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
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), k.get("variant"), "ppi", k.get("points_per_item"), "cpi", k.get("centroids_per_item"), "chunk", k.get("centroids_per_chunk"))' "$1"; }
run() {  # run <label> <binary>
  timeout 90 .gpu/itercl.$2 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -3 /tmp/k/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for v in main new; do
    km '{"update": "host"}' 4 4194304 300; run "assign D=4 default" $v
    km '{"update": "host"}' 32 1048576 1024; run "assign D=32 default" $v
    km '{}' 4 4194304 300; run "lloyd D=4 default" $v
    km '{}' 32 1048576 1024; run "lloyd D=32 default" $v
  done
done 2>&1 | tee $OUT/r/suite.txt
echo "== PyTorch $(date +%T)"
timeout 120 python3 benchmarks/kmeans/peers.py --n 4194304 --d 4 --k 300 --no-sklearn > $OUT/r/torch-d4.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-d4.json
timeout 120 python3 benchmarks/kmeans/peers.py --n 1048576 --d 32 --k 1024 --no-sklearn > $OUT/r/torch-d32.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-d32.json
echo "== tune $(date +%T)"
timeout 200 .gpu/itercl.new tune kmeans --precision float --problem '{"n_samples": 4194304, "n_features": 4, "n_clusters": 300}' --repeat 5 --out /tmp/k/tuning --progress none > $OUT/r/tune.txt 2>&1; head -14 $OUT/r/tune.txt; tail -3 $OUT/r/tune.txt
echo "== device tests $(date +%T)"
timeout 200 .gpu/itercl_device_tests --source-file="*kmeans*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
