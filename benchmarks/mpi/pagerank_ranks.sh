#!/usr/bin/env bash
# PageRank over 1, 2 and 4 MPI ranks, one GPU each (issue 33's targets), on the 2- or 4-GPU machine
# through the device tool:
#   strong scaling: R-MAT 25 (33.5 M nodes, 537 M links) plain, then over 2 and 4 ranks;
#   weak scaling:   R-MAT 25 on 1 rank (the strong run's), 26 on 2, 27 on 4 (about 537 M links per rank).
# Each run: 20 iterations, float, tol 0, the default format for the GPU, the graph drawn in parts (one
# per rank). Prints, per run, the median iteration's wall time, its kernel, transfer and communication
# parts, the bytes each rank sends per iteration (the halo exchange) beside what the allgather it replaced
# sent (results' result.exchange), then the efficiencies (strong: T1 / (P TP); weak: T1 / TP). The
# allgather is no longer selectable: its times are docs/mpi-model.md's (R-MAT 25 on two H200s: 25 ms an
# iteration, 20 of them the allgather). Writes under $OUT: pagerank-ranks.txt (the table), and one
# results file per run packed into results.tgz.
#   BIN    the itercl binary built here (default .gpu/itercl)
#   RANKS  the rank counts (default "1 2 4"; each needs as many GPUs; weak: R-MAT 25 + log2 P)
#   ITER   iterations per run (default 20)
# On the nvidia-h200-x2 kind (3 runs: R-MAT 25 on 1 and 2 ranks, 26 on 2):
#   RANKS="1 2" OUT=$OUT bash benchmarks/mpi/pagerank_ranks.sh
# On the nvidia-h200-x4 kind:  OUT=$OUT bash benchmarks/mpi/pagerank_ranks.sh
set -euo pipefail
BIN=${BIN:-.gpu/itercl}
OUT=${OUT:-/tmp/itercl-pagerank-ranks}
RANKS=${RANKS:-"1 2 4"}
ITER=${ITER:-20}
work=$(mktemp -d)
mkdir -p "$OUT" /etc/OpenCL/vendors
[[ -f /usr/lib/libnvidia-opencl.so.1 ]] && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
exec > >(tee -a "$OUT/pagerank-ranks.txt") 2>&1
{ "$BIN" devices; nvidia-smi --query-gpu=name,memory.total --format=csv; } || true

config() {  # name scale
  cat > "$work/$1.config.json" <<JSON
{"name": "$1", "algorithm": "pagerank", "device": "gpu", "precision": "float",
 "data": {"generator": "rmat", "scale": $2, "edge_factor": 16, "random_state": 1},
 "params": {"max_iter": $ITER, "tol": 0},
 "output": {"path": "$work/$1.json", "ranks": false}}
JSON
}

run() {  # name scale ranks
  config "$1" "$2"
  local command=("$BIN" run "$work/$1.config.json" --quiet)
  # --bind-to none: Open MPI would pin each rank to one core and starve the host's threads (the graph's
  # build and the format run on all of them).
  if (($3 > 1)); then command=(mpirun --allow-run-as-root --bind-to none -np "$3" "${command[@]}"); fi
  if ! timeout 580 "${command[@]}"; then echo "$1: failed or timed out"; return 0; fi
  python3 - "$work/$1.json" "$3" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["timings"]["median_iteration"]
ex = r["result"].get("exchange", {})
mb = lambda v: "[" + ", ".join(f"{x / 1e6:.1f}" for x in v) + "] MB" if v else "none"
print(f'{sys.argv[1].split("/")[-1][:-5]:14s} ranks {sys.argv[2]} R-MAT {sys.argv[3]}: median iteration '
      f'{m["wall_ms"]:.3f} ms (kernel {m["kernel_ms"]:.3f}, transfer {m["transfer_ms"]:.3f}, '
      f'comm {m.get("comm_ms", 0):.3f}); per rank per iteration, sent {mb(ex.get("bytes_sent_per_rank"))} '
      f'(the halo), the allgather sent {mb(ex.get("allgather_bytes_per_rank"))} '
      f'(remote entries received {ex.get("remote_entries_per_rank", "none")})')
with open(sys.argv[1][:-5] + ".wall", "w") as f:
    f.write(str(m["wall_ms"]))
PY
}

for p in $RANKS; do run "strong-np$p" 25 "$p"; done
for p in $RANKS; do
  if ((p == 1)); then  # the strong run's graph and ranks
    cp "$work/strong-np1.json" "$work/weak-np1.json" && cp "$work/strong-np1.wall" "$work/weak-np1.wall" || true
  else
    run "weak-np$p" $((25 + $(python3 -c "print(($p).bit_length() - 1)"))) "$p"  # R-MAT 25 + log2 P
  fi
done

python3 - "$work" $RANKS <<'PY'
import os, sys
work, ranks = sys.argv[1], [int(p) for p in sys.argv[2:]]
def wall(name):
    path = os.path.join(work, name + ".wall")
    return float(open(path).read()) if os.path.exists(path) else None
for mode, eff in (("strong", lambda t1, tp, p: t1 / (p * tp)), ("weak", lambda t1, tp, p: t1 / tp)):
    t1 = wall(f"{mode}-np{ranks[0]}")
    for p in ranks:
        tp = wall(f"{mode}-np{p}")
        if t1 and tp:
            print(f"{mode} scaling, {p} ranks: efficiency {eff(t1, tp, p):.2f}, speed-up {t1 / tp:.2f}")
PY
tar -czf "$OUT/results.tgz" -C "$work" .
