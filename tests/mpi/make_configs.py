"""Writes the K-Means configs of mpi_test.sh into OUT/configs, each with its outputs in OUT."""
import json
import os
import sys

here, out = os.path.abspath(sys.argv[1]), sys.argv[2]
os.makedirs(os.path.join(out, "configs"), exist_ok=True)

# 7 points in 2 clusters, one far centroid given: an empty cluster to relocate in the first iteration;
# weights, one of them zero (never relocated). -np 3 splits them 2, 2, 3.
small = [[0, 0], [0.5, 0.2], [0.1, 0.9], [5, 5], [5.5, 5.1], [4.8, 5.3], [9, 0.5]]
with open(os.path.join(out, "small.txt"), "w") as f:
    f.write("".join(f"{x} {y}\n" for x, y in small))
with open(os.path.join(out, "tiny.txt"), "w") as f:
    f.write("0 0\n10 10\n")  # 2 points: -np 3 leaves rank 0 without rows

blobs = {"generator": "blobs", "n_samples": 3001, "n_features": 3, "centers": 5, "random_state": 1}
configs = {
    "blobs_kmeanspp": {"data": blobs, "params": {"n_clusters": 6, "init": "k-means++", "random_state": 3}},
    "blobs_random_double": {"precision": "double", "data": dict(blobs, n_samples=2000, centers=4),
                            "params": {"n_clusters": 8, "init": "random", "random_state": 7}},
    "text_s1": {"data": {"path": os.path.join(here, "..", "..", "datasets", "uef", "s1.data.gz")},
                "params": {"n_clusters": 15, "n_init": 2, "random_state": 0}},
    "small_relocate_weighted": {
        "precision": "double", "data": {"path": os.path.join(out, "small.txt")},
        "params": {"n_clusters": 3, "init": [[0, 0], [5, 5], [100, 100]],
                   "sample_weight": [1, 2, 1, 1, 0.5, 1, 0], "random_state": 0}},
    "small_relocate_kmeanspp": {"data": {"path": os.path.join(out, "small.txt")},
                                "params": {"n_clusters": 4, "random_state": 11}},
    "tiny_empty_rank": {"precision": "double", "data": {"path": os.path.join(out, "tiny.txt")},
                        "params": {"n_clusters": 2, "init": "random", "random_state": 5}},
}
# The same runs with the update on the device (each rank's per-cluster sums reduced by its device): the
# CPU's default is the host's update (tuning/kmeans.json).
for name in ("blobs_kmeanspp", "small_relocate_weighted", "tiny_empty_rank"):
    c = json.loads(json.dumps(configs[name]))
    c["params"]["kernel"] = {"update": "device"}
    configs[name + "_device"] = c
for name, c in configs.items():
    config = {"algorithm": "kmeans", "device": "cpu", "precision": c.get("precision", "float"),
              "data": c["data"], "params": c["params"],
              "output": {"path": os.path.join(out, name + ".json"), "labels": os.path.join(out, name + ".labels.txt")}}
    with open(os.path.join(out, "configs", name + ".json"), "w") as f:
        json.dump(config, f, indent=1)

# One device spec per rank, as a JSON list: for -np 2 only (outside the *.json every P runs).
listed = dict(json.load(open(os.path.join(out, "configs", "blobs_kmeanspp.json"))), device=["cpu", "0:0"])
listed["output"] = {"path": os.path.join(out, "listed.json"), "labels": os.path.join(out, "listed.labels.txt")}
with open(os.path.join(out, "configs", "device_list.json.txt"), "w") as f:
    json.dump(listed, f)

bad = {"algorithm": "kmeans", "device": "cpu", "data": blobs, "params": {"n_clusters": 0}}
with open(os.path.join(out, "configs", "bad_params.json.txt"), "w") as f:
    json.dump(bad, f)
