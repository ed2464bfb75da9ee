#!/usr/bin/env bash
# Issue 13, SMACOF, one H200, call 9: the committed tree. Full against packed storage each pair once
# (symmetric) at N = 24,576 to 131,072, for the H200's packed_from, with main's binary (3e26113) in the
# same call; kernel and wall time per iteration as in call 5, two rounds. Then every device test.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/s $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
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
  for n in 24576 32768 40960 49152 65536 98304 131072; do
    smacof default base $n '{}'
    smacof default new $n '{}'
    smacof full new $n '{"packed": false}'
    smacof symmetric new $n '{"packed": true}'
  done
done
echo "== device tests $(date +%T)"
# The tests look for ../shared/datasets beside the checkout, as in CI (carried as .gpu-data).
if [[ -d .gpu-data/datasets && ! -e ../shared/datasets ]]; then mkdir -p ../shared && cp -r .gpu-data/datasets ../shared/; fi
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 420 .gpu/itercl_device_tests > $OUT/r/device-tests.txt 2>&1; tail -3 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
