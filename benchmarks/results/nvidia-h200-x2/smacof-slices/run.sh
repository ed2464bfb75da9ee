#!/usr/bin/env bash
# The SMACOF slices measurements of smacof-slices.md, on the two-H200 machine through the device tool
# (run in the repository root with the binary at $BIN, default .gpu/itercl): one SMACOF config per line,
# float, 2-D, 4-D uniform vectors, random start, 20 iterations, eps 0, with params.kernel.slices or
# groups_per_unit given; one H200 (ITERCL_DEVICE=1:0) or 2 ranks (one GPU each). Prints the median
# iteration's wall and kernel time and the slices and work-group size used. The session ran it in three
# calls (slices at n = 92,682 and 65,536; groups_per_unit 16, 64, 128; slices 32 to 256), as below.
set -u
BIN=${BIN:-.gpu/itercl}
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
run() {  # ranks n field value
  cat > /tmp/s.json <<JSON
{"name": "s", "algorithm": "smacof", "device": "gpu", "precision": "float",
 "data": {"kind": "vectors", "generator": "uniform", "n_samples": $2, "n_features": 4, "random_state": 1},
 "params": {"n_components": 2, "init": "random", "max_iter": 20, "eps": 0, "random_state": 2,
            "kernel": {"$3": $4}}, "output": "/tmp/s.results.json"}
JSON
  if [[ $1 == 1 ]]; then
    ITERCL_DEVICE=1:0 timeout 60 "$BIN" run /tmp/s.json --quiet --out /tmp/s.results.json >/dev/null 2>&1
  else
    timeout 60 mpirun --allow-run-as-root --bind-to none -np "$1" "$BIN" run /tmp/s.json --quiet \
      --out /tmp/s.results.json >/dev/null 2>&1
  fi || { echo "np$1 n $2 $3 $4: failed"; return; }
  python3 -c 'import json,sys; r=json.load(open("/tmp/s.results.json")); m=r["timings"]["median_iteration"]; k=r["kernel"]["tuning"]; print(sys.argv[1], "wall %.3f kernel %.3f ms" % (m["wall_ms"], m["kernel_ms"]), "slices", k["slices"], "wg", k["work_group_size"])' "np$1 n $2 $3 $4"
}
for s in 8 16 32 64; do run 1 92682 slices $s; done
for s in 16 32 64; do run 1 65536 slices $s; done
for s in 8 16 32 64; do run 2 92682 slices $s; done
for s in 16 32; do run 2 65536 slices $s; done
for n in 16384 32768 65536 92682 131072; do for g in 16 64 128; do run 1 $n groups_per_unit $g; done; done
for n in 65536 92682; do for g in 16 64 128; do run 2 $n groups_per_unit $g; done; done
for n in 32768 65536 92682 131072; do for s in 32 64 128 256; do run 1 $n slices $s; done; done
for s in 64 128 256; do run 2 92682 slices $s; done
