"""Issue 34: integer parameters past the C++ type the bindings take them as, and a kernel's JSON, are
ValueErrors naming the parameter (pybind11 refused them with "incompatible function arguments", naming
none, and a kernel field past int wrapped: 4294967360 ran as 64)."""

import numpy as np
import pytest

import itercl

BEYOND_INT = 2**32 + 64
X = np.random.default_rng(0).normal(size=(20, 3))
EDGES = (np.array([0, 1, 2]), np.array([1, 2, 0]))


@pytest.mark.parametrize("call, name", [
    (lambda: itercl.KMeans(BEYOND_INT).fit(X), "n_clusters"),
    (lambda: itercl.KMeans(2, max_iter=BEYOND_INT).fit(X), "max_iter"),
    (lambda: itercl.KMeans(2, n_init=BEYOND_INT).fit(X), "n_init"),
    (lambda: itercl.KMeans(2, random_state=2**64).fit(X), "random_state"),
    (lambda: itercl.MDS(n_components=BEYOND_INT).fit(X), "n_components"),
    (lambda: itercl.smacof(np.zeros((3, 3)), max_iter=BEYOND_INT), "max_iter"),
    (lambda: itercl.SmacofDissimilarities(np.zeros((3, 3)), n_init=BEYOND_INT), "n_init"),
    (lambda: itercl.pairwise_distances(X, block_rows=2**63), "block_rows"),
    (lambda: itercl.knn(X, k=BEYOND_INT), "k"),
    (lambda: itercl.distance_histogram(X, bins=BEYOND_INT, range=(0, 1)), "bins"),
    (lambda: itercl.pair_counts(X, [1.0], block=2**63), "block"),
    (lambda: itercl.pagerank(EDGES, max_iter=BEYOND_INT), "max_iter"),
    (lambda: itercl.pagerank(EDGES, n_nodes=BEYOND_INT), "n_nodes"),
])
def test_integers_past_their_type_are_value_errors_naming_them(call, name):
    with pytest.raises(ValueError, match=rf"^{name}: \d+ is out of range: expected an integer from \d+ to \d+$"):
        call()


def test_the_largest_seed_is_accepted():
    itercl.KMeans(2, n_init=1, random_state=2**64 - 1).fit(X)


def test_kernel_fields_past_int_and_deep_kernel_json_are_value_errors():
    with pytest.raises(ValueError, match=r"kernel\.work_group_size: 4294967360 is out of range"):
        itercl.KMeans(2, kernel={"work_group_size": 4294967360}).fit(X)
    deep = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(ValueError, match="kernel: objects and arrays nested deeper than 128 levels"):
        itercl.KMeans(2, kernel={"variant": deep}).fit(X)
