#!/usr/bin/env bash
# Issue 13, one H200, call 4: with the columns split, the copies of the histogram and of the table again
# (fewer copies leave room for more work-groups on a compute unit), and 128 work-items; the committed
# binary (a88dd78's code, 110e625) only. 262,144 uniform 3-D points, float, kernel time of the whole run,
# three rounds interleaved.
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
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/h/o.json")); t=r["timings"]["total"]; k=r["kernel"]["tuning"]; c=r["result"]["counts"]; o=r["kernel"]["build_options"]; print(sys.argv[1], "kernel %.2f ms wall %.2f" % (t["kernel_ms"], t["wall_ms"]), "counts sum %d last %d" % (sum(c), c[-1]), o[o.find("N_CELLS"):].split(" -D")[0], json.dumps({x: k.get(x) for x in ("work_group_size","replicas","table_copies","groups_per_unit")}))' "$1"; }
one() {  # one <label> <binary> <algorithm> <n> <params> <kernel>
  cfg "$3" "$4" "$5" "$6"
  timeout 120 .gpu/itercl run /tmp/h/c.json --quiet --out /tmp/h/o.json >/dev/null 2>/tmp/h/err && show "$1 $2 n=$4 $6" || { echo "$1 $2 $6 FAILED"; tail -3 /tmp/h/err; }
}
SDH='{"bins": 256, "range": [0, 1.7320508075688772]}'
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  for rt in "32 8" "16 8" "16 16" "8 8" "8 16" "8 32"; do set -- $rt
    one sdh final distance_histogram 262144 "$SDH" "{\"replicas\": $1, \"table_copies\": $2}"
  done
  one sdh final distance_histogram 262144 "$SDH" '{"work_group_size": 128}'
  one sdh final distance_histogram 262144 "$SDH" '{"work_group_size": 128, "replicas": 16, "table_copies": 16}'
  for rt in "32 16" "32 4" "16 16" "8 16" "8 32"; do set -- $rt
    one r20 final pair_counts 262144 "{\"radii\": $R20}" "{\"replicas\": $1, \"table_copies\": $2}"
  done
  one r20 final pair_counts 262144 "{\"radii\": $R20}" '{"work_group_size": 128}'
done
echo "== end $(date +%T)"
