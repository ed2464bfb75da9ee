import os
import subprocess
import sys

import numpy as np
import pytest

import itercl


def test_devices_lists_the_cli_fields():
    devices = itercl.devices()
    assert devices, "no OpenCL device: install pocl-opencl-icd"
    for d in devices:
        assert set(d) >= {"id", "type", "name", "platform", "compute_units", "global_memory", "fp64",
                          "nvidia_compute_capability"}
        assert d["nvidia_compute_capability"] == 0 or "NVIDIA" in d["platform"]
        assert d["type"] in ("gpu", "cpu", "accelerator", "other")
        platform, device = d["id"].split(":")
        assert int(platform) >= 0 and int(device) >= 0


def test_every_spec_form_selects_the_same_device():
    d = itercl.devices()[0]
    X = np.arange(12.0).reshape(6, 2)
    expected = itercl.pairwise_distances(X, device=d["id"])
    for spec in (d["id"], d["type"], d["name"][:6].lower(), d):
        np.testing.assert_array_equal(itercl.pairwise_distances(X, device=spec), expected)
    # several devices (here the same one twice) share the pair space, with the same result
    np.testing.assert_array_equal(itercl.pairwise_distances(X, device=[d["id"], d["id"]], block_rows=2), expected)


def test_unknown_device_is_a_value_error_listing_the_devices():
    with pytest.raises(ValueError) as e:
        itercl.KMeans(2, device="no-such-device-xyz").fit(np.eye(4))
    assert "no-such-device-xyz" in str(e.value)
    with pytest.raises(ValueError, match="device"):
        itercl.pairwise_distances(np.eye(3), device=3.5)


def test_device_environment_variable_is_the_default(monkeypatch):
    monkeypatch.setenv("ITERCL_DEVICE", "no-such-device-xyz")
    with pytest.raises(ValueError, match="no-such-device-xyz"):
        itercl.pairwise_distances(np.eye(3))


def test_version_and_import_from_elsewhere(tmp_path):
    assert itercl.__version__ == "0.1.0"
    path = os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    out = subprocess.run([sys.executable, "-c", "import itercl, sys; print(itercl.__file__)"], cwd=tmp_path,
                         capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": path})
    assert "itercl" in out.stdout


def test_the_gil_is_released_while_the_device_works():
    import threading
    import time

    X = np.random.default_rng(0).normal(size=(3000, 128))
    args = (X, None, "cityblock", 2.0, [itercl._itercl.default_device_spec()], "float", "", 0, 0)
    window = []

    def work():
        start = time.perf_counter()
        itercl._itercl.pairwise_matrix(*args)  # the kernel test_pairwise builds too
        window.extend([start, time.perf_counter()])

    stamps = []
    thread = threading.Thread(target=work)
    thread.start()
    while thread.is_alive():  # runs only while the worker thread has let go of the GIL
        stamps.append(time.perf_counter())
        time.sleep(0.001)
    thread.join()
    start, end = window
    if end - start < 0.05:
        pytest.skip("the device finished too fast to tell")
    inside = [t for t in stamps if start + 0.02 < t < end - 0.02]
    assert len(inside) >= 5, f"{len(inside)} main-thread steps during {end - start:.2f} s on the device"


def test_estimators_work_without_scikit_learn(tmp_path):
    """scikit-learn is optional: a stand-in base class keeps get_params / set_params."""
    code = """
import sys
sys.modules["sklearn"] = None  # import sklearn now fails
import numpy as np
import itercl
km = itercl.KMeans(2, random_state=0)
assert km.get_params()["n_clusters"] == 2 and km.set_params(n_clusters=3).n_clusters == 3
copy = type(km)(**km.get_params())
X = np.array([[0.0, 0], [0, 1], [5, 5], [5, 6], [9, 0], [9, 1]])
assert len(set(copy.fit_predict(X))) == 3
print(repr(km))
"""
    path = os.pathsep.join(os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": path})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("KMeans(")
