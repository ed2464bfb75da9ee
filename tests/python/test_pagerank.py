import networkx as nx
import numpy as np
import pytest

import itercl


@pytest.fixture(scope="module")
def digraph():
    G = nx.gnp_random_graph(60, 0.05, directed=True, seed=4)
    assert any(G.out_degree(n) == 0 for n in G), "the test wants dangling nodes"
    return nx.relabel_nodes(G, {n: f"n{n}" for n in G})  # labels that are not indices


def close(ours, ref, atol):
    assert list(ours) == list(ref)
    np.testing.assert_allclose([ours[k] for k in ref], [ref[k] for k in ref], atol=atol, rtol=0)


def test_networkx_graph_gives_networkx_dict(digraph, fp64):
    ref = nx.pagerank(digraph, tol=1e-10)
    if fp64:
        close(itercl.pagerank(digraph, tol=1e-10, precision="double"), ref, 1e-10)
    close(itercl.pagerank(digraph), nx.pagerank(digraph), 2e-5)


def test_personalization_and_dangling(digraph):
    nodes = list(digraph)
    p = {n: i % 3 for i, n in enumerate(nodes)}
    d = {nodes[0]: 1.0, nodes[5]: 2.0}
    ref = nx.pagerank(digraph, alpha=0.7, personalization=p, dangling=d, tol=1e-10)
    close(itercl.pagerank(digraph, alpha=0.7, personalization=p, dangling=d, tol=1e-10), ref, 2e-6)


def test_sparse_matrix_and_edge_arrays_give_arrays(digraph):
    A = nx.to_scipy_sparse_array(digraph)
    ref = np.array(list(nx.pagerank(digraph, tol=1e-10).values()))
    ranks = itercl.pagerank(A, tol=1e-10)
    assert isinstance(ranks, np.ndarray)
    np.testing.assert_allclose(ranks, ref, atol=2e-6)
    np.testing.assert_allclose(itercl.pagerank(A.toarray(), tol=1e-10), ranks, atol=1e-7)
    src, dst = A.nonzero()
    np.testing.assert_allclose(itercl.pagerank((src, dst), tol=1e-10, n_nodes=60), ranks, atol=1e-7)
    assert itercl.pagerank((np.array([0]), np.array([1])), n_nodes=4).shape == (4,)


@pytest.mark.parametrize("fmt", itercl._itercl.pagerank_formats())  # the library's list, csr_adaptive among them
def test_formats_agree(digraph, fmt):
    ref = nx.pagerank(digraph, tol=1e-10)
    close(itercl.pagerank(digraph, tol=1e-10, format=fmt), ref, 2e-6)


def test_undirected_and_multigraphs_as_networkx():
    # float's rounding cannot take the L1 change below n * 1e-10 for every graph: tol 1e-8 here
    G = nx.barabasi_albert_graph(50, 2, seed=1)
    G.add_edge(3, 3)
    close(itercl.pagerank(G, tol=1e-8), nx.pagerank(G, tol=1e-10), 2e-6)
    M = nx.MultiDiGraph([(0, 1), (0, 1), (1, 2), (2, 0), (2, 3), (3, 3)])
    close(itercl.pagerank(M, tol=1e-8), nx.pagerank(M, tol=1e-10), 2e-6)
    assert itercl.pagerank(nx.DiGraph()) == {}


def test_failed_convergence_is_networkx_exception(digraph):
    with pytest.raises(nx.PowerIterationFailedConvergence) as e:
        itercl.pagerank(digraph, max_iter=2, tol=1e-12)
    assert set(e.value.ranks) == set(digraph)
    ranks = itercl.pagerank(digraph, max_iter=2, tol=0)  # tol=0 runs max_iter iterations, as the CLI
    assert sum(ranks.values()) == pytest.approx(1.0, abs=1e-5)


def test_bad_input_names_the_field(digraph):
    with pytest.raises(ValueError, match="alpha"):
        itercl.pagerank(digraph, alpha=1.5)
    with pytest.raises(ValueError, match="max_iter"):
        itercl.pagerank(digraph, max_iter=0)
    with pytest.raises(ValueError, match="personalization"):
        itercl.pagerank(digraph, personalization={"nope": 1.0})
    with pytest.raises(ValueError, match="personalization"):
        itercl.pagerank(digraph, personalization={n: 0.0 for n in digraph})
    with pytest.raises(ValueError, match="format"):
        itercl.pagerank(digraph, format="coo")
    W = nx.DiGraph()
    W.add_edge(0, 1, weight=2.5)
    with pytest.raises(ValueError, match="weight"):
        itercl.pagerank(W)
    assert itercl.pagerank(W, weight=None) == pytest.approx(nx.pagerank(W, weight=None), abs=2e-6)
    with pytest.raises(ValueError, match="n_nodes"):
        itercl.pagerank((np.array([0, 5]), np.array([1, 2])), n_nodes=3)
    with pytest.raises(ValueError, match="nstart: value 0 is -1"):
        itercl.pagerank(digraph, nstart={n: -1.0 for n in digraph})


def test_timings_on_request(digraph):
    ranks = itercl.pagerank(digraph)
    again, t = itercl.pagerank(digraph, timings=True)
    assert again == pytest.approx(ranks, abs=1e-12)
    phases = t["phases_ms"]
    assert {"graph_build", "iterations", "readback", "python"} <= set(phases)
    assert sum(phases.values()) == pytest.approx(t["time_to_solution_ms"], rel=1e-9)
    empty, t = itercl.pagerank(nx.DiGraph(), timings=True)
    assert empty == {} and t["time_to_solution_ms"] >= 0

