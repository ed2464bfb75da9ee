import re

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.cluster import KMeans as SkKMeans
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import itercl
from conftest import blobs


@pytest.fixture(scope="module")
def data():
    X, y = blobs(n=400, centers=4, features=3)
    init = X[[0, 100, 200, 300]]
    return X, y, init


@pytest.mark.parametrize("precision", ["float", "double"])
def test_same_init_gives_scikit_learns_result(data, precision, fp64):
    if precision == "double" and not fp64:
        pytest.skip("the device has no fp64")
    X, _, init = data
    ours = itercl.KMeans(4, init=init, n_init=1, precision=precision).fit(X)
    ref = SkKMeans(4, init=init, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-6)
    assert ours.n_iter_ == ref.n_iter_
    assert ours.converged_


def test_sample_weight_as_scikit_learn(data, rng):
    X, _, init = data
    w = rng.uniform(0.1, 3, size=len(X))
    ours = itercl.KMeans(4, init=init, n_init=1).fit(X, sample_weight=w)
    ref = SkKMeans(4, init=init, n_init=1, algorithm="lloyd").fit(X, sample_weight=w)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-6)
    np.testing.assert_allclose(ours.score(X, sample_weight=w), -ref.inertia_, rtol=1e-6)


@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_own_initialisation_finds_the_blobs(data, init):
    X, y, _ = data
    km = itercl.KMeans(4, init=init, random_state=0).fit(X)
    assert adjusted_rand_score(y, km.labels_) == pytest.approx(1.0)
    ref = SkKMeans(4, n_init=10, random_state=0).fit(X)
    np.testing.assert_allclose(km.inertia_, ref.inertia_, rtol=1e-5)
    # the same random_state gives the same result
    again = itercl.KMeans(4, init=init, random_state=0).fit(X)
    np.testing.assert_array_equal(again.labels_, km.labels_)


