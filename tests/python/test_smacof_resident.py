"""SMACOF's dissimilarities kept on the device (itercl.SmacofDissimilarities): several starts and single
steps against scikit-learn's smacof from the same starts, and against separate itercl.smacof calls."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

import itercl

from test_smacof import sklearn_iterations, stress


@pytest.fixture(scope="module")
def points():
    g = np.random.default_rng(8)
    return g.normal(size=(40, 3)), [g.uniform(size=(40, 2)) for _ in range(3)]


def test_several_starts_equal_scikit_learn(points, fp64):
    precision, rtol = ("double", 1e-9) if fp64 else ("float", 1e-3)
    X, starts = points
    D = squareform(pdist(X))
    resident = itercl.SmacofDissimilarities(D, max_iter=15, eps=0, precision=precision)
    assert resident.n_points == 40
    for x0 in starts:
        E, s, n_iter = resident.smacof(x0, return_n_iter=True)
        assert n_iter == 15
        np.testing.assert_allclose(E, sklearn_iterations(D, x0, 15), rtol=rtol, atol=rtol)
        np.testing.assert_allclose(s, stress(D, E), rtol=rtol)
        # exactly what one call with the dissimilarities uploaded afresh gives
        E1, s1 = itercl.smacof(D, init=x0, max_iter=15, eps=0, precision=precision)
        np.testing.assert_array_equal(E, E1)
        assert s == s1


def test_steps_equal_scikit_learn_and_the_full_run(points, fp64):
    precision, rtol = ("double", 1e-9) if fp64 else ("float", 1e-3)
    X, starts = points
    D = squareform(pdist(X))
    resident = itercl.SmacofDissimilarities(X, dissimilarity="euclidean", max_iter=10, eps=0, precision=precision)
    full, full_stress = resident.smacof(starts[0])
    resident.start(starts[0])
    for k in range(1, 11):
        s, squared = resident.step()
        E = resident.embedding()
        np.testing.assert_allclose(s, stress(D, E), rtol=rtol)
        np.testing.assert_allclose(squared, (pdist(E) ** 2).sum(), rtol=rtol)
        if k in (1, 10):
            np.testing.assert_allclose(E, sklearn_iterations(D, starts[0], k), rtol=rtol, atol=rtol)
    np.testing.assert_array_equal(resident.embedding(), full)
    assert s == full_stress


def test_its_own_starts_and_stopping_rule_equal_smacof(points):
    X, _ = points
    D = squareform(pdist(X))
    resident = itercl.SmacofDissimilarities(D, n_init=3, random_state=5, eps=1e-5)
    E, s, n_iter = resident.smacof(return_n_iter=True, normalized_stress=True)
    E1, s1, n1 = itercl.smacof(D, n_init=3, random_state=5, eps=1e-5, return_n_iter=True, normalized_stress=True)
    np.testing.assert_array_equal(E, E1)
    assert (s, n_iter) == (s1, n1) and n_iter < 300


def test_callback_stops_a_run_and_bad_starts_name_the_field(points):
    X, starts = points
    resident = itercl.SmacofDissimilarities(squareform(pdist(X)), max_iter=50, eps=0)
    seen = []

    def stop_at_4(event):
        seen.append(event["iteration"])
        if event["iteration"] == 4:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        resident.smacof(starts[0], callback=stop_at_4)
    assert seen == [1, 2, 3, 4]
    E, _ = resident.smacof(starts[0])  # the object still works, without the callback
    assert E.shape == (40, 2) and len(seen) == 4
    with pytest.raises(ValueError, match="init: has shape"):
        resident.start(np.zeros((40, 3)))
    with pytest.raises(ValueError, match="dissimilarities: expected a square matrix"):
        itercl.SmacofDissimilarities(X)
