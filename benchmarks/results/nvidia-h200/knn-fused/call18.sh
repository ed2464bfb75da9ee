#!/usr/bin/env bash
# k nearest on the H200, fourth call: the lists kept out of registers (insertion loop rolled; this binary)
# against call 17's (lists unrolled into registers), over tilings at n = 200,000, d = 64, k = 10, float;
# ptxas -v on both builds' PTX for registers and stack.
set -u
mkdir -p /etc/OpenCL/vendors && echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
mkdir -p $OUT/r /tmp/k
cfg() {  # n kernel-json out
cat > /tmp/k/c.json <<JSON
{"name": "knn", "algorithm": "pairwise_distances", "device": "gpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 64, "n_samples": $1, "random_state": 1},
 "params": {"metric": "euclidean", "form": "knn", "k": 10, "kernel": $2}, "output": "$3"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open(sys.argv[2])); t=r["timings"]["total"]; print(sys.argv[1], "kernel %.2f wall %.2f ms" % (t["kernel_ms"], t["wall_ms"]))' "$1" "$2"; }
run() {  # label binary n kernel out
  cfg $3 "$4" $5; timeout 120 $2 run /tmp/k/c.json --quiet --out $5 > /dev/null 2>$OUT/r/err.txt && show "$1" $5 || { echo "$1 FAILED"; tail -3 $OUT/r/err.txt; }
}
tile() { echo "{\"knn\": \"fused\", \"knn_tile_rows\": $1, \"knn_tile_cols\": $2, \"knn_subtiles\": $3, \"knn_cols_per_item\": $4, \"knn_slice\": $5}"; }
PTXAS=$(find / -name ptxas -type f 2>/dev/null | head -1); echo "ptxas: $PTXAS"
for b in call17 new; do  # "new": the rolled build
  bin=.gpu/itercl; [ $b = call17 ] && bin=.gpu/itercl.call17
  rm -rf ~/.cache/itercl
  run "$b 32 8 4 8 8" $bin 200000 "$(tile 32 8 4 8 8)" /tmp/k/t.json
  for f in ~/.cache/itercl/*.bin; do
    python3 - "$f" /tmp/k/$b-$(basename $f .bin).ptx <<'PY'
import sys
b=open(sys.argv[1],'rb').read(); i=b.find(b'.version'); open(sys.argv[2],'wb').write(b[i:].rstrip(b'\0'))
PY
  done
  for p in /tmp/k/$b-*.ptx; do grep -q knn_fused $p && { echo "$b ptxas:"; [ -n "$PTXAS" ] && $PTXAS -arch=sm_90 -v $p -o /dev/null 2>&1 | grep -i "registers\|spill\|stack\|local" | head -6; grep -c "\.local" $p; }; done
done
for t in "32 8 4 8 8" "16 8 4 8 8" "32 8 4 8 4" "32 8 8 8 8" "16 16 8 8 8" "16 16 4 4 8" "32 8 8 4 8" "16 8 8 8 8" "32 8 4 4 8"; do
  run "call17 $t" .gpu/itercl.call17 200000 "$(tile $t)" /tmp/k/t.json
  run "new $t" .gpu/itercl 200000 "$(tile $t)" /tmp/k/t.json
done
run "new 32 8 4 8 8 again" .gpu/itercl 200000 "$(tile 32 8 4 8 8)" /tmp/k/t.json
echo "== end $(date +%T)"
