#!/usr/bin/env bash
# Issue 13, one H200, call 4: the final build (the K-Means files' shared -D parameters moved to
# kmeans_params.clh): mma's and every K-Means device test. Then long vectors where mma does not run
# (double, or float on a GPU without tensor cores): expanded against gemm at D = 33 to 128, N = 1,048,576,
# K = 1,024, 4 iterations, kernel time of the median iteration, float and double; and expanded from a
# build whose loops over features unroll fully up to D = 128 (itercl.unroll; main unrolls them fully up
# to 32, 8 times above), to test whether the partial unroll is what makes expanded slow at D = 64.
# The PTX of expanded at D = 64 comes back from the program cache.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== K-Means device tests $(date +%T)"
timeout 300 .gpu/itercl_device_tests --source-file="*kmeans*" -tce="tuning sweeps*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
mkdir -p /tmp/k
km() {  # km <kernel json> <D> <N> <K> <precision>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "$5",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 4, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), k["variant"], k["update"], "wg", k["work_group_size"], "ppi", k["points_per_item"], "cpi", k["centroids_per_item"])' "$1"; }
run() {  # run <label> <binary>
  timeout 120 .gpu/itercl.$2 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -5 /tmp/k/err; }
}
echo "== long vectors $(date +%T)"
for p in float double; do
  for d in 33 48 64 96 128; do
    km '{"update": "host", "variant": "expanded"}' $d 1048576 1024 $p; run "$p assign D=$d expanded" mma
    km '{"update": "host", "variant": "expanded"}' $d 1048576 1024 $p; run "$p assign D=$d expanded" unroll
    km '{"update": "host", "variant": "gemm"}' $d 1048576 1024 $p; run "$p assign D=$d gemm" mma
    km '{"update": "host"}' $d 1048576 1024 $p; run "$p assign D=$d auto" mma
  done
  km '{"variant": "expanded"}' 64 1048576 1024 $p; run "$p lloyd D=64 expanded" mma
  km '{"variant": "gemm"}' 64 1048576 1024 $p; run "$p lloyd D=64 gemm" mma
done 2>&1 | tee $OUT/r/long-vectors.txt
echo "== PTX $(date +%T)"
km '{"update": "host", "variant": "expanded"}' 64 65536 1024 float
ITERCL_CACHE_DIR=$OUT/r/cache timeout 60 .gpu/itercl.mma run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>&1; ls $OUT/r/cache | head
echo "== end $(date +%T)"
