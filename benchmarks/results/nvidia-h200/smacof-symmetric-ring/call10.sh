#!/usr/bin/env bash
# Issue 13, SMACOF, one H200, call 10: the defaults a user gets with the committed tree (745181d: packed
# storage each pair once from N = 32,768 on) against main's binary (3e26113), kernel and wall time per
# iteration as in call 5, three rounds; PyTorch's dense iteration at 16,384 in the same call.
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
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for n in 16384 32768 65536; do
    smacof default base $n '{}'
    smacof default new $n '{}'
  done
done
echo "== PyTorch $(date +%T)"
(cd benchmarks/smacof && timeout 200 python3 peers.py --n 16384 --sklearn-n 1024 > $OUT/r/peers-16384.json 2>&1); grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/peers-16384.json
echo "== end $(date +%T)"
