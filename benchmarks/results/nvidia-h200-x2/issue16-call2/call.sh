#!/usr/bin/env bash
# Issue 16, second call, on nvidia-h200-x2 (the 4-GPU kinds were no longer lent): SMACOF over 1 and 2
# ranks with the next pass's own slices run during the exchange of X; SMACOF packed at n = 300,000 on 2
# ranks; the distance histogram at 4 M points with the rectangle side set (one GPU and 2 ranks), to see
# what the ranks' smaller rectangles cost. Small files only come back (x2c.tgz).
set -u
R=/tmp/x2c; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
BIN=$PWD/.gpu/itercl
exec > >(tee -a $R/log.txt) 2>&1
pack() { (cd $R && find . -type f -size -2M | tar czf $OUT/x2c.tgz -T -); }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv
echo "== smacof scaling $(date +%T)"
timeout 150 python3 benchmarks/mpi/scaling.py --itercl $BIN --ranks 1,2 --device gpu --sizes issue \
  --algorithms smacof --timeout 100 --out $R/mpi-scaling; pack
echo "== smacof packed $(date +%T)"
NP=2 BIN=$BIN OUT=$R/smacof-packed-ranks timeout 90 bash benchmarks/mpi/smacof_packed_ranks.sh; pack
echo "== histogram blocks $(date +%T)"
mkdir -p $R/histogram-blocks
for run in 1:0 1:524288 1:262144 2:0 2:262144 2:131072; do
  np=${run%:*} block=${run#*:}
  python3 - $R/histogram-blocks/np$np-b$block "$block" <<'PY'
import json, math, sys
stem, block = sys.argv[1], int(sys.argv[2])
c = {"name": "histogram-blocks", "algorithm": "distance_histogram", "device": "gpu", "precision": "float",
     "data": {"generator": "uniform", "n_samples": 4194304, "n_features": 3, "random_state": 1},
     "params": {"bins": 256, "range": [0, math.sqrt(3)]}, "output": {"path": stem + ".results.json"}}
if block: c["params"]["block"] = block
json.dump(c, open(stem + ".config.json", "w"))
PY
  stem=$R/histogram-blocks/np$np-b$block
  if [ $np = 1 ]; then timeout 60 $BIN run $stem.config.json --quiet; else timeout 60 mpirun --bind-to none -np $np $BIN run $stem.config.json --quiet; fi
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); t=r['timings']['total']; print(sys.argv[2], 'block', r['result']['block'], 'wall', round(t['wall_ms'],1), 'kernel', round(t['kernel_ms'],1), 'comm', round(t.get('comm_ms',0),1), [(s['device'][:7], s['rectangles'], round(s['timings']['kernel_ms'],1), round(s['timings']['wall_ms'],1)) for s in r['result']['shares']])" $stem.results.json np$np-b$block || echo "np$np-b$block failed"
done; pack
echo "== end $(date +%T)"
