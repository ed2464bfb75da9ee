#!/usr/bin/env bash
# Issue 13, one H200, call 5: the final build, whose loops over features unroll fully up to D = 128 on GPUs
# (UNROLL_DIM_UP_TO, kmeans_params.clh), against main's binary (93f7f6e) where mma does not run: expanded,
# and what auto takes, in double (and expanded in float) at D = 33 to 128, N = 1,048,576, K = 1,024,
# 4 iterations, kernel time of the median iteration, two rounds; the defaults at D = 4, 32 and 64 in float.
# Then every K-Means device test, the tuning sweep included.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/k
km() {  # km <kernel json> <D> <N> <K> <precision>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "$5",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 4, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), k["variant"], k["update"], "wg", k["work_group_size"], "ppi", k["points_per_item"])' "$1"; }
run() {  # run <label> <binary>
  timeout 120 .gpu/itercl.$2 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -5 /tmp/k/err; }
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for b in main final; do
    for d in 33 64 96 128; do
      km '{"update": "host"}' $d 1048576 1024 double; run "double assign D=$d auto" $b
      km '{}' $d 1048576 1024 double; run "double lloyd D=$d auto" $b
      km '{"update": "host", "variant": "expanded"}' $d 1048576 1024 float; run "float assign D=$d expanded" $b
    done
    km '{"update": "host"}' 4 4194304 300 float; run "float assign D=4 default" $b
    km '{"update": "host"}' 32 1048576 1024 float; run "float assign D=32 default" $b
    km '{}' 32 1048576 1024 float; run "float lloyd D=32 default" $b
    km '{}' 64 1048576 1024 float; run "float lloyd D=64 default" $b
  done
done 2>&1 | tee $OUT/r/timings.txt
echo "== K-Means device tests $(date +%T)"
timeout 300 .gpu/itercl_device_tests --source-file="*kmeans*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
