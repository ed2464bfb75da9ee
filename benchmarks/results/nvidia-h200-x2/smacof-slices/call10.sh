#!/usr/bin/env bash
# SMACOF on H200s: does the weak case's slow block come from the last wave of work-groups? Slices given
# (more, shorter work-groups) on one H200 at n = 92,682 and 65,536, and on 2 ranks at n = 92,682.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p $OUT/r
cfg() {  # n slices
cat > /tmp/s.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $1, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "init": "random", "max_iter": 20, "eps": 0, "random_state": 2,
            "kernel": {"slices": $2}}, "output": "/tmp/s.results.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/s.results.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "wall %.3f kernel %.3f ms" % (m["wall_ms"], m["kernel_ms"]), "slices", k["slices"], "wg", k["work_group_size"], "stress %.10g" % r["result"]["stress"])' "$1"; }
for c in "92682 8" "92682 16" "92682 32" "92682 64" "65536 16" "65536 32" "65536 64"; do
  set -- $c; cfg $1 $2
  ITERCL_DEVICE=1:0 timeout 60 .gpu/itercl.prev run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1 && show "np1 n $1"
done
for c in "92682 8" "92682 16" "92682 32" "92682 64" "65536 16" "65536 32"; do
  set -- $c; cfg $1 $2
  timeout 60 mpirun --allow-run-as-root --bind-to none -np 2 .gpu/itercl.prev run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1 && show "np2 n $1"
done
echo "== end $(date +%T)"
