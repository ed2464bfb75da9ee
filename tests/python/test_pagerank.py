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
    W.add_edge(0, 1, weight=-2.5)
    with pytest.raises(ValueError, match="finite and >= 0, found -2.5"):
        itercl.pagerank(W)
    assert itercl.pagerank(W, weight=None) == pytest.approx(nx.pagerank(W, weight=None), abs=2e-6)
    W.add_edge(1, 2, weight="heavy")
    with pytest.raises(ValueError, match="'heavy'"):
        itercl.pagerank(W)
    with pytest.raises(ValueError, match="3 weights for 2 edges"):
        itercl.pagerank((np.array([0, 1]), np.array([1, 2]), np.ones(3)))
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



def weighted_multidigraph(seed):
    """Weighted links as an analyst's graph has them: parallel links, self-loops, links of weight 0 (one
    node's only out-link among them: it dangles), edges with no weight attribute (weight 1), and dangling
    nodes."""
    rng = np.random.default_rng(seed)
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(80))
    for _ in range(400):
        u, v = (int(x) for x in rng.integers(0, 70, 2))
        w = float(rng.choice([0.0, 0.25, 1.0, 3.0, 10.0]))
        if rng.random() < 0.1:
            G.add_edge(u, v)  # no attribute: weighs 1, as in networkx
        else:
            G.add_edge(u, v, weight=w)
    G.add_edge(5, 5, weight=4.0)
    G.add_edge(5, 5, weight=2.0)  # a parallel self-loop
    G.add_edge(75, 76, weight=0.0)  # 75's only link weighs 0: dangling; 76 stays a node
    return G


@pytest.mark.parametrize("fmt", itercl._itercl.pagerank_formats())
def test_weighted_multigraph_as_networkx(fmt, fp64):
    G = weighted_multidigraph(7)
    ref = nx.pagerank(G, tol=1e-13)
    kernel = {"ell_max_fill": 1000} if fmt == "ell" else None
    if fp64:
        close(itercl.pagerank(G, tol=1e-13, format=fmt, kernel=kernel, precision="double"), ref, 1e-11)
    close(itercl.pagerank(G, tol=1e-8, format=fmt, kernel=kernel), ref, 2e-6)


def test_weighted_digraph_its_matrix_and_edge_arrays_as_networkx(fp64):
    precision = "double" if fp64 else "float"
    atol = 1e-11 if fp64 else 2e-6
    M = weighted_multidigraph(8)
    # The same links as a DiGraph: networkx keeps one weight per repeated edge
    D = nx.DiGraph()
    D.add_nodes_from(M)
    D.add_edges_from(M.edges(data=True))
    ref = nx.pagerank(D, tol=1e-13)
    close(itercl.pagerank(D, tol=1e-13, precision=precision), ref, atol)
    # The sparse matrix networkx makes of it (its entries the weights, zeros kept as no links), and the
    # edge arrays with a weight each
    A = nx.to_scipy_sparse_array(D)
    as_array = np.array([ref[n] for n in D])
    np.testing.assert_allclose(itercl.pagerank(A, tol=1e-13, precision=precision), as_array, atol=atol, rtol=0)
    src, dst, w = (np.array(x) for x in zip(*[(u, v, d.get("weight", 1)) for u, v, d in D.edges(data=True)]))
    np.testing.assert_allclose(itercl.pagerank((src, dst, w), tol=1e-13, n_nodes=80, precision=precision), as_array,
                               atol=atol, rtol=0)
    # weight=None: every link weighs 1, as networkx's
    close(itercl.pagerank(D, weight=None, tol=1e-13, precision=precision), nx.pagerank(D, weight=None, tol=1e-13),
          atol)


def test_weighted_personalization_dangling_and_graph_kept_on_device(fp64):
    precision = "double" if fp64 else "float"
    atol = 1e-11 if fp64 else 2e-6
    G = weighted_multidigraph(9)
    for u, v, d in G.edges(data=True):
        d["cost"] = 1 + (u * 7 + v) % 5  # another attribute: weight= names it
    p = {n: 1 + n % 4 for n in G if n % 3}
    dangling = {75: 1.0, 3: 2.0}
    for weight in ("weight", "cost"):
        ref = nx.pagerank(G, alpha=0.8, personalization=p, dangling=dangling, weight=weight, tol=1e-13)
        close(itercl.pagerank(G, alpha=0.8, personalization=p, dangling=dangling, weight=weight, tol=1e-13,
                              precision=precision), ref, atol)
        kept = itercl.PageRankGraph(G, alpha=0.8, dangling=dangling, weight=weight, tol=1e-13, precision=precision)
        close(kept.pagerank(personalization=p), ref, atol)
