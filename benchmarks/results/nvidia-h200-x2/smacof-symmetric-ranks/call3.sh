#!/usr/bin/env bash
# Issue 13, nvidia-h200-x2, call 3: call 2 found packed storage over 2 ranks spending 0.2-1.4 ms a
# iteration on the host, around the allreduce of the row sums. itercl.sums keeps the allreduce's buffer
# across iterations (a fresh 2 MB vector each iteration before); itercl.final is call 1's build. Full and
# packed (each pair once) storage over 2 ranks, two rounds, every part of the median iteration printed.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
mkdir -p /tmp/s $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
smacof() {  # smacof <binary> <ranks> <n> <kernel json>
  local bin=$1; shift
  cat > /tmp/s/c.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $2, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "max_iter": 10, "eps": 0, "init": "random", "random_state": 2, "kernel": $3},
 "output": "/tmp/s/o.json"}
JSON
  rm -f /tmp/s/o.json
  timeout 120 mpirun -np $1 --bind-to none .gpu/itercl.$bin run /tmp/s/c.json --quiet --out /tmp/s/o.json >/dev/null 2>/tmp/s/err && python3 -c 'import json,sys; r=json.load(open("/tmp/s/o.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], " ".join("%s %.3f" % (x[:-3], m[x]) for x in ("kernel_ms", "transfer_ms", "comm_ms", "host_ms", "wall_ms") if x in m), "stress %.9g" % r["result"]["stress"], json.dumps({x: k.get(x) for x in ("packed","symmetric","slices")}))' "$bin np=$1 n=$2 $3" || { echo "np=$1 n=$2 $3 FAILED"; tail -3 /tmp/s/err; }
}
for rep in 1 2; do
  echo "== round $rep $(date +%T)"
  for n in 65536 131072; do
    for bin in final sums; do
      smacof $bin 2 $n '{}'
      smacof $bin 2 $n '{"packed": true}'
    done
  done
done 2>&1 | tee $OUT/r/log.txt
echo "== end $(date +%T)"
