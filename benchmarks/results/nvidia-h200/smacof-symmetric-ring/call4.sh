#!/usr/bin/env bash
# Issue 13, SMACOF, one H200, call 4: as call 3, each batch's loads issued before the batch before it is computed (so the
# barriers do not wait for memory), and the finish walking each slice's groups without a search;
# the same checks and timings as call 2.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/s $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
P=.gpu/proto
$P/harness 8192 8 3 8 256 $P | tail -2
$P/harness 8192 5 3 16 128 $P | tail -2
$P/harness 8192 64 3 32 64 $P | tail -2
for n in 65536 16384; do
  for sw in "1 256" "2 256" "4 256" "1 128" "2 128" "4 128"; do
    for slices in 16 32 64; do timeout 60 $P/harness $n $slices 10 $sw $P | tail -1; done
  done
done
smacof() {  # smacof <label> <n> <kernel json>
  cat > /tmp/s/c.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $2, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "max_iter": 10, "eps": 0, "init": "random", "random_state": 2, "kernel": $3},
 "output": "/tmp/s/o.json"}
JSON
  timeout 120 .gpu/itercl.new run /tmp/s/c.json --quiet --out /tmp/s/o.json >/dev/null 2>/tmp/s/err && python3 -c 'import json,sys; m=json.load(open("/tmp/s/o.json"))["timings"]["median_iteration"]; print(sys.argv[1], "kernel %.3f ms wall %.3f" % (m["kernel_ms"], m["wall_ms"]))' "$1 n=$2 $3" || { echo "$1 FAILED"; tail -3 /tmp/s/err; }
}
for n in 16384 65536; do smacof default $n '{}'; smacof packed $n '{"packed": true}'; done
echo "== end $(date +%T)"
