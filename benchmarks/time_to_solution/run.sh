#!/usr/bin/env bash
# Issue 32's time-to-solution workloads on the GPU machine (through the device tool) or any machine:
# each config through `itercl run` (repeat 3: the last fit's time to solution, the first's beside it),
# then the peers' whole calls (peers.py), into $OUT. BIN: where the itercl binary is (default build).
set -euo pipefail
cd "$(dirname "$0")"
BIN=${BIN:-../../build}
OUT=${OUT:-/tmp/itercl-tts}
DEVICE=${DEVICE:-gpu}
mkdir -p "$OUT" /etc/OpenCL/vendors 2>/dev/null || true
[[ -f /usr/lib/libnvidia-opencl.so.1 && -w /etc/OpenCL/vendors ]] &&
  echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
work=$(mktemp -d)
for config in ${CONFIGS:-kmeans-4m-d4 kmeans-1m-d32 kmeans-64m-d4 pagerank-rmat22 pagerank-rmat22-host-build smacof-16384}; do
  echo "== $config ($(date +%T))"
  "$BIN/itercl" --quiet run "$config.json" --device "$DEVICE" --out "$work/$config.json" | tail -4 || true
  python3 - "$work/$config.json" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["timings"]
first = t.get("first_fit", {})
print(f"{r['name']} on {r['device']['name']}: time to solution {t['time_to_solution_ms']:.1f} ms "
      f"(first fit {first.get('time_to_solution_ms', float('nan')):.1f} ms), "
      f"median iteration {t['median_iteration']['wall_ms']:.3f} ms, repeats {[round(x, 1) for x in t['repeat_wall_ms']]}")
print("  phases:", {k: round(v, 2) for k, v in t["phases_ms"].items()})
if first: print("  first fit's phases:", {k: round(v, 2) for k, v in first["phases_ms"].items()})
PY
  cp "$work/$config.json" "$OUT/" 2>/dev/null || true
done
[[ -n "${NO_PEERS:-}" ]] || python3 peers.py --repeat 3 > "$OUT/peers.json" 2> "$OUT/peers.log" || true
