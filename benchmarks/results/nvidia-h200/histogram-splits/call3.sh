#!/usr/bin/env bash
# Issue 13, one H200, call 3: the radii's bucket lookup with finer cells.
#   new     main after call 2 (67315bc's code): 4 cells a bucket (80 for 20 radii)
#   cells8  the same with 8 cells a bucket (160)
#   cells16 the same with 16 cells a bucket (320)
# 20 radii (0.05 .. 1.0) over uniform 3-D points in the unit cube, float, kernel time of the whole run,
# the defaults otherwise (and 16 cells with one copy of the table), three rounds interleaved, at 262,144
# and 1,048,576 points.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p /tmp/h $OUT/r
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
R20='[0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0]'
# cfg <algorithm> <n> <params json> <kernel json>
cfg() {
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
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; k=r["kernel"]["tuning"]; c=r["result"]["counts"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), o[o.find("N_CELLS"):].split(" -D")[0], json.dumps({x: k.get(x) for x in ("table_copies","groups_per_unit")}))' "$1"; }
one() {  # one <label> <binary> <algorithm> <n> <params> <kernel>
  cfg "$3" "$4" "$5" "$6"
  timeout 120 .gpu/itercl.$2 run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 n=$4 $6" || { echo "$1 $2 $6 FAILED"; tail -3 /tmp/h/err; }
}
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for n in 262144 1048576; do
    for v in new cells8 cells16; do one r20 $v pair_counts $n "{\"radii\": $R20}" '{}'; done
    one r20 cells16 pair_counts $n "{\"radii\": $R20}" '{"table_copies": 1}'
  done
done
echo "== end $(date +%T)"
