#!/usr/bin/env python3
"""Rank the characters of Les Miserables (networkx's co-appearance graph) with itercl.pagerank.

    build/itercl-python examples/python/pagerank_graph.py
"""
import networkx as nx

import itercl

G = nx.les_miserables_graph()
ranks = itercl.pagerank(G, weight=None)  # a dict {node: rank}, as networkx.pagerank; links unweighted

for node, rank in sorted(ranks.items(), key=lambda item: -item[1])[:10]:
    print(f"{rank:.4f}  {node}")

# The same from a SciPy sparse adjacency matrix (row = source): a NumPy array by node index.
A = nx.to_scipy_sparse_array(G, weight=None)
print("top node index:", itercl.pagerank(A, precision="double").argmax())
