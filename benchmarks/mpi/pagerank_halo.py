#!/usr/bin/env python3
"""The halo of PageRank over P ranks (issue 33): how many entries of z each rank's in-links read from other
ranks, against the allgather of the whole z that the ranks do today, from 2 to 1,024 ranks.

    benchmarks/mpi/pagerank_halo.py --scale 20 --ranks 2,4,8,...,1024 [--measured RESULTS.json ...]

The graph is R-MAT with itercl's parameters (edge factor 16, a b c = 0.57 0.19 0.19), drawn here with NumPy
(the same distribution as itercl's generator, not the same edges), renumbered by out-degree, largest first,
and cut into blocks of rows balanced by links, as itercl's degree order and link_balanced_rows do
(--spread: also with the degree order dealt round-robin over the ranks before the cut, the relabelling
that spreads the hubs). For each
P it prints, per rank (largest and mean): the remote entries its in-links read (what a halo exchange
receives), the entries of its rows other ranks read, counted once per reading rank (what it sends), and
the bytes of each in float, against the allgather's (its n / P rows to each of the P - 1 others).
--measured: results files of `mpirun -np P itercl run` (result.exchange, measured by the library at load),
printed beside the prediction for their P: the check that this count is the library's.
"""
import argparse
import json

import numpy as np


def rmat(scale, edge_factor, rng, a=0.57, b=0.19, c=0.19):
    m = edge_factor << scale
    src = np.zeros(m, dtype=np.int64)
    dst = np.zeros(m, dtype=np.int64)
    for level in range(scale):
        r = rng.random(m)
        down = r >= a + b  # quadrants c and d: the source's bit
        right = ((r >= a) & (r < a + b)) | (r >= a + b + c)  # quadrants b and d: the destination's bit
        src |= down.astype(np.int64) << level
        dst |= right.astype(np.int64) << level
    return src, dst


def halo(src, dst, n, ranks, spread):
    """(remote entries per rank, entries sent per rank, rows per rank) for the degree order and the
    link-balanced cut over `ranks`; `spread`: the degree order dealt round-robin first (node k of the
    degree order to block k mod P), so that every rank holds some of the hubs."""
    out_degree = np.bincount(src, minlength=n)
    order = np.argsort(-out_degree, kind="stable")  # new id -> old id, largest out-degree first
    if spread:
        order = np.concatenate([order[r::ranks] for r in range(ranks)])
    new_id = np.empty(n, dtype=np.int64)
    new_id[order] = np.arange(n)
    s, d = new_id[src], new_id[dst]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(d, minlength=n))])
    total = offsets[-1]
    bounds = np.searchsorted(offsets[:n], total * np.arange(ranks) // ranks, side="left")
    bounds = np.append(bounds, n)
    owner_of_row = np.searchsorted(bounds, np.arange(n), side="right") - 1
    reader, source = owner_of_row[d], s
    remote = owner_of_row[source] != reader
    # Each (reading rank, source) pair once: what the reader receives, and what the source's owner sends.
    pairs = np.unique(reader[remote] * n + source[remote])
    readers, sources = pairs // n, pairs % n
    received = np.bincount(readers, minlength=ranks)
    sent = np.bincount(owner_of_row[sources], minlength=ranks)
    return received, sent, np.diff(bounds)


def size(b):
    return f"{b / 1e6:.2f} MB" if b >= 1e5 else f"{b / 1e3:.2f} kB"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--ranks", default="2,4,8,16,32,64,128,256,512,1024")
    ap.add_argument("--value-bytes", type=int, default=4, help="4: float, 8: double")
    ap.add_argument("--measured", nargs="*", default=[])
    ap.add_argument("--spread", action="store_true", help="also the hubs dealt round-robin over the ranks")
    args = ap.parse_args()
    n = 1 << args.scale
    src, dst = rmat(args.scale, args.edge_factor, np.random.default_rng(1))
    measured = {}
    for path in args.measured:
        ex = json.load(open(path))["result"]["exchange"]
        measured[len(ex["remote_entries_per_rank"])] = ex
    vb = args.value_bytes
    print(f"R-MAT {args.scale}: n = {n}, m = {len(src)}; per rank per iteration, in {vb}-byte values")
    print("| P | remote entries read, max (mean; of n) | received: halo, allgather | sent, max: halo, allgather |")
    print("| --- | --- | --- | --- |")
    for p, spread in ((int(x), s) for x in args.ranks.split(",") for s in ([False, True] if args.spread else [False])):
        received, sent, rows = halo(src, dst, n, p, spread)
        print(f"| {p}{', spread' if spread else ''} | {received.max():,} ({received.mean():,.0f}; {received.max() / n:.1%}) | "
              f"{size(received.max() * vb)}, {size((n - rows.min()) * vb)} | "
              f"{size(sent.max() * vb)}, {size(rows.max() * (p - 1) * vb)} |")
        if p in measured and not spread:
            ex = measured[p]
            remote = max(ex["remote_entries_per_rank"])
            print(f"| {p}, measured by itercl (its own draw) | {remote:,} ({remote / n:.1%}) | {size(remote * vb)} | "
                  f"{size(max(ex['bytes_sent_per_rank']))}, {size(max(ex['allgather_bytes_per_rank']))} |")


if __name__ == "__main__":
    main()
