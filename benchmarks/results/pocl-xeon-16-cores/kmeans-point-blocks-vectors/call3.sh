#!/usr/bin/env bash
# Issue 13, K-Means on PoCL 5.0 on the H200 machine's 16 Xeon cores against scikit-learn on the same cores.
#   base  main (62ddc4a): point_blocks as unrolled loops over the points, for the compiler to vectorise
#   pb    point_blocks with the points held as float16 vectors (the change under test)
#   pb8   the same with float8 vectors
# N = 1,048,576 uniform points, D = 4, K = 300, float, 10 iterations, update on the host; median iteration
# (kernel and wall); three rounds, binaries interleaved; scikit-learn's Lloyd (all cores) once a round.
set -u
mkdir -p /tmp/k
nproc; lscpu | grep -i "model name"; clinfo -l 2>/dev/null | head
km() {
cat > /tmp/k/c.json <<JSON
{"name": "km", "algorithm": "kmeans", "device": "cpu", "precision": "float",
 "data": {"generator": "uniform", "n_features": 4, "n_samples": 1048576, "random_state": 1},
 "params": {"n_clusters": 300, "init": "random", "n_init": 1, "max_iter": 10, "tol": 0, "random_state": 2,
            "kernel": $1}, "output": "/tmp/k/o.json"}
JSON
}
show() { python3 -c 'import json,sys; r=json.load(open("/tmp/k/o.json")); t=r["timings"]["median_iteration"]; o=r["kernel"].get("build_options",""); print(sys.argv[1], "kernel %.2f wall %.2f ms" % (t["kernel_ms"], t["wall_ms"]), r["kernel"].get("variant"), o[o.find("-D DIM"):], "inertia %r" % r["result"]["inertia"], r["device"]["name"] if isinstance(r["device"], dict) else r["device"])' "$1"; }
run() { km "$2"; timeout 90 .gpu/itercl.$1 run /tmp/k/c.json --quiet --out /tmp/k/o.json >/dev/null 2>/tmp/k/err && show "$1 $2" || { echo "$1 $2 FAILED"; tail -3 /tmp/k/err; }; }
for rep in 1 2 3; do
  echo "== round $rep $(date +%T)"
  run base '{"update": "host"}'
  for b in base pb pb8; do for rv in 64 128 256; do
    run $b "{\"update\": \"host\", \"variant\": \"point_blocks\", \"register_values\": $rv, \"work_group_size\": 64}"
  done; done
  run pb '{"update": "host", "variant": "point_blocks", "register_values": 256, "work_group_size": 256}'
  python3 -c "import sys; sys.path.insert(0, 'benchmarks/kmeans'); import peers; r = peers.sklearn_lloyd(1048576, 4, 300); print('sklearn', r['peer'], '%.2f ms per iteration' % r['ms'])"
done
echo "== end $(date +%T)"
