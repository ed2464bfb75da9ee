"""Data kept on the device across calls (PageRankGraph), nstart, and cancelling from Python (a callback
that raises, Ctrl-C), against networkx and scikit-learn."""

import _thread

import networkx as nx
import numpy as np
import pytest

import itercl


@pytest.fixture(scope="module")
def digraph():
    G = nx.gnp_random_graph(80, 0.03, directed=True, seed=1)
    assert any(G.out_degree(n) == 0 for n in G), "the test wants dangling nodes"
    return nx.relabel_nodes(G, {n: f"v{n}" for n in G})


def close(ours, ref, atol):
    assert list(ours) == list(ref)
    np.testing.assert_allclose([ours[k] for k in ref], [ref[k] for k in ref], atol=atol, rtol=0)


def test_nstart_is_networkx_start(digraph, fp64):
    nodes = list(digraph)
    start = {n: (i % 5) + 0.5 for i, n in enumerate(nodes)}
    precision, atol = ("double", 1e-12) if fp64 else ("float", 2e-6)
    # Three iterations without a stopping rule: the iterates still depend on the start.
    ours = itercl.pagerank(digraph, max_iter=3, tol=0, nstart=start, precision=precision)
    G = nx.DiGraph(digraph)
    x = np.array([start[n] for n in nodes]) / sum(start.values())
    A = nx.to_numpy_array(G, nodelist=nodes)
    out = A.sum(axis=1)
    for _ in range(3):  # networkx's iteration, written out (nx.pagerank raises without convergence)
        dangling = x[out == 0].sum()
        x = 0.85 * (x / np.where(out > 0, out, 1) @ A + dangling / len(nodes)) + 0.15 / len(nodes)
    close(ours, dict(zip(nodes, x)), atol)
    uniform = itercl.pagerank(digraph, max_iter=3, tol=0, precision=precision)
    assert max(abs(uniform[n] - ours[n]) for n in nodes) > 10 * atol  # so the check above can fail
    # Converged, the start no longer matters: networkx's own answer.
    close(itercl.pagerank(digraph, nstart=start, tol=1e-10), nx.pagerank(digraph, nstart=start, tol=1e-10), 2e-5)


def test_graph_batch_of_personalizations_equals_separate_calls(digraph):
    graph = itercl.PageRankGraph(digraph, alpha=0.8, tol=1e-10)
    nodes = list(digraph)
    rng = np.random.default_rng(3)
    for k in range(4):
        p = {n: float(v) for n, v in zip(nodes, rng.uniform(0, 1, len(nodes)) * (rng.uniform(size=len(nodes)) < 0.5))}
        ours = graph.pagerank(personalization=p)
        close(ours, itercl.pagerank(digraph, alpha=0.8, personalization=p, tol=1e-10), 1e-7)
        close(ours, nx.pagerank(digraph, alpha=0.8, personalization=p, tol=1e-10), 2e-5)


def test_graph_steps_equal_the_full_run_with_arrays(digraph):
    A = nx.to_scipy_sparse_array(digraph)
    graph = itercl.PageRankGraph(A, tol=1e-10)
    full = graph.pagerank()
    graph.start()
    n_iter = 0
    while graph.step() >= graph.n_nodes * 1e-10:
        n_iter += 1
        assert n_iter < 100
    np.testing.assert_array_equal(graph.ranks(), full)
    np.testing.assert_allclose(full, list(nx.pagerank(digraph, tol=1e-10).values()), atol=2e-5)
    with pytest.raises(ValueError, match="nstart: expected 80 values"):
        graph.start(nstart=np.ones(3))


def test_callback_sees_every_iteration_and_its_exception_stops_the_run(digraph):
    seen = []

    def callback(event):
        seen.append((event["iteration"], event["objective"]))
        if event["iteration"] == 4:
            raise StopIteration("enough")

    with pytest.raises(StopIteration, match="enough"):
        itercl.pagerank(digraph, tol=0, callback=callback)
    assert [i for i, _ in seen] == [1, 2, 3, 4]
    assert all(change > 0 for _, change in seen)


@pytest.mark.parametrize("where", ["pagerank", "graph", "smacof"])
def test_ctrl_c_during_a_run_raises_keyboard_interrupt(digraph, where):
    calls = []

    def interrupt_at_3(event):
        calls.append(event["iteration"])
        if len(calls) == 3:
            _thread.interrupt_main()  # as Ctrl-C: a pending SIGINT, seen by the next signal check

    with pytest.raises(KeyboardInterrupt):
        if where == "pagerank":
            itercl.pagerank(digraph, tol=0, callback=interrupt_at_3)
        elif where == "graph":
            itercl.PageRankGraph(digraph, tol=0).pagerank(callback=interrupt_at_3)
        else:
            X = np.random.default_rng(1).normal(size=(30, 3))
            D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
            itercl.smacof(D, eps=0, max_iter=50, n_init=2, callback=interrupt_at_3)
    assert len(calls) == 3  # stopped at the iteration that saw the signal
