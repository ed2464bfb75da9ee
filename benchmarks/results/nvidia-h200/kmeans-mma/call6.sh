#!/usr/bin/env bash
# Issue 13's D = 4 workload on an H100 (nvidia-h100-x1), call 6: the H100 has no K-Means entry of its own,
# so it runs the GPU type's expanded (0.434 ms in call 3). `itercl tune kmeans` at N = 4,194,304, D = 4,
# K = 300, float, median of 5; then the defaults with and without the tuned entry (--tuning), two rounds:
# the assignment and the fused Lloyd kernel at D = 4, and D = 32 (mma, from NVIDIA's entry) as a check
# that the entry changes nothing there.
set -u
mkdir -p $OUT/r
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/k/tuning
echo "== tune $(date +%T)"
timeout 300 .gpu/itercl.final tune kmeans --precision float --problem '{"n_samples": 4194304, "n_features": 4, "n_clusters": 300}' --repeat 5 --out /tmp/k/tuning --progress none > $OUT/r/tune.txt 2>&1; head -14 $OUT/r/tune.txt; tail -3 $OUT/r/tune.txt
cp /tmp/k/tuning/kmeans.json $OUT/r/tuned-kmeans.json 2>/dev/null
python3 -c 'import json; d=json.load(open("/tmp/k/tuning/kmeans.json")); print(json.dumps(d["devices"], indent=1)[:1500])'
km() {  # km <kernel json> <D> <N> <K>
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": $2, "n_samples": $3, "random_state": 1},
 "params": {"n_clusters": $4, "init": "random", "n_init": 1, "max_iter": 6, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "kernel %.4f wall %.4f ms" % (t["kernel_ms"], t["wall_ms"]), "inertia %r" % r["result"].get("inertia"), k["variant"], k["update"], "wg", k["work_group_size"], "ppi", k["points_per_item"], "cpi", k["centroids_per_item"])' "$1"; }
run() {  # run <label> <extra options>
  timeout 90 .gpu/itercl.final run /tmp/k/c.json --quiet --out /tmp/k/o.json $2 >/dev/null 2>/tmp/k/err && show "$1" || { echo "$1 FAILED"; tail -5 /tmp/k/err; }
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for t in builtin tuned; do
    opt=""; [ $t = tuned ] && opt="--tuning /tmp/k/tuning"
    km '{"update": "host"}' 4 4194304 300; run "assign D=4 $t" "$opt"
    km '{}' 4 4194304 300; run "lloyd D=4 $t" "$opt"
    km '{"update": "host"}' 32 1048576 1024; run "assign D=32 $t" "$opt"
  done
done 2>&1 | tee $OUT/r/timings.txt
echo "== PyTorch $(date +%T)"
timeout 120 python3 benchmarks/kmeans/peers.py --n 4194304 --d 4 --k 300 --no-sklearn > $OUT/r/torch-d4.json 2>&1; python3 -c 'import json; [print(r["workload"], round(r["ms"], 3), r["device"]) for r in json.load(open("'$OUT'/r/torch-d4.json"))]'
echo "== end $(date +%T)"
