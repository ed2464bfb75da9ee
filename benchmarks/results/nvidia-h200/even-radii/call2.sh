#!/usr/bin/env bash
# Issue 13, one H200 and its 16 Xeon cores, call 2: the committed rule, kernel.even_edges.
#   base  main at 3e26113: 20 radii through the lookup
#   new   this branch: evenly spaced explicit edges and radii by their place on GPUs (even_edges "place"),
#         by the lookup on CPUs ("lookup"), each also run with the other rule
# Uniform 3-D points in the unit cube, float, kernel time of the whole run, three rounds interleaved on the
# GPU; PyTorch in the same call; then PoCL on the 16 cores (65,536 points, two rounds) and the
# pair-histogram device tests on the GPU.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
E20='[0,0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
SDH='{"bins": 256, "range": [0, 1.7320508075688772]}'
cfg() {  # cfg <device> <algorithm> <n> <params json> <kernel json>
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "$2", "device": "$1", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": $3, "random_state": 1},
 "params": $4, "output": "/tmp/h/o.json"}
JSON
python3 - "$5" <<'PY'
import json, sys
c = json.load(open("/tmp/h/c.json")); c["params"]["kernel"] = json.loads(sys.argv[1]); json.dump(c, open("/tmp/h/c.json", "w"))
PY
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; k=r["kernel"]["tuning"]; c=r["result"]["counts"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), o[o.find("BINNING"):].split(" -D")[0], o[o.find("N_CELLS"):].split(" -D")[0], json.dumps({x: k.get(x) for x in ("even_edges","work_group_size","replicas","table_copies","groups_per_unit")}))' "$1"; }
one() {  # one <device> <label> <binary> <algorithm> <n> <params> <kernel>
  cfg "$1" "$4" "$5" "$6" "$7"
  timeout 120 .gpu/itercl.$3 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 $3 n=$5 $7" || { echo "$1 $2 $3 $7 FAILED"; tail -3 /tmp/h/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for n in 262144 1048576; do
    for v in base new; do one gpu r20 $v pair_counts $n "{\"radii\": $R20}" '{}'; done
    one gpu r20 new pair_counts $n "{\"radii\": $R20}" '{"even_edges": "lookup"}'
    one gpu e20 new distance_histogram $n "{\"edges\": $E20}" '{}'
  done
  for v in base new; do one gpu sdh $v distance_histogram 262144 "$SDH" '{}'; done
  for v in base new; do one gpu r1 $v pair_counts 262144 '{"radii": [0.1]}' '{}'; done
done
echo "== PyTorch $(date +%T)"
timeout 150 python3 benchmarks/pair_histogram/peers.py --n 262144 --bins 256 --radii 1 20 > $OUT/r/torch-262144.json 2>&1; grep -o '"workload": "[^"]*", "ms": [0-9.]*' $OUT/r/torch-262144.json
echo "== PoCL, 16 cores $(date +%T)"
for rep in 1 2; do
  for v in base new; do one cpu r20 $v pair_counts 65536 "{\"radii\": $R20}" '{}'; done
  one cpu r20 new pair_counts 65536 "{\"radii\": $R20}" '{"even_edges": "place"}'
  one cpu sdh new distance_histogram 65536 "$SDH" '{}'
done
echo "== device tests $(date +%T)"
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests.txt 2>&1; tail -3 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
