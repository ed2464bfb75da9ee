#!/usr/bin/env bash
# Issue 13, one H200: the committed build (final: the tile loop unrolled 4 times up to D = 4 and twice
# above, each tile's norms staged as vectors, main's keep_nearer, the H200's tiled entry at 10 points)
# against main's binary (0012a2e), the four cases of calls 3 and 4, three rounds interleaved. Then the
# K-Means device tests but the tuning sweep (call 4 ran it).
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
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for v in main final; do
    km '{"update": "host"}' 4 4194304 300; run "assign D=4 default" $v
    km '{"update": "host"}' 32 1048576 1024; run "assign D=32 default" $v
    km '{}' 4 4194304 300; run "lloyd D=4 default" $v
    km '{}' 32 1048576 1024; run "lloyd D=32 default" $v
  done
done 2>&1 | tee $OUT/r/suite.txt
echo "== device tests $(date +%T)"
timeout 360 .gpu/itercl_device_tests --source-file="*kmeans*" -tce="tuning sweeps*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
