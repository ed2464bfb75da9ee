"""Inputs on their way to the device: a float32 (or float64) C-contiguous array is read in place by K-Means
(fit, predict) and SMACOF from vectors, never copied into a double matrix first. The answers must be those
of the same values given as float64 (the host's steps widen each float exactly), and the memory a fit
takes must show no copy of twice the data's size."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

import itercl

from conftest import blobs
from test_smacof import sklearn_iterations, stress


def test_kmeans_float32_in_place_equals_float64():
    X, _ = blobs(n=2000, centers=5, features=6, seed=3)
    X32 = X.astype(np.float32)
    init = X32[:5].astype(np.float64)
    a = itercl.KMeans(5, init=init, n_init=1).fit(X32)
    b = itercl.KMeans(5, init=init, n_init=1).fit(X32.astype(np.float64))
    assert a.cluster_centers_.dtype == np.float32
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_.astype(np.float32))
    assert a.inertia_ == b.inertia_ and a.n_iter_ == b.n_iter_
    np.testing.assert_array_equal(a.predict(X32[::7]), b.predict(X32[::7].astype(np.float64)))
    # k-means++ reads the rows in place too: the same draws, the same start.
    c = itercl.KMeans(5, random_state=4).fit(X32)
    d = itercl.KMeans(5, random_state=4).fit(X32.astype(np.float64))
    np.testing.assert_array_equal(c.labels_, d.labels_)
    assert c.inertia_ == d.inertia_


def test_smacof_vectors_float32_in_place(rng):
    V = rng.normal(size=(60, 5)).astype(np.float32)
    x0 = rng.uniform(size=(60, 2))
    a = itercl.MDS(n_components=2, max_iter=50, eps=0).fit(V, init=x0)
    b = itercl.MDS(n_components=2, max_iter=50, eps=0).fit(V.astype(np.float64), init=x0)
    np.testing.assert_array_equal(a.embedding_, b.embedding_)
    assert a.stress_ == b.stress_
    # and the embedding is scikit-learn's from the same start (float32 arithmetic on the device)
    D = squareform(pdist(V.astype(np.float64)))
    expected = sklearn_iterations(D, x0, 50)
    assert np.abs(a.embedding_ - expected).max() <= 1e-3 * np.abs(expected).max()
    assert a.stress_ == pytest.approx(stress(D, a.embedding_), rel=1e-3)


# The peak of the process's resident memory during a K-Means fit, over the data's size (float32, 64 MB).
# Read in place, the fit holds the device's packed copy and its staging (2x on PoCL, whose buffers are host
# memory); a double copy of the data would add 2x more. A Fortran-ordered array, which the package must
# convert (to float64, C order), is the control that shows the measure sees such a copy.
PEAK = textwrap.dedent("""
    import sys
    import numpy as np
    import itercl

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) * 1024

    X = np.random.default_rng(0).standard_normal((1_000_000, 16), dtype=np.float32)
    if sys.argv[1] == "F":
        X = np.asfortranarray(X)
    km = itercl.KMeans(4, init=np.ascontiguousarray(X[:4], dtype=np.float64), n_init=1, max_iter=2)
    km.fit(X[:1000])  # the device opened and the kernels built before the measure
    try:
        open("/proc/self/clear_refs", "w").write("5")  # the peak starts again from here
    except OSError:
        pass
    before = status("VmRSS:")
    km.fit(X)
    print((status("VmHWM:") - before) / X.nbytes)
""")


def peak_over_data(order):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", PEAK, order], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_kmeans_fit_makes_no_double_copy():
    in_place, converted = peak_over_data("C"), peak_over_data("F")
    assert in_place < 2.5, f"a float32 fit took {in_place:.2f}x the data's size at its peak"
    assert converted > in_place + 0.8, f"the control's copy did not show ({converted:.2f}x against {in_place:.2f}x)"
