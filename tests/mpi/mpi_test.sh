#!/usr/bin/env bash
# K-Means, SMACOF, PageRank, the distance histogram, pair counts and pairwise distances (the matrix, one
# .npy written by every rank, and its reductions) over 1, 2 and 3 MPI ranks against the plain run of the
# same config: identical labels, embeddings, iterations and counts, inertia, centroids, stress and
# PageRank's ranks within tolerance::ranks_objective, ranks_stress and ranks_pagerank (SMACOF's packed
# storage, the embedding within ranks_packed), and PageRank's ranks
# against the reference iteration (tests/mpi/compare.py), also with MPI messages cut to 64 bytes (the
# collectives' rounds) and with 64-bit link offsets forced (weighted and R-MAT graphs); K-Means over 2 ranks with its points in chunks, streamed through each rank's
# device or kept there, against the resident run (every value identical); then errors on one rank or
# all end every rank at once with exit code 2 (bad input) or 1 (a failure while running) and leave no
# results file; PageRank's phases of the time to solution over ranks.
# Usage: mpi_test.sh ITERCL MPIEXEC SOURCE_DIR
set -euo pipefail
itercl=$1
mpiexec=$2
source_dir=$3
here="$source_dir/tests/mpi"
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun() { timeout 60 "$mpiexec" --allow-run-as-root --oversubscribe -np "$@"; }
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
unset ITERCL_DEVICE  # the configs name the device: cpu, PoCL in CI

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# Every run of a K-Means config writes the labels file the config names: each run's labels move beside its
# results (RESULTS.labels.txt, where compare.py reads them), so that no comparison reads one file twice.
keep_labels() {  # results file (none: the run failed, and said so)
  local labels
  [ -f "$1" ] || return 0
  labels=$("$python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["result"].get("labels", ""))' "$1")
  if [ -n "$labels" ] && [ "$labels" != "${1%.json}.labels.txt" ]; then mv "$labels" "${1%.json}.labels.txt"; fi
}

# The configs, with their outputs (results, labels) in $tmp per run.
"$python" "$here/make_configs.py" "$here" "$tmp"
blobs="$tmp/configs/blobs_kmeanspp.json"

for config in "$tmp"/configs/*.json; do
  name=$(basename "$config" .json)
  "$itercl" run "$config" --quiet --out "$tmp/$name.plain.json" >/dev/null || { fail "$name: plain run"; continue; }
  keep_labels "$tmp/$name.plain.json"
  ranks="1 2 3"
  case $name in smacof_* | histogram_* | pair_counts | pairwise_* | pagerank_*) ranks="2 3" ;; esac  # -np 1: a plain run (K-Means shows it)
  for p in $ranks; do
    if ! mpirun "$p" "$itercl" run "$config" --quiet --out "$tmp/$name.np$p.json" >"$tmp/$name.np$p.log" 2>&1; then
      fail "$name: -np $p exited $?"; cat "$tmp/$name.np$p.log"; continue
    fi
    keep_labels "$tmp/$name.np$p.json"
    "$python" "$here/compare.py" "$tmp/$name.plain.json" "$tmp/$name.np$p.json" "$p" || fail "$name: -np $p differs"
  done
done

# Over ranks the time to solution is cut into phases as one process's is, with the ranks' own
# (exchange_edges, halo_plan), and they add up to it: an R-MAT drawn in parts, a file's rows scattered.
"$python" - "$tmp/pagerank_rmat.np2.json" "$tmp/pagerank_bsr_degree.np3.json" <<'PY' || fail "PageRank's phases over ranks"
import json, sys
common = {"checks", "reorder", "exchange_edges", "graph_build", "halo_plan", "format", "upload", "init",
          "iterations", "readback"}
for path, expected in zip(sys.argv[1:], (common | {"degree_counts"}, common)):
    t = json.load(open(path))["timings"]
    phases = t["phases_ms"]
    if not expected <= set(phases) or "fit" in phases:
        sys.exit(f"{path}: phases {sorted(phases)}, expected {sorted(expected)} among them")
    if abs(sum(phases.values()) - t["time_to_solution_ms"]) > 1e-9 * t["time_to_solution_ms"]:
        sys.exit(f"{path}: phases add up to {sum(phases.values())} ms, not {t['time_to_solution_ms']}")
PY

# MPI messages cut to 64 bytes: the all to all of an R-MAT's edges, rank 0's scatter of a file's rows,
# the gather of K-Means' labels and the broadcasts go in many rounds, with the same answers.
for name in pagerank_rmat_simple_degree_double pagerank_bsr_degree text_s1; do
  if ITERCL_MPI_MAX_MESSAGE=64 mpirun 3 -x ITERCL_MPI_MAX_MESSAGE "$itercl" run "$tmp/configs/$name.json" --quiet \
    --out "$tmp/$name.rounds.json" >"$tmp/$name.rounds.log" 2>&1; then
    keep_labels "$tmp/$name.rounds.json"
    "$python" "$here/compare.py" "$tmp/$name.plain.json" "$tmp/$name.rounds.json" 3 || fail "$name: in rounds, differs"
  else
    fail "$name: in rounds of 64 bytes"; cat "$tmp/$name.rounds.log"
  fi
done

# 64-bit link offsets (ITERCL_PAGERANK_WIDE_OFFSETS=1 builds any graph's kernels as a graph past 2^31 links
# has them) over 3 ranks: a file's weighted rows scattered from rank 0, an R-MAT drawn in parts.
for name in pagerank_weighted_csr_adaptive pagerank_weighted_last_bsr_degree_double pagerank_rmat_simple_degree_double; do
  if ITERCL_PAGERANK_WIDE_OFFSETS=1 mpirun 3 -x ITERCL_PAGERANK_WIDE_OFFSETS "$itercl" run "$tmp/configs/$name.json" \
    --quiet --out "$tmp/$name.wide.json" >"$tmp/$name.wide.log" 2>&1; then
    "$python" "$here/compare.py" "$tmp/$name.plain.json" "$tmp/$name.wide.json" 3 || fail "$name: wide offsets, differs"
    grep -q 'OFFSET=long' "$tmp/$name.wide.json" || fail "$name: not built with 64-bit offsets"
  else
    fail "$name: with 64-bit offsets"; cat "$tmp/$name.wide.log"
  fi
done

# Points in chunks on each rank's device: streamed under ITERCL_DEVICE_MEMORY (16,000 bytes: a rank's
# 1,500 labels and two chunks of 320 points, not all 1,500), kept under ITERCL_MAX_ALLOCATION (a rank's
# 500 weighted points in two buffers). Every value identical to the resident run over as many ranks.
for run in blobs_kmeanspp:ITERCL_DEVICE_MEMORY=16000:streamed blobs_kmeanspp_device:ITERCL_DEVICE_MEMORY=16000:streamed \
  npy_kmeanspp_weighted:ITERCL_MAX_ALLOCATION=4100:kept; do
  IFS=: read -r name limit how <<<"$run"
  if ! (export "${limit?}" && mpirun 2 -x "${limit%%=*}" "$itercl" run "$tmp/configs/$name.$how.json.txt" --quiet \
    --out "$tmp/$name.np2.$how.json" >"$tmp/$name.$how.log" 2>&1); then
    fail "$name: -np 2, $how, exited"; cat "$tmp/$name.$how.log"; continue
  fi
  keep_labels "$tmp/$name.np2.$how.json"
  "$python" "$here/compare.py" "$tmp/$name.np2.json" "$tmp/$name.np2.$how.json" 2 "$how" ||
    fail "$name: -np 2, $how, differs from the resident run"
done

# Rows held as they come against the same values held in double (float64 .npy files): a float32 .npy
# read as float gives every value of its float64 copy, on one rank, and within tolerance::ranks_objective
# over 2 and 3 with each rank's points kept in chunks under ITERCL_MAX_ALLOCATION (chunks checked against
# the resident run over as many ranks); a float run's generated points, drawn in float, give the labels
# and iterations of the same points in double, inertia and centroids within tolerance::objective(float).
for name in npy_kmeanspp_weighted blobs_kmeanspp; do
  "$itercl" run "$tmp/configs/$name.f64.json.txt" --quiet >/dev/null || fail "$name: points held in double"
  keep_labels "$tmp/$name.f64.json"
done
"$python" "$here/compare.py" "$tmp/npy_kmeanspp_weighted.f64.json" "$tmp/npy_kmeanspp_weighted.plain.json" 1 ||
  fail "float32 .npy held as float differs from its float64 copy"
"$python" "$here/compare.py" "$tmp/blobs_kmeanspp.f64.json" "$tmp/blobs_kmeanspp.plain.json" 1 held ||
  fail "blobs drawn in float differ from the same blobs in double"
for p in 1 2 3; do
  kept="$tmp/npy_kmeanspp_weighted.np$p.kept.json"
  [ "$p" = 2 ] || ITERCL_MAX_ALLOCATION=4100 mpirun "$p" -x ITERCL_MAX_ALLOCATION "$itercl" run \
    "$tmp/configs/npy_kmeanspp_weighted.kept.json.txt" --quiet --out "$kept" >/dev/null || fail "kept, -np $p"
  [ "$p" = 2 ] || keep_labels "$kept"
  "$python" "$here/compare.py" "$tmp/npy_kmeanspp_weighted.np$p.json" "$kept" "$p" kept ||
    fail "float32 .npy, -np $p, kept in chunks, differs from the resident run"
  "$python" "$here/compare.py" "$tmp/npy_kmeanspp_weighted.f64.json" "$kept" "$p" ||
    fail "float32 .npy, -np $p, kept in chunks, differs from its float64 copy on one rank"
done

# delta cut into several buffers, each within 50,001 bytes (no whole number of rows): the one-buffer plain
# run's embedding, iterations and stress bit for bit on one process, within tolerance::ranks_stress over
# ranks (packed: tolerance::ranks_packed), as above; packed, each rank cuts its slices into buffers.
export ITERCL_MAX_ALLOCATION=50001
buffers() {  # results file, the fewest buffers its rank 0 must have cut delta into
  "$python" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["kernel"]["delta_buffers"] < int(sys.argv[2]))' "$@"
}
for config in "$tmp"/configs/smacof_split_*.json; do
  name=$(basename "$config" .json)
  if "$itercl" run "$config" --quiet --out "$tmp/$name.cut.json" >/dev/null; then
    "$python" "$here/compare.py" "$tmp/$name.plain.json" "$tmp/$name.cut.json" 1 || fail "$name: cut differs"
    buffers "$tmp/$name.cut.json" 3 || fail "$name: not cut into 3 buffers or more"
  else
    fail "$name: plain run, cut"
  fi
  for p in 2 3; do
    if ! mpirun "$p" -x ITERCL_MAX_ALLOCATION "$itercl" run "$config" --quiet --out "$tmp/$name.cut.np$p.json" \
      >"$tmp/$name.cut.np$p.log" 2>&1; then
      fail "$name: cut, -np $p exited $?"; cat "$tmp/$name.cut.np$p.log"; continue
    fi
    "$python" "$here/compare.py" "$tmp/$name.plain.json" "$tmp/$name.cut.np$p.json" "$p" || fail "$name: cut, -np $p differs"
    buffers "$tmp/$name.cut.np$p.json" 2 || fail "$name: -np $p, rank 0's block not cut"
  done
done
unset ITERCL_MAX_ALLOCATION

# One device spec per rank: a list in the config, or --device with commas.
if mpirun 2 "$itercl" run "$tmp/configs/device_list.json.txt" --quiet --out "$tmp/listed.np2.json" >/dev/null; then
  keep_labels "$tmp/listed.np2.json"
  "$python" "$here/compare.py" "$tmp/blobs_kmeanspp.plain.json" "$tmp/listed.np2.json" 2 || fail "device list differs"
else
  fail "device list in the config"
fi
if mpirun 2 "$itercl" run "$blobs" --quiet --device cpu,0:0 --out "$tmp/commas.np2.json" >/dev/null; then
  keep_labels "$tmp/commas.np2.json"
  "$python" "$here/compare.py" "$tmp/blobs_kmeanspp.plain.json" "$tmp/commas.np2.json" 2 || fail "--device a,b differs"
else
  fail "--device cpu,0:0"
fi

# An error on rank 1 alone (its device spec), on every rank (a parameter), an algorithm not spread yet:
# exit code 2 (MPI_Abort's code, passed through by mpirun), the message, no results file.
expect_error() {  # what, expected message, mpirun arguments... ($code: the exit code expected, 2 unless set)
  local what=$1 message=$2 expected=${code:-2}
  shift 2
  local rc=0
  mpirun "$@" >"$tmp/error.log" 2>&1 || rc=$?
  if [ "$rc" -ne "$expected" ]; then fail "$what: exit code $rc, expected $expected"; cat "$tmp/error.log"; fi
  grep -q -- "$message" "$tmp/error.log" || { fail "$what: no message '$message'"; cat "$tmp/error.log"; }
  if [ -e "$tmp/error.json" ]; then fail "$what: left a results file"; fi
  rm -f "$tmp/error.json"
}
expect_error "device list, rank 1 wrong" "rank 1: error: $blobs: device 'no-such-device'" \
  2 "$itercl" run "$blobs" --quiet --out "$tmp/error.json" --device cpu,no-such-device
expect_error "device list, wrong length" "a list gives one spec per rank: 2 specs" \
  3 "$itercl" run "$blobs" --quiet --out "$tmp/error.json" --device cpu,cpu
# Ranks started with different configs (mpirun A : B): float against double hung, other data gave wrong
# labels; every rank now ends with exit 2, naming the rank.
expect_error "ranks with different configs" "config: rank 1 of 2 started with another config than rank 0's" \
  1 "$itercl" run "$blobs" --quiet --out "$tmp/error.json" : -np 1 "$itercl" run "$blobs" --quiet --out "$tmp/error.json" \
  --precision double
expect_error "a bad parameter on every rank" "n_clusters" \
  2 "$itercl" run "$tmp/configs/bad_params.json.txt" --quiet --out "$tmp/error.json"
expect_error "PageRank, ell over two ranks" "params.format: ell pads every row" \
  2 "$itercl" run "$tmp/configs/pagerank_ell.json.txt" --quiet --out "$tmp/error.json"
expect_error "PageRank, a node not in the graph (read by rank 0 alone)" "rank 0: error: .*personalization: node 9999" \
  3 "$itercl" run "$tmp/configs/pagerank_bad_node.json.txt" --quiet --out "$tmp/error.json"
expect_error "PageRank, rank 1's device" "rank 1: error: .*device 'no-such-device'" \
  2 "$itercl" run "$tmp/configs/pagerank_bsr_degree.json" --quiet --out "$tmp/error.json" --device cpu,no-such-device
expect_error "SMACOF from a CSV matrix over two ranks" "each rank reads its rows of a .npy file" \
  2 "$itercl" run "$source_dir/examples/smacof-eurodist.json" --quiet --out "$tmp/error.json"
expect_error "K-Means, a NaN in the last rank's rows of a .npy file" "rank 2: error: .*element (990, 2) is not finite" \
  3 "$itercl" run "$tmp/configs/kmeans_bad_row.json.txt" --quiet --out "$tmp/error.json"
expect_error "SMACOF, a bad value in the last rank's rows" "rank 2: error: .*(156, 0) is -1" \
  3 "$itercl" run "$tmp/configs/smacof_bad_row.json.txt" --quiet --out "$tmp/error.json"
expect_error "SMACOF, a rank's block of 400,000 points" "block of 200000 x 400000 dissimilarities needs" \
  2 "$itercl" run "$tmp/configs/smacof_huge_block.json.txt" --quiet --out "$tmp/error.json"
# 180,000 bytes of device memory hold 128 of the 301 rows (and the embedding): 2 ranks are too few in full
# storage, pinned; left "auto", the storage is packed (8 of the 16 slices a rank, 126,000 bytes), as
# smacof_split_packed's plain run.
export ITERCL_DEVICE_MEMORY=180000
expect_error "SMACOF, a rank's block beyond the device's memory" "Run on at least 3 ranks (101 rows each)" \
  2 -x ITERCL_DEVICE_MEMORY "$itercl" run "$tmp/configs/smacof_split_full.json.txt" --quiet --out "$tmp/error.json"
if mpirun 2 -x ITERCL_DEVICE_MEMORY "$itercl" run "$tmp/configs/smacof_split_vectors.json" --quiet \
  --out "$tmp/smacof_split_vectors.small.json" >"$tmp/small.log" 2>&1; then
  "$python" "$here/compare.py" "$tmp/smacof_split_packed.plain.json" "$tmp/smacof_split_vectors.small.json" 2 ||
    fail "SMACOF, packed automatically over 2 small devices, differs"
  "$python" -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["kernel"]["tuning"]["packed"])' \
    "$tmp/smacof_split_vectors.small.json" || fail "SMACOF over 2 small devices: storage not packed"
else
  fail "SMACOF, packed automatically over 2 small devices"; cat "$tmp/small.log"
fi
# 60,000 bytes: not even packed storage's 8 slices a rank (80 of the 150 columns) fit 2 ranks.
export ITERCL_DEVICE_MEMORY=60000
expect_error "SMACOF, packed slices beyond the device's memory" "8 of the 16 slices of packed delta (80 of its 150 .*or 4 with packed" \
  2 -x ITERCL_DEVICE_MEMORY "$itercl" run "$tmp/configs/smacof_split_packed.json" --quiet --out "$tmp/error.json"
unset ITERCL_DEVICE_MEMORY
expect_error "SMACOF weights over two ranks" "params.weights: weighted SMACOF" \
  2 "$itercl" run "$tmp/configs/smacof_weights.json.txt" --quiet --out "$tmp/error.json"
expect_error "SMACOF classical start from dissimilarities over two ranks" "params.init: the classical start" \
  2 "$itercl" run "$tmp/configs/smacof_classical_npy.json.txt" --quiet --out "$tmp/error.json"
expect_error "SMACOF packed storage of a file over two ranks" "params.kernel.packed: over several MPI ranks packed" \
  2 "$itercl" run "$tmp/configs/smacof_packed_npy.json.txt" --quiet --out "$tmp/error.json"
# An output that can never be written (on /proc) is refused up front by rank 0: exit code 2 from every rank.
expect_error "results folder impossible" "is on /proc's file system" \
  2 "$itercl" run "$blobs" --quiet --out /proc/no-such-folder/error.json

# Every file the ranks wrote together was published: no temporary is left beside the outputs.
leftover=$(find "$tmp" -name '*.tmp-*' | head -3)
[ -z "$leftover" ] || fail "temporary files left: $leftover"

# mpirun -np 1 is a plain run: no "mpi" in the results.
"$python" -c 'import json, sys; sys.exit("mpi" in json.load(open(sys.argv[1])))' "$tmp/blobs_kmeanspp.np1.json" ||
  fail "-np 1 recorded \"mpi\""

if [ "$failures" -ne 0 ]; then
  echo "$failures failures"
  exit 1
fi
echo "mpi: all runs agree"
