#!/usr/bin/env bash
# Issue 13, one H200, call 1: evenly spaced radii take the uniform rule (the bucket from the distance's
# place, a threshold read only near a radius) instead of the cells' lookup.
#   base  main at 3e26113: 20 radii through the lookup (16 cells a bucket)
#   new   this branch: evenly spaced radii and edges through the uniform rule
# Uniform 3-D points in the unit cube, float, kernel time of the whole run, the defaults unless a kernel
# is given; three rounds interleaved. Then the pair-histogram device tests with the branch's binary.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
# The same radii, every third moved by 0.01: uneven, so both binaries take the lookup.
U20='[0.05,0.1,0.16,0.2,0.25,0.31,0.35,0.4,0.46,0.5,0.55,0.61,0.65,0.7,0.76,0.8,0.85,0.91,0.95,1.0]'
E20='[0,0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
cfg() {  # cfg <algorithm> <n> <params json> <kernel json>
cat > /tmp/h/c.json <<JSON
{"name": "h", "algorithm": "$1", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 3, "n_samples": $2, "random_state": 1},
 "params": $3, "output": "/tmp/h/o.json"}
JSON
python3 - "$4" <<'PY'
import json, sys
c = json.load(open("/tmp/h/c.json")); c["params"]["kernel"] = json.loads(sys.argv[1]); json.dump(c, open("/tmp/h/c.json", "w"))
PY
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; k=r["kernel"]["tuning"]; c=r["result"]["counts"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), o[o.find("BINNING"):].split(" -D")[0], o[o.find("N_CELLS"):].split(" -D")[0], json.dumps({x: k.get(x) for x in ("work_group_size","replicas","table_copies","groups_per_unit")}))' "$1"; }
one() {  # one <label> <binary> <algorithm> <n> <params> <kernel>
  cfg "$3" "$4" "$5" "$6"
  timeout 120 .gpu/itercl.$2 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 n=$4 $6" || { echo "$1 $2 $6 FAILED"; tail -3 /tmp/h/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for n in 262144 1048576; do
    for v in base new; do one r20 $v pair_counts $n "{\"radii\": $R20}" '{}'; done
    one e20 new distance_histogram $n "{\"edges\": $E20}" '{}'
  done
  for v in base new; do one u20 $v pair_counts 262144 "{\"radii\": $U20}" '{}'; done
  for v in base new; do one r1 $v pair_counts 262144 '{"radii": [0.1]}' '{}'; done
  for v in base new; do one h256 $v distance_histogram 262144 '{"bins": 256}' '{}'; done
  # The histogram's copies with 20 buckets: a copy per work-item counts without atomics.
  for k in '{"replicas": 64}' '{"replicas": 128}' '{"replicas": 256}' '{"work_group_size": 128, "replicas": 128}'; do
    one r20 new pair_counts 262144 "{\"radii\": $R20}" "$k"
  done
done
echo "== device tests $(date +%T)"
ITERCL_DEVICE=gpu ITERCL_SOURCE_DIR=$PWD timeout 300 .gpu/itercl_device_tests --source-file="*pair_histogram*" > $OUT/r/device-tests.txt 2>&1; tail -3 $OUT/r/device-tests.txt
echo "== end $(date +%T)"
