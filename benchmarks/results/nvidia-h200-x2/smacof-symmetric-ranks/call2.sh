#!/usr/bin/env bash
# Issue 13, nvidia-h200-x2, call 2: call 1 found packed storage over 2 ranks slower by wall time than
# full storage though faster by kernel time. The same runs, one round, with every part of the median
# iteration printed (kernel, transfer, comm, host, wall).
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/s $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
smacof() {  # smacof <ranks> <n> <kernel json>
  cat > /tmp/s/c.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $2, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "max_iter": 10, "eps": 0, "init": "random", "random_state": 2, "kernel": $3},
 "output": "/tmp/s/o.json"}
JSON
  rm -f /tmp/s/o.json
  timeout 120 mpirun -np $1 --bind-to none .gpu/itercl.final run /tmp/s/c.json --quiet --out /tmp/s/o.json >/dev/null 2>/tmp/s/err && python3 -c 'import json,sys; r=json.load(open("/tmp/s/o.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], " ".join("%s %.3f" % (x[:-3], m[x]) for x in ("kernel_ms", "transfer_ms", "comm_ms", "host_ms", "wall_ms") if x in m), "stress %.9g" % r["result"]["stress"], json.dumps({x: k.get(x) for x in ("packed","symmetric","slices")}))' "np=$1 n=$2 $3" || { echo "np=$1 n=$2 $3 FAILED"; tail -3 /tmp/s/err; }
}
for rep in 1; do
  echo "== round $rep $(date +%T)"
  for n in 65536 131072; do
    smacof 2 $n '{}'
    smacof 2 $n '{"packed": true}'
    smacof 2 $n '{"packed": true, "symmetric": false}'
    smacof 1 $n '{}'
  done
done 2>&1 | tee $OUT/r/log.txt
echo "== end $(date +%T)"
