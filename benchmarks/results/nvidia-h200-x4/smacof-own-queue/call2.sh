#!/usr/bin/env bash
# Issue 16 on nvidia-h200-x4, call 2 (the same warm machine): where the branch's 4-rank SMACOF iteration
# (n = 65,536, float, strong) still loses to a quarter of one GPU's: its slices and work-group size. The
# branch's binary, one rank per GPU, the scaling script's config with params.kernel set; two runs each.
set -u
R=/tmp/x4b; mkdir -p $R /etc/OpenCL/vendors
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee -a $R/log.txt) 2>&1
one() {  # one <ranks> <kernel json> <label>
  python3 - "$2" <<'PY'
import json, sys
c = {"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float", "output": "/tmp/x4b/o.json",
     "data": {"kind": "vectors", "generator": "uniform", "n_samples": 65536, "n_features": 4, "random_state": 1},
     "params": {"n_components": 2, "init": "random", "max_iter": 20, "eps": 0, "random_state": 2,
                "kernel": json.loads(sys.argv[1])}}
json.dump(c, open("/tmp/x4b/c.json", "w"))
PY
  if [ $1 = 1 ]; then timeout 60 .gpu/itercl.new run $R/c.json --quiet >/dev/null 2>$R/err
  else timeout 60 mpirun --bind-to none -np $1 .gpu/itercl.new run $R/c.json --quiet >/dev/null 2>$R/err; fi || { echo "$3 FAILED"; tail -3 $R/err; return; }
  python3 -c 'import json,sys; r=json.load(open("/tmp/x4b/o.json")); t=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "wall %.4f kernel %.4f comm %.4f ms" % (t["wall_ms"], t["kernel_ms"], t["comm_ms"]), "slices", k.get("slices"), "wg", k.get("work_group_size"), "stress %.10g" % r["result"]["stress"])' "$3"
}
for rep in 1 2; do
  one 1 '{}' "np1 default"
  for s in 0 64 128; do one 4 "{\"slices\": $s}" "np4 slices=$s"; done
  one 4 '{"work_group_size": 128}' "np4 wg=128"
  one 4 '{"work_group_size": 128, "slices": 64}' "np4 wg=128 slices=64"
done
tar czf $OUT/x4b.tgz $R/log.txt
echo "== end $(date +%T)"
