#!/usr/bin/env bash
# Issue 16, third call, on nvidia-h200-x2: the distance histogram (4 M points) with two rectangles in
# flight per device (lanes) against the binary before (itercl.prev), on one GPU with the ranks' rectangle
# sides, then the histogram's scaling over 1 and 2 ranks with the new binary.
set -u
R=/tmp/x2d; mkdir -p $R/histogram-lanes /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
exec > >(tee -a $R/log.txt) 2>&1
pack() { (cd $R && find . -type f -size -2M | tar czf $OUT/x2d.tgz -T -); }
for run in prev:1:524288 new:1:524288 new:1:262144 prev:1:262144 new:1:0; do
  IFS=: read -r bin np block <<<"$run"
  BIN=$PWD/.gpu/itercl; [ $bin = prev ] && BIN=$PWD/.gpu/itercl.prev
  stem=$R/histogram-lanes/$bin-np$np-b$block
  python3 - $stem "$block" <<'PY'
import json, math, sys
stem, block = sys.argv[1], int(sys.argv[2])
c = {"name": "histogram-lanes", "algorithm": "distance_histogram", "device": "gpu", "precision": "float",
     "data": {"generator": "uniform", "n_samples": 4194304, "n_features": 3, "random_state": 1},
     "params": {"bins": 256, "range": [0, math.sqrt(3)]}, "output": {"path": stem + ".results.json"}}
if block: c["params"]["block"] = block
json.dump(c, open(stem + ".config.json", "w"))
PY
  timeout 60 $BIN run $stem.config.json --quiet
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); t=r['timings']['total']; print(sys.argv[2], 'block', r['result']['block'], 'wall', round(t['wall_ms'],1), 'kernel', round(t['kernel_ms'],1), 'counts sum', sum(r['result']['counts']), [(s['rectangles'], round(s['timings']['kernel_ms'],1)) for s in r['result']['shares']])" $stem.results.json $bin-np$np-b$block || echo "$run failed"
done; pack
echo "== histogram scaling $(date +%T)"
timeout 120 python3 benchmarks/mpi/scaling.py --itercl $PWD/.gpu/itercl --ranks 1,2 --device gpu --sizes issue \
  --algorithms histogram --timeout 60 --out $R/mpi-scaling; pack
echo "== end $(date +%T)"
