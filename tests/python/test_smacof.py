import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform
from sklearn.base import clone
from sklearn.manifold import smacof as sk_smacof

import itercl


@pytest.fixture(scope="module")
def problem():
    g = np.random.default_rng(3)
    X = g.normal(size=(40, 4))
    return X, squareform(pdist(X)), g.uniform(size=(40, 2))


def stress(D, E, W=None):
    d = squareform(pdist(E))
    W = np.ones_like(D) if W is None else W
    return (W * (d - D) ** 2).sum() / 2


def reference(D, X, max_iter, eps, W=None):
    """SMACOF in double with scikit-learn 1.7's stopping rule, as docs/smacof.md states it."""
    n = len(D)
    W = np.ones_like(D) - np.eye(n) if W is None else W
    V = np.diag(W.sum(1)) - W
    Vp = np.linalg.pinv(V)
    old = None
    for it in range(1, max_iter + 1):
        d = squareform(pdist(X))
        with np.errstate(divide="ignore", invalid="ignore"):
            B = np.where(d > 0, -W * D / d, 0.0)
        np.fill_diagonal(B, 0)
        np.fill_diagonal(B, -B.sum(1))
        X = Vp @ B @ X
        s = stress(D, X, W)
        d = squareform(pdist(X))
        if old is not None and (old - s) / ((W * d * d).sum() / 2) < eps:
            break
        old = s
    return X, s, it


def sklearn_iterations(D, init, k):
    """scikit-learn's smacof run for exactly k Guttman transforms from init."""
    for eps in (-np.inf, 0.0):
        try:
            return sk_smacof(D, n_components=2, init=init, n_init=1, max_iter=k, eps=eps)[0]
        except ValueError:  # scikit-learn versions that validate eps >= 0
            continue


def test_same_iterations_as_scikit_learn(problem, fp64):
    if not fp64:
        pytest.skip("compared in double")
    X, D, init = problem
    E, s, n_iter = itercl.smacof(D, init=init, max_iter=20, eps=0, precision="double", return_n_iter=True)
    assert n_iter == 20
    np.testing.assert_allclose(E, sklearn_iterations(D, init, 20), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(s, stress(D, E), rtol=1e-9)


def test_stopping_rule_and_weights_as_the_reference(problem, fp64):
    precision = "double" if fp64 else "float"
    X, D, init = problem
    E, s, n_iter = itercl.smacof(D, init=init, max_iter=300, eps=1e-4, precision=precision, return_n_iter=True)
    ref_E, ref_s, ref_n = reference(D, init, 300, 1e-4)
    assert n_iter == ref_n
    np.testing.assert_allclose(s, ref_s, rtol=1e-4)
    np.testing.assert_allclose(E, ref_E, rtol=1e-3, atol=1e-3)
    W = np.random.default_rng(1).uniform(0.5, 2, size=D.shape)
    W = (W + W.T) / 2
    np.fill_diagonal(W, 0)
    W[0, 1] = W[1, 0] = 0  # a missing dissimilarity
    E, s = itercl.smacof(D, init=init, max_iter=30, eps=0, weights=W, precision=precision)
    ref_E, ref_s, _ = reference(D, init, 30, 0, W)
    np.testing.assert_allclose(s, ref_s, rtol=1e-4)
    np.testing.assert_allclose(E, ref_E, rtol=1e-3, atol=1e-3)


def test_mds_estimator(problem):
    X, D, init = problem
    mds = itercl.MDS(n_components=2, random_state=0, max_iter=50).fit(X, init=init)
    pre = itercl.MDS(dissimilarity="precomputed", random_state=0, max_iter=50).fit(D, init=init)
    np.testing.assert_allclose(mds.embedding_, pre.embedding_, rtol=1e-3, atol=1e-3)
    assert mds.embedding_.shape == (40, 2) and mds.n_iter_ == pre.n_iter_ <= 50
    np.testing.assert_allclose(mds.stress_, stress(D, mds.embedding_), rtol=1e-3)
    np.testing.assert_allclose(mds.dissimilarity_matrix_, D, rtol=1e-5, atol=1e-5)
    normalized = itercl.MDS(random_state=0, max_iter=50, normalized_stress=True).fit(X, init=init)
    d = pdist(normalized.embedding_)
    np.testing.assert_allclose(normalized.stress_, np.sqrt(stress(D, normalized.embedding_) / (d * d).sum()),
                               rtol=1e-3)
    # the same random_state gives the same embedding; fit_transform returns it
    a = itercl.MDS(random_state=4, max_iter=30).fit_transform(X)
    np.testing.assert_array_equal(a, itercl.MDS(random_state=4, max_iter=30).fit(X).embedding_)
    assert clone(mds).get_params() == mds.get_params()
    phases = mds.timings_["phases_ms"]
    assert {"upload", "iterations", "python"} <= set(phases)
    assert sum(phases.values()) == pytest.approx(mds.timings_["time_to_solution_ms"], rel=1e-9)


def test_classical_init_recovers_a_planar_configuration():
    P = np.random.default_rng(2).normal(size=(30, 2))
    mds = itercl.MDS(init="classical", dissimilarity="precomputed", random_state=0).fit(squareform(pdist(P)))
    assert mds.stress_ < 1e-6 * stress(squareform(pdist(P)), np.zeros_like(P))


@pytest.mark.parametrize("kwargs, field", [
    ({"n_components": 0}, "n_components"),
    ({"max_iter": 0}, "max_iter"),
    ({"eps": -1}, "eps"),
    ({"metric": False}, "metric"),
    ({"dissimilarity": "hamming"}, "dissimilarity"),
    ({"init": "pca"}, "init"),
    ({"kernel": {"variant": "bogus"}}, "kernel.variant"),
])
def test_bad_parameters_name_the_field(problem, kwargs, field):
    X, _, _ = problem
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        itercl.MDS(**kwargs).fit(X)


def test_bad_dissimilarities_name_the_problem(problem):
    _, D, _ = problem
    A = D.copy()
    A[0, 1] += 1.0
    with pytest.raises(ValueError, match="symmetric"):
        itercl.smacof(A)
    with pytest.raises(ValueError, match="square"):
        itercl.smacof(D[:, :5])
    with pytest.raises(ValueError, match="weights"):
        itercl.smacof(D, weights=np.ones((3, 3)))
    with pytest.raises(ValueError, match="init"):
        itercl.smacof(D, init=np.zeros((5, 2)))
