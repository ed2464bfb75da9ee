#!/usr/bin/env bash
# Issue 13, one H200, call 3: the committed build (call 2's with naive and tiled built without the private
# kernels, PRIVATE_HIST), one round against main's binary (93f7f6e) with the defaults; the pair-histogram
# device tests; and, for the next K-Means work, the PTX of the D = 32 assignment's kernels from the
# program cache (ITERCL_CACHE_DIR).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r/cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
SDH='{"bins": 256, "range": [0, 1.7320508075688772]}'
cfg() {
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "$2", "device": "$1", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": $3, "random_state": 1},
 "params": $4, "output": "/tmp/h/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; c=r["result"]["counts"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]))' "$1"; }
one() {
  cfg "$1" "$4" "$5" "$6"
  timeout 120 .gpu/itercl.$3 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 $3 n=$5" || { echo "$1 $2 $3 FAILED"; tail -3 /tmp/h/err; }
}
echo "== suite $(date +%T)"
for v in main final; do one gpu sdh $v distance_histogram 262144 "$SDH"; done
for v in main final; do one gpu r20 $v pair_counts 262144 "{\"radii\": $R20}"; done
for v in main final; do one gpu sdh100k $v distance_histogram 65536 '{"bins": 100000, "range": [0, 1.7320508075688772]}'; done
echo "== device tests $(date +%T)"
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests.txt 2>&1; tail -3 $OUT/r/device-tests.txt
echo "== K-Means D = 32 PTX $(date +%T)"
cat > /tmp/h/k.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 32, "n_samples": 1048576, "random_state": 1},
 "params": {"n_clusters": 1024, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": {"update": "host"}}, "output": "/tmp/h/ko.json"}
JSON
ITERCL_CACHE_DIR=$OUT/r/cache timeout 90 .gpu/itercl.final run /tmp/h/k.json --quiet --out /tmp/h/ko.json > /dev/null 2>&1
python3 -c 'import json; r=json.load(open("/tmp/h/ko.json")); t=r["timings"]["median_iteration"]; print("assign D=32 kernel %.4f ms" % t["kernel_ms"], r["kernel"]["build_options"])'
find $OUT/r/cache -type f | head; du -sh $OUT/r/cache
echo "== end $(date +%T)"
