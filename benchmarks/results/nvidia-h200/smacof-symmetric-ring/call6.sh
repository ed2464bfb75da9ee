#!/usr/bin/env bash
# Issue 13, SMACOF, one H200, call 6: the symmetric pass with its wrapped rows untested too (a batch whose rows all wrap past n takes j = i + k - n) and 8-byte ring updates in 2-D (kernel.symmetric, cl/smacof.cl's
# fused_symmetric): the SMACOF device tests on the GPU, then kernel and wall time per iteration (median of
# 10, float, 2-D, uniform 4-D vectors, delta built on the device) for full storage, packed storage each
# pair once (symmetric, the GPUs' default over packed storage) and every ordered pair, at N = 4,096 to
# 65,536, with main's binary (3e26113, full storage by default) in the same call; two rounds. Then work-items
# and slices of the symmetric pass at 16,384 and 65,536.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/s $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== device tests $(date +%T)"
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 400 .gpu/itercl_device_tests --source-file="*smacof*" > $OUT/r/device-tests-smacof.txt 2>&1; tail -3 $OUT/r/device-tests-smacof.txt
smacof() {  # smacof <label> <binary> <n> <kernel json>
  cat > /tmp/s/c.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $3, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "max_iter": 10, "eps": 0, "init": "random", "random_state": 2, "kernel": $4},
 "output": "/tmp/s/o.json"}
JSON
  timeout 120 .gpu/itercl.$2 run /tmp/s/c.json --quiet --out /tmp/s/o.json >/dev/null 2>/tmp/s/err && python3 -c 'import json,sys; r=json.load(open("/tmp/s/o.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "kernel %.3f ms wall %.3f" % (m["kernel_ms"], m["wall_ms"]), "stress %.9g" % r["result"]["stress"], json.dumps({x: k.get(x) for x in ("packed","symmetric","work_group_size","slices","rows_per_item")}))' "$1 $2 n=$3 $4" || { echo "$1 $2 n=$3 FAILED"; tail -3 /tmp/s/err; }
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for n in 4096 8192 16384 32768 65536 131072; do
    smacof default base $n '{}'
    smacof full new $n '{"packed": false}'
    smacof symmetric new $n '{"packed": true}'
    smacof ordered new $n '{"packed": true, "symmetric": false}'
  done
done
echo "== work-items and slices $(date +%T)"
for n in 16384 65536; do
  for k in '{"packed": true, "work_group_size": 128}' '{"packed": true, "slices": 16}' '{"packed": true, "slices": 32}' '{"packed": true, "slices": 64}' '{"packed": true, "slices": 128}'; do
    smacof sweep new $n "$k"
  done
done
echo "== end $(date +%T)"