def test_predict_transform_score_fit_predict(data):
    X, _, init = data
    km = itercl.KMeans(4, init=init, n_init=1).fit(X)
    ref = SkKMeans(4, init=init, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    Z = X[:50] + 0.3
    np.testing.assert_array_equal(km.predict(Z), ref.predict(Z))
    np.testing.assert_allclose(km.transform(Z), ref.transform(Z), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(km.score(Z), ref.score(Z), rtol=1e-6)
    np.testing.assert_allclose(km.score(X), -km.inertia_, rtol=1e-9)
    np.testing.assert_array_equal(itercl.KMeans(4, init=init, n_init=1).fit_predict(X), km.labels_)
    assert km.fit_transform(X).shape == (len(X), 4)
    assert km.n_features_in_ == 3


def test_float32_input_keeps_its_dtype(data):
    X, _, init = data
    km = itercl.KMeans(4, init=init, n_init=1).fit(X.astype(np.float32))
    assert km.cluster_centers_.dtype == np.float32
    assert km.transform(X.astype(np.float32)).dtype == np.float32
    ref = itercl.KMeans(4, init=init, n_init=1).fit(X)
    np.testing.assert_array_equal(km.labels_, ref.labels_)


def test_clone_and_pipeline(data):
    X, y, _ = data
    km = itercl.KMeans(4, n_init=2, random_state=3, precision="float", kernel={"variant": "naive"})
    copy = clone(km)
    assert copy is not km and copy.get_params() == km.get_params()
    assert "n_clusters" in km.get_params() and "device" in km.get_params()
    pipe = make_pipeline(StandardScaler(), itercl.KMeans(4, random_state=0)).fit(X)
    assert adjusted_rand_score(y, pipe.predict(X)) == pytest.approx(1.0)
    assert pipe.transform(X).shape == (len(X), 4)
    assert copy.set_params(n_clusters=3).n_clusters == 3


def test_kernel_variants_agree(data):
    X, _, init = data
    ref = itercl.KMeans(4, init=init, n_init=1).fit(X)
    km = itercl.KMeans(4, init=init, n_init=1, kernel={"variant": "naive"}).fit(X)
    np.testing.assert_array_equal(km.labels_, ref.labels_)
    assert km.kernel_["variant"] == "naive"


@pytest.mark.parametrize("params, field", [
    ({"n_clusters": 0}, "n_clusters"),
    ({"n_clusters": 2.5}, "n_clusters"),
    ({"n_clusters": 500}, "n_clusters"),
    ({"max_iter": 0}, "max_iter"),
    ({"tol": -1.0}, "tol"),
    ({"n_init": "sometimes"}, "n_init"),
    ({"init": "kmeans++"}, "init"),
    ({"init": np.zeros((3, 3))}, "init"),
    ({"precision": "half"}, "precision"),
    ({"random_state": -1}, "random_state"),
    ({"kernel": {"variant": "bogus"}}, "kernel.variant"),
    ({"kernel": {"no_such_field": 1}}, "no_such_field"),
    ({"verbose": -1}, "verbose"),
    ({"callback": 3}, "callback"),
    ({"comm": "world"}, "comm"),
])
def test_bad_parameters_are_value_errors_naming_the_field(data, params, field):
    X, _, _ = data
    params = {"n_clusters": 4, **params}
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        itercl.KMeans(**params).fit(X)


def test_bad_data_are_value_errors(data):
    X, _, _ = data
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X: contains NaN"):
        itercl.KMeans(2).fit(bad)
    with pytest.raises(ValueError, match="X: expected a 2-D array"):
        itercl.KMeans(2).fit(X[:, 0])
    with pytest.raises(ValueError, match="sample_weight"):
        itercl.KMeans(2).fit(X, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="sample_weight"):
        itercl.KMeans(2).fit(X, sample_weight=-np.ones(len(X)))
    km = itercl.KMeans(2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="features"):
        km.predict(X[:, :2])


def test_unfitted_estimator_raises():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        itercl.KMeans(2).predict(np.eye(3))


def test_timings_are_the_whole_fits_phases(data):
    import time
    X, _, init = data
    start = time.perf_counter()
    km = itercl.KMeans(4, init=init, n_init=1).fit(X)
    around = (time.perf_counter() - start) * 1e3
    t = km.timings_
    phases = t["phases_ms"]
    assert {"checks", "upload", "iterations", "readback", "python"} <= set(phases)
    assert all(v >= 0 for v in phases.values())
    assert sum(phases.values()) == pytest.approx(t["time_to_solution_ms"], rel=1e-9)
    assert 0 < t["time_to_solution_ms"] <= around


def _numbers_apart(lines):
    """The lines with their numbers cut out, and the numbers."""
    number = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")
    return [number.sub("#", line) for line in lines], [float(x) for line in lines for x in number.findall(line)]


def test_verbose_prints_as_scikit_learn(data, capsys, fp64):
    X, _, init = data
    precision = "double" if fp64 else "float"
    ours = itercl.KMeans(4, init=init, n_init=1, verbose=1, precision=precision).fit(X)
    printed = capsys.readouterr().out.splitlines()
    SkKMeans(4, init=init, n_init=1, algorithm="lloyd", verbose=1).fit(X)
    reference = capsys.readouterr().out.splitlines()
    assert printed[0] == "Initialization complete"
    assert len(printed) == ours.n_iter_ + 2  # the iterations, then why the run stopped
    texts, numbers = _numbers_apart(printed)
    ref_texts, ref_numbers = _numbers_apart(reference)
    assert texts == ref_texts
    np.testing.assert_allclose(numbers, ref_numbers, rtol=1e-6 if fp64 else 1e-4)
    itercl.KMeans(4, init=init, n_init=1).fit(X)
    assert capsys.readouterr().out == ""  # verbose=0: nothing


def test_callback_sees_every_iteration_and_can_stop_the_fit(data):
    X, _, init = data
    events = []
    km = itercl.KMeans(4, init=init, n_init=1, callback=events.append).fit(X)
    assert [e["iteration"] for e in events] == list(range(1, km.n_iter_ + 1))
    np.testing.assert_array_equal([e["objective"] for e in events], km.inertia_trace_)
    assert km.converged_ and all("stopping" not in e for e in events[:-1])
    assert re.fullmatch(r"strict convergence|center shift \S+ within tolerance \S+", events[-1]["stopping"])

    def stop(event):
        raise StopIteration("enough")

    with pytest.raises(StopIteration, match="enough"):
        itercl.KMeans(4, init=init, n_init=1, callback=stop).fit(X)


def test_feature_names_out_as_scikit_learn(data):
    X, _, _ = data
    ours = itercl.KMeans(4, random_state=0).fit(X)
    ref = SkKMeans(4, random_state=0, n_init=1).fit(X)
    np.testing.assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())
    assert ours.get_feature_names_out().dtype == object
    with pytest.raises(ValueError, match="input_features"):
        ours.get_feature_names_out(["a", "b"])
    pipeline = make_pipeline(StandardScaler(), itercl.KMeans(4, random_state=0)).fit(X)
    np.testing.assert_array_equal(pipeline.get_feature_names_out(), ["kmeans0", "kmeans1", "kmeans2", "kmeans3"])
