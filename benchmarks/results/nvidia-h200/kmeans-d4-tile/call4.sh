#!/usr/bin/env bash
# Issue 13, one H200: call 3's build (new: the tile loop unrolled 4 times, vector norms, select-and-fmin,
# 10 points) made the fused Lloyd iteration at D = 32 slower (2.24 against 2.14 ms). Which change: the
# same build with the loop unrolled once (u1) or twice (u2), and with the branch keep_nearer of main (keep),
# against main's binary, the same four cases as call 3, three rounds interleaved. Then the K-Means tuning
# test case that call 3's 200 s limit cut off.
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
  for v in main new u1 u2 keep; do
    km '{"update": "host"}' 4 4194304 300; run "assign D=4 default" $v
    km '{"update": "host"}' 32 1048576 1024; run "assign D=32 default" $v
    km '{}' 4 4194304 300; run "lloyd D=4 default" $v
    km '{}' 32 1048576 1024; run "lloyd D=32 default" $v
  done
done 2>&1 | tee $OUT/r/suite.txt | grep -v "^assign D=4\|^lloyd D=4"
echo "== device tests $(date +%T)"
timeout 400 .gpu/itercl_device_tests --source-file="*kmeans*" -tc="tuning sweeps*" > $OUT/r/device-tests.txt 2>&1; tail -4 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
