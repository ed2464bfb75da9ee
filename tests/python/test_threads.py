"""Resident objects (PageRankGraph, SmacofDissimilarities) from several threads, and before any start
(issue 34): calls run one at a time on each object and give what they give alone; step() and the current
iterate before start() raise."""

import threading

import networkx as nx
import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

import itercl


def in_threads(calls):
    """Runs each call in its own thread, all released at once; returns their results in order."""
    results, errors = [None] * len(calls), []
    barrier = threading.Barrier(len(calls))

    def work(i):
        barrier.wait()
        try:
            results[i] = calls[i]()
        except Exception as e:  # noqa: BLE001 - the test reports every thread's failure
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_pagerank_graph_from_threads_gives_each_personalization_its_ranks():
    G = nx.gnp_random_graph(200, 0.03, directed=True, seed=3)
    graph = itercl.PageRankGraph(G, tol=1e-8)
    seeds = [{n: 1} for n in range(8)]
    alone = [graph.pagerank(personalization=p) for p in seeds]
    for _ in range(3):
        together = in_threads([lambda p=p: graph.pagerank(personalization=p) for p in seeds])
        for a, b in zip(alone, together):
            assert a == b
    ref = nx.pagerank(G, personalization=seeds[5], tol=1e-10)
    np.testing.assert_allclose([alone[5][n] for n in G], [ref[n] for n in G], atol=2e-6)


def test_smacof_dissimilarities_from_threads_gives_each_start_its_embedding():
    g = np.random.default_rng(2)
    D = squareform(pdist(g.normal(size=(30, 3))))
    resident = itercl.SmacofDissimilarities(D, max_iter=10, eps=0)
    starts = [g.uniform(size=(30, 2)) for _ in range(6)]
    alone = [resident.smacof(x0)[0] for x0 in starts]
    together = in_threads([lambda x0=x0: resident.smacof(x0)[0] for x0 in starts])
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(a, b)


def test_step_and_iterate_before_start_raise():
    graph = itercl.PageRankGraph(nx.gnp_random_graph(20, 0.2, directed=True, seed=1))
    with pytest.raises(ValueError, match="call start"):
        graph.step()
    with pytest.raises(ValueError, match="call start"):
        graph.ranks()
    graph.start()
    assert graph.step() > 0
    resident = itercl.SmacofDissimilarities(squareform(pdist(np.random.default_rng(1).normal(size=(10, 2)))))
    with pytest.raises(ValueError, match="call start"):
        resident.step()
    with pytest.raises(ValueError, match="call start"):
        resident.embedding()
