#!/usr/bin/env bash
# Installs the Debian 12 packages itercl builds and runs with, skipping those already present.
# Idempotent: a second run installs nothing. Uses sudo when not run as root.
#   scripts/bootstrap.sh         everything: the library, the CLI, the tests, Python, MPI
#   scripts/bootstrap.sh --cli   only what the library and the CLI need (the README's quick start); a later
#                                plain run adds the rest, and `cmake -S . -B build` then finds it
set -euo pipefail

cli=(
  build-essential cmake pkg-config
  ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers  # OpenCL ICD loader and C++ bindings
  pocl-opencl-icd clinfo                                    # PoCL: the CPU device, always present
  libeigen3-dev nlohmann-json3-dev libcli11-dev zlib1g-dev libbz2-dev
  doctest-dev                                               # headers only: configuring the tests needs them
)
rest=(
  python3                                                   # the CLI test and benchmark scripts
  python3-dev pybind11-dev python3-venv                     # the Python package (docs/python.md)
  python3-numpy python3-scipy python3-sklearn python3-networkx python3-matplotlib python3-pytest
  python3-hypothesis                                        # property tests of the Python API (tests/python)
  libopenmpi-dev openmpi-bin python3-mpi4py                 # MPI: runs over several ranks (mpirun, mpi4py)
)
case "${1:-}" in
  "") packages=("${cli[@]}" "${rest[@]}") ;;
  --cli) packages=("${cli[@]}") ;;
  *) echo "usage: $0 [--cli]" >&2 && exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "bootstrap: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
