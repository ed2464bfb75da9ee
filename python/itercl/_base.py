"""Argument checks and conversions shared by the estimators and functions.

Errors follow the CLI's form, ``field: detail`` (``n_clusters: expected an integer >= 1, got 0``), as
ValueError for bad input and RuntimeError for device failures.
"""

import inspect
import json
import numbers
import time

import numpy as np

from . import _itercl

try:  # scikit-learn's base classes when it is installed: Pipeline, clone, GridSearchCV and tags work
    from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
    from sklearn.exceptions import NotFittedError
except ImportError:  # a minimal stand-in: get_params / set_params, so that copying by parameters works

    class NotFittedError(ValueError, AttributeError):
        """Raised when an estimator is used before fit."""

    class BaseEstimator:
        """get_params and set_params by the constructor's signature, as scikit-learn's."""

        @classmethod
        def _get_param_names(cls):
            signature = inspect.signature(cls.__init__)
            return sorted(p.name for p in signature.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep=True):
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params):
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"Invalid parameter {name!r} for estimator {self!r}")
                setattr(self, name, value)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClusterMixin:
        _estimator_type = "clusterer"

        def fit_predict(self, X, y=None, **kwargs):
            self.fit(X, **kwargs)
            return self.labels_

    class TransformerMixin:
        def fit_transform(self, X, y=None, **fit_params):
            return self.fit(X, y, **fit_params).transform(X)


def device_spec(device):
    """One device spec for the single-device algorithms.

    None: $ITERCL_DEVICE, else "auto"; a string: the CLI's specs ("auto", "gpu", "cpu", "P:D", or a
    case-insensitive part of the name); a dict from itercl.devices(): that device.
    """
    if device is None:
        return _itercl.default_device_spec()
    if isinstance(device, dict) and "id" in device:
        return device["id"]
    if isinstance(device, str):
        return device
    raise ValueError(f"device: expected a device spec such as 'auto', 'gpu', 'cpu', '0:0' or a name, got {device!r}")


def device_specs(device):
    """Device specs for the pairwise functions, which may share the pairs among several devices."""
    if isinstance(device, (list, tuple)):
        if not device:
            raise ValueError("device: expected at least one device spec, got an empty list")
        return [device_spec(d) for d in device]
    return [device_spec(device)]


def check_string(name, value, allowed=None):
    if not isinstance(value, str) or (allowed is not None and value not in allowed):
        expected = "a string" if allowed is None else " or ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return value


def check_precision(precision):
    return check_string("precision", precision, ("float", "double"))


INT32_MAX = 2**31 - 1  # a C++ int: what the bindings take most integer parameters as
INT64_MAX = 2**63 - 1  # sizes (Eigen::Index)
UINT64_MAX = 2**64 - 1  # seeds


def check_int(name, value, minimum=None, maximum=INT32_MAX):
    """An integer from `minimum` to `maximum`, the range of the binding's parameter: past it pybind11 refuses
    the call with "incompatible function arguments", naming no parameter."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: expected an integer{'' if minimum is None else f' >= {minimum}'}, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value}")
    low = -maximum - 1 if minimum is None else minimum
    if not low <= value <= maximum:
        raise ValueError(f"{name}: {value} is out of range: expected an integer from {low} to {maximum}")
    return value


def check_number(name, value, minimum=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}: expected a number >= {minimum}, got {value!r}")
    return float(value)


def kernel_json(kernel):
    """The kernel's variant and tuning as the CLI's params.kernel object: a dict, or None for the defaults."""
    if kernel is None:
        return ""
    if not isinstance(kernel, dict):
        raise ValueError(f"kernel: expected a dict of the kernel's fields (a config's params.kernel), got {kernel!r}")
    return json.dumps(kernel)


def seed(random_state):
    """scikit-learn's random_state (None, an int or a RandomState / Generator) as the library's seed."""
    if random_state is None:
        return int(np.random.mtrand._rand.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    return check_int("random_state", random_state, 0, UINT64_MAX)


def comm_handle(comm):
    """An mpi4py communicator's Fortran handle (comm.py2f()), which the library duplicates for its own
    messages; None (one process) stays None."""
    if comm is None:
        return None
    if not (hasattr(comm, "py2f") and hasattr(comm, "bcast") and hasattr(comm, "Get_rank")):
        raise ValueError(f"comm: expected an mpi4py communicator (e.g. mpi4py.MPI.COMM_WORLD) or None, got {comm!r}")
    return int(comm.py2f())


def shared_seed(random_state, comm):
    """seed(random_state), and over the ranks of `comm` rank 0's: every rank must draw the same starts."""
    state = seed(random_state)
    return state if comm is None else comm.bcast(state, root=0)


def check_array(X, name="X", ndim=2, min_rows=1, dtype=None):
    """X as a C-contiguous float32 (kept as given) or float64 array, finite, of `ndim` dimensions."""
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(f"{name}: a sparse matrix was passed, but dense data is required; use X.toarray()")
    array = np.asarray(X)
    if array.dtype.kind == "c":
        raise ValueError(f"{name}: Complex data not supported")
    if array.dtype.kind not in "biuf":
        try:
            array = array.astype(np.float64)
        except ValueError:
            raise ValueError(f"{name}: expected an array of numbers, got dtype {array.dtype}") from None
    if dtype is None:
        dtype = np.float32 if array.dtype == np.float32 else np.float64
    array = np.ascontiguousarray(array, dtype=dtype)
    if array.ndim != ndim:
        hint = ""
        if ndim == 2 and array.ndim == 1:
            hint = (": Reshape your data either using array.reshape(-1, 1) if your data has a single feature or "
                    "array.reshape(1, -1) if it contains a single sample")
        raise ValueError(f"{name}: expected a {ndim}-D array, got {array.ndim} dimensions{hint}")
    if array.shape[0] < min_rows:
        raise ValueError(f"{name}: {array.shape[0]} sample(s) (shape={array.shape}) while a minimum of {min_rows} "
                         "is required.")
    if ndim == 2 and array.shape[1] < 1 and array.shape[0] > 0:
        raise ValueError(f"{name}: 0 feature(s) (shape={array.shape}) while a minimum of 1 is required.")
    # The sum is one pass with no temporary array (np.isfinite(array) makes one of n bytes per value);
    # only a sum that is not finite (NaN, infinity, or finite values overflowing) needs the full check.
    with np.errstate(all="ignore"):
        if not np.isfinite(array.sum()) and not np.all(np.isfinite(array)):
            raise ValueError(f"{name}: contains NaN or infinity")
    return array


def call_timings(started, phases):
    """A call's time to solution, as a stopwatch around it measures it: the wall time since `started`
    (time.perf_counter()), and its phases in milliseconds. `phases` are the library's (checks, upload,
    program_build, iterations, readback, ...); what the call spent around them (the Python layer's checks
    and conversions) is the phase "python", so that the phases add up to the whole."""
    total = (time.perf_counter() - started) * 1e3
    phases = dict(phases)
    phases["python"] = max(total - sum(phases.values()), 0.0)
    return {"time_to_solution_ms": total, "phases_ms": phases}


def check_is_fitted(estimator, attribute):
    if not hasattr(estimator, attribute):
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet. "
                             "Call 'fit' with appropriate arguments before using this estimator.")

