#!/usr/bin/env bash
# Issue 13, SMACOF, one H200, call 7: the symmetric pass with its untested batches in loops of their own
# (one before the rows wrap, one after), beside the prototype of call 4 (harness, .gpu/proto) as a control.
# Kernel and wall time per iteration as in call 5; two rounds; then slices.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/s $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
P=.gpu/proto
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
  $P/harness 65536 16 10 4 256 $P | tail -1
  $P/harness 16384 32 10 4 256 $P | tail -1
  for n in 16384 65536; do
    smacof full new $n '{"packed": false}'
    smacof symmetric new $n '{"packed": true}'
  done
done
for n in 16384 65536; do
  for k in '{"packed": true, "slices": 16}' '{"packed": true, "slices": 32}' '{"packed": true, "slices": 64}' '{"packed": true, "work_group_size": 128}'; do
    smacof sweep new $n "$k"
  done
done
echo "== end $(date +%T)"
