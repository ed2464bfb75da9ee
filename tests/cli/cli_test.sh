#!/usr/bin/env bash
# The itercl command line: exit codes (0 success, 2 bad input, 1 runtime failure), messages on
# stderr, and the results files a run writes. Needs an OpenCL device (PoCL in CI) and python3.
# Usage: bash tests/cli/cli_test.sh path/to/itercl path/to/source_root
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 path/to/itercl path/to/source_root" >&2
  exit 2
fi
itercl=$(realpath "$1")
source_root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "cli_test: FAIL: $*" >&2
  if [[ -f $tmp/stdout ]]; then
    echo "--- stdout of the last command:" >&2 && cat "$tmp/stdout" >&2
    echo "--- stderr of the last command:" >&2 && cat "$tmp/stderr" >&2
  fi
  exit 1
}

# Runs itercl with the given arguments, keeping its exit code in $rc and its output in files.
run_itercl() {
  set +e
  "$itercl" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  set -e
}

expect_rc() {  # expected exit code, what was run
  [[ $rc -eq $1 ]] || fail "$2: exit code $rc, expected $1"
}

expect_text() {  # stdout or stderr, fixed text, what was run
  grep -qF -- "$2" "$tmp/$1" || fail "$3: '$2' not found on $1"
}

# Asserts a Python expression about the results JSON in $1; `r` is the parsed file.
check_results() {
  python3 - "$1" "$2" <<'EOF' || fail "results $1: $2"
import json, sys
with open(sys.argv[1]) as f:
    r = json.load(f)
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# --- version and devices ---
run_itercl --version
expect_rc 0 "itercl --version"
version=$(sed -n 's/^project(itercl VERSION \([0-9.]*\).*/\1/p' "$source_root/CMakeLists.txt")
[[ -n $version ]] || fail "no project version found in $source_root/CMakeLists.txt"
expect_text stdout "$version" "itercl --version"

run_itercl devices
expect_rc 0 "itercl devices"
grep -qE '^[0-9]+:[0-9]+ ' "$tmp/stdout" || fail "itercl devices: no 'P:D' device line"

run_itercl devices --json
expect_rc 0 "itercl devices --json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d and all("fp64" in x for x in d) else 1)' \
  "$tmp/stdout" || fail "itercl devices --json: not a non-empty JSON list of devices with \"fp64\""

# --- a small run: 20 points in three well-separated groups (7, 7, 6) ---
cat >"$tmp/points.csv" <<'EOF'
x,y
0,0
1,0
0,1
1,1
0.5,0.5
0.2,0.8
0.8,0.2
10,10
11,10
10,11
11,11
10.5,10.5
10.2,10.8
10.8,10.2
-10,10
-11,10
-10,11
-11,11
-10.5,10.5
-10.2,10.8
EOF
cat >"$tmp/good.json" <<'EOF'
{
  "name": "cli-small",
  "algorithm": "kmeans",
  "data": {"path": "points.csv"},
  "params": {"n_clusters": 3, "random_state": 0},
  "output": {"path": "out/results.json", "labels": "out/labels.txt"}
}
EOF

run_itercl run "$tmp/good.json" --out "$tmp/other/results.json"
expect_rc 0 "itercl run --out"
[[ -f $tmp/other/results.json ]] || fail "itercl run --out: $tmp/other/results.json was not written"
[[ ! -e $tmp/out/results.json ]] || fail "itercl run --out: the config's output path was written too"
[[ -f $tmp/other/out/labels.txt ]] || fail "itercl run --out: the labels did not go beside the results file"
[[ ! -e $tmp/out/labels.txt ]] || fail "itercl run --out: the labels went beside the config"

run_itercl run "$tmp/good.json"
expect_rc 0 "itercl run good.json"
expect_text stdout "inertia" "itercl run good.json"
results=$tmp/out/results.json
[[ -f $results ]] || fail "itercl run good.json: no results file at $results"
check_results "$results" 'all(k in r for k in ("result", "timings", "device", "config"))'
check_results "$results" 'r["precision"] == "float" and r["config"]["params"]["random_state"] == 0'
[[ $(wc -l <"$tmp/out/labels.txt") -eq 20 ]] || fail "labels file: $(wc -l <"$tmp/out/labels.txt") lines, expected 20"
# The summary names every file the run wrote: the results and the labels.
expect_text stdout "results: $results" "itercl run good.json"
expect_text stdout "wrote: $tmp/out/labels.txt" "itercl run good.json"
grep -qF "wrote: $tmp/out/results.json" "$tmp/stdout" && fail "itercl run good.json: the results named twice"
# The labels must split the points into exactly the three groups, and the recorded inertia must be
# that of those groups around their means (float precision on the device: relative 1e-5).
python3 - "$tmp/points.csv" "$tmp/out/labels.txt" "$results" <<'EOF' || fail "labels or inertia do not match the three groups"
import json, sys
points = [tuple(map(float, line.split(","))) for line in open(sys.argv[1]).read().split("\n")[1:] if line]
labels = [int(line) for line in open(sys.argv[2])]
groups = [labels[0:7], labels[7:14], labels[14:20]]
if any(len(set(g)) != 1 for g in groups) or len({g[0] for g in groups}) != 3:
    sys.exit(f"labels {labels} do not follow the groups")
inertia = 0.0
for g in (points[0:7], points[7:14], points[14:20]):
    mx, my = sum(p[0] for p in g) / len(g), sum(p[1] for p in g) / len(g)
    inertia += sum((p[0] - mx) ** 2 + (p[1] - my) ** 2 for p in g)
got = json.load(open(sys.argv[3]))["result"]["inertia"]
if abs(got - inertia) > 1e-5 * inertia:
    sys.exit(f"inertia {got}, expected {inertia}")
EOF

check_results "$results" 'r["result"]["streaming"] == {"streamed": False}'

# A device too small for even the labels and centroids (the points would stream): exit 2 with the sizes.
ITERCL_DEVICE_MEMORY=100 run_itercl run "$tmp/good.json" --out "$tmp/small.json"
expect_rc 2 "itercl run on a device of 100 bytes"
expect_text stderr "has 100 bytes; the labels of 20 points, the centroids and their sums need" "itercl run, 100 bytes"
[[ ! -e $tmp/small.json ]] || fail "itercl run on a device of 100 bytes: wrote a results file"

run_itercl run "$tmp/good.json" --precision double --out "$tmp/double.json"
expect_rc 0 "itercl run --precision double"
check_results "$tmp/double.json" 'r["precision"] == "double" and r["config"]["precision"] == "double"'

# --no-cache and --quiet, before or after the subcommand; no progress line when stderr is not a terminal
run_itercl --no-cache run "$tmp/good.json" --quiet --out "$tmp/nocache.json"
expect_rc 0 "itercl --no-cache run --quiet"
check_results "$tmp/nocache.json" 'r["result"]["n_iter"] >= 1'
grep -q "iteration" "$tmp/stderr" && fail "a progress line went to a stderr that is not a terminal"

# ITERCL_PRINT_SOURCE: 1-like values print each kernel as it is built, 0-like values nothing, others refused.
ITERCL_PRINT_SOURCE=1 run_itercl run "$tmp/good.json" --quiet
expect_rc 0 "ITERCL_PRINT_SOURCE=1 itercl run"
expect_text stderr "// itercl: kmeans" "ITERCL_PRINT_SOURCE=1 itercl run"
for off in 0 false; do
  ITERCL_PRINT_SOURCE=$off run_itercl run "$tmp/good.json" --quiet
  expect_rc 0 "ITERCL_PRINT_SOURCE=$off itercl run"
  grep -qF "// itercl:" "$tmp/stderr" && fail "ITERCL_PRINT_SOURCE=$off printed the kernel source"
done
ITERCL_PRINT_SOURCE=maybe run_itercl run "$tmp/good.json" --quiet
expect_rc 2 "ITERCL_PRINT_SOURCE=maybe itercl run"
expect_text stderr "ITERCL_PRINT_SOURCE: 'maybe'" "ITERCL_PRINT_SOURCE=maybe itercl run"

# --- outputs: --out - is the results JSON on stdout and nothing else; --out PATH takes the extra files along ---
rm -rf "$tmp/out/labels.txt"
run_itercl run "$tmp/good.json" --out -
expect_rc 0 "itercl run --out -"
check_results "$tmp/stdout" 'r["result"]["n_iter"] >= 1 and r["config"]["output"]["path"] == "-"'
expect_text stderr "results: standard output" "itercl run --out -"
expect_text stderr "wrote: $tmp/out/labels.txt" "itercl run --out -"
[[ ! -e ./- && ! -e $tmp/- ]] || fail "itercl run --out -: wrote a file named '-'"
[[ -f $tmp/out/labels.txt ]] || fail "itercl run --out -: the labels are not beside the config"
run_itercl run "$tmp/good.json" --out - --quiet
expect_rc 0 "itercl run --out - --quiet"
[[ ! -s $tmp/stderr ]] || fail "itercl run --out - --quiet: printed on stderr"
check_results "$tmp/stdout" '"result" in r'
sed 's|"labels": "out/labels.txt"|"labels": "'"$tmp"'/absolute-labels.txt"|' "$tmp/good.json" >"$tmp/absolute.json"
run_itercl run "$tmp/absolute.json" --out "$tmp/moved/results.json"
expect_rc 0 "itercl run absolute.json --out"
[[ -f $tmp/absolute-labels.txt ]] || fail "itercl run --out: an absolute labels path was not kept"

# --- progress: every algorithm reports through --progress=plain (one line a second, for logs) ---
cat >"$tmp/smacof.json" <<'EOF'
{"algorithm": "smacof", "data": {"kind": "vectors", "path": "points.csv"}, "params": {"random_state": 0, "max_iter": 20},
 "output": "out/smacof.json"}
EOF
cat >"$tmp/pagerank.json" <<'EOF'
{"algorithm": "pagerank", "data": {"generator": "rmat", "scale": 8, "edge_factor": 4, "random_state": 1},
 "output": "out/pagerank.json"}
EOF
cat >"$tmp/pairwise.json" <<'EOF'
{"algorithm": "pairwise_distances", "data": {"path": "points.csv"}, "params": {"block_rows": 8},
 "output": "out/pairwise.json"}
EOF
cat >"$tmp/histogram.json" <<'EOF'
{"algorithm": "distance_histogram", "data": {"path": "points.csv"},
 "params": {"bins": 4, "range": [0, 30]}, "output": "out/histogram.json"}
EOF
for pair in "good:kmeans  iteration [0-9]+/300  inertia" "smacof:smacof  iteration [0-9]+/20  stress" \
  "pagerank:pagerank  iteration [0-9]+/100  L1 change" "pairwise:pairwise  rectangle [0-9]+/[0-9]+ " \
  "histogram:pair histogram  rectangle [0-9]+/[0-9]+ "; do
  name=${pair%%:*} pattern=${pair#*:}
  run_itercl run "$tmp/$name.json" --progress=plain
  expect_rc 0 "itercl run $name.json --progress=plain"
  grep -qE "^progress: $pattern.* s, at most [0-9]+ s to go$" "$tmp/stderr" ||
    fail "itercl run $name.json --progress=plain: no line matching '$pattern' on stderr"
  run_itercl run "$tmp/$name.json" --progress=plain --quiet
  expect_rc 0 "itercl run $name.json --progress=plain --quiet"
  [[ ! -s $tmp/stdout && ! -s $tmp/stderr ]] || fail "itercl run $name.json --quiet: printed something"
done
run_itercl run "$tmp/good.json" --progress=sometimes
expect_rc 2 "itercl run --progress=sometimes"
run_itercl tune kmeans --progress=plain --dry-run --repeat 1 \
  --problem '{"n_samples": 256, "n_features": 2, "n_clusters": 4}'
expect_rc 0 "itercl tune kmeans --progress=plain"
grep -qE "^progress: kmeans  candidate 1/[0-9]+ " "$tmp/stderr" || fail "itercl tune: no candidate progress line"
grep -qE "^progress: kmeans  candidate [0-9]+/[0-9]+  best ms [0-9.e+-]+ " "$tmp/stderr" ||
  fail "itercl tune: the progress line does not show the best so far"
# --quiet: nothing on stderr, the OpenCL compiler's messages included (they go to the build log: --verbose)
run_itercl --quiet tune kmeans --dry-run --repeat 1 --problem '{"n_samples": 256, "n_features": 2, "n_clusters": 4}'
expect_rc 0 "itercl --quiet tune kmeans"
[[ ! -s $tmp/stderr ]] || fail "itercl --quiet tune kmeans: wrote to stderr: $(head -c 300 "$tmp/stderr")"
# --budget bounds the whole command, kernel builds included: the default problem (10^6 points, its reference
# run and builds) cannot be done in 3 s on PoCL, yet the command ends by then, with the candidates measured
# (exit 0) or, none measured yet, saying so (exit 1); a budget spent at once measures nothing
started=$(date +%s%N)
run_itercl tune kmeans --dry-run --budget 3
took_ms=$((($(date +%s%N) - started) / 1000000))
[[ $took_ms -lt 6000 ]] || fail "itercl tune --budget 3 took $took_ms ms"
if [[ $rc -eq 0 ]]; then
  expect_text stdout "budget spent after " "itercl tune --budget 3"
else
  expect_rc 1 "itercl tune --budget 3"
  expect_text stderr "--budget spent before the first candidate" "itercl tune --budget 3"
fi
# The budget spent during a kernel build (an empty PoCL cache: the first build takes seconds), which catches
# stderr for the compiler's messages: the command's own message still reaches stderr (release_stderr)
POCL_CACHE_DIR="$tmp/cold-pocl-cache" run_itercl tune kmeans --dry-run --no-cache --budget 1 \
  --problem '{"n_samples": 2000, "n_features": 2, "n_clusters": 4}'
if [[ $rc -eq 0 ]]; then
  expect_text stdout "budget spent after " "itercl tune --budget 1 on a cold cache"
else
  expect_rc 1 "itercl tune --budget 1 on a cold cache"
  expect_text stderr "--budget spent before the first candidate" "itercl tune --budget 1 on a cold cache"
fi
run_itercl tune kmeans --dry-run --repeat 1 --budget 0.001 --problem '{"n_samples": 256, "n_features": 2, "n_clusters": 4}'
expect_rc 1 "itercl tune --budget 0.001"
expect_text stderr "failed: tune: --budget spent before the first candidate, the current choice, was measured" \
  "itercl tune --budget 0.001"
run_itercl tune kmeans --dry-run --budget -1
expect_rc 2 "itercl tune --budget -1"
expect_text stderr "--budget" "itercl tune --budget -1"

# --- the plotting scripts of examples/ read what the runs above wrote (where numpy and matplotlib are) ---
if /usr/bin/python3 -c 'import matplotlib, numpy' 2>/dev/null; then
  for pair in kmeans:results mds:smacof pagerank:pagerank; do
    /usr/bin/python3 "$source_root/examples/${pair%%:*}_plot.py" "$tmp/out/${pair#*:}.json" "$tmp/${pair%%:*}.png" \
      >/dev/null || fail "examples/${pair%%:*}_plot.py failed"
    [[ -s $tmp/${pair%%:*}.png ]] || fail "examples/${pair%%:*}_plot.py drew nothing"
  done
fi

# --- help: the choices, the global options, one spelling per option ---
run_itercl run --help
expect_rc 0 "itercl run --help"
for word in kmeans smacof pagerank pairwise_distances distance_histogram pair_counts --progress --quiet --no-cache; do
  expect_text stdout "$word" "itercl run --help"
done
# every algorithm's kernel choices, from the library's tables (csr_adaptive: once missing from a copied list)
for line in "kmeans params.kernel.variant: auto, naive," "pagerank params.format: auto, csr_scalar, csr_vector, csr_adaptive," \
  "pairwise_distances params.kernel.knn: auto, fused, rows, tiles" "pair_counts params.kernel.variant: auto, naive,"; do
  expect_text stdout "$line" "itercl run --help"
done
run_itercl tune --help
expect_rc 0 "itercl tune --help"
for word in kmeans smacof pagerank pairwise pair_histogram --repeat --budget --force --progress --quiet --verbose; do
  expect_text stdout "$word" "itercl tune --help"
done
grep -q -- "--repeats" "$tmp/stdout" && fail "itercl tune --help shows the deprecated --repeats"
run_itercl bench --help
expect_rc 0 "itercl bench --help"
expect_text stdout "--repeat" "itercl bench --help"
expect_text stdout "--progress" "itercl bench --help"
run_itercl tune kmeans --dry-run --repeats 1 --problem '{"n_samples": 64, "n_features": 2, "n_clusters": 2}'
expect_rc 0 "itercl tune --repeats (deprecated alias)"
expect_text stderr "--repeats is deprecated; use --repeat" "itercl tune --repeats"

# --- tuning that is used: tune stores in the user's folder ($XDG_CONFIG_HOME/itercl/tuning), runs read it ---
xdg=$tmp/xdg
ITERCL_NO_USER_TUNING=0 XDG_CONFIG_HOME=$xdg run_itercl tune kmeans --repeat 1 --force \
  --problem '{"n_samples": 64, "n_features": 2, "n_clusters": 2}'
expect_rc 0 "itercl tune kmeans (user folder)"
[[ -f $xdg/itercl/tuning/kmeans.json ]] || fail "itercl tune: nothing stored in \$XDG_CONFIG_HOME/itercl/tuning"
ITERCL_NO_USER_TUNING=0 XDG_CONFIG_HOME=$xdg run_itercl run "$tmp/good.json" --out "$tmp/tuned.json"
expect_rc 0 "itercl run with a user tuning folder"
check_results "$tmp/tuned.json" 'r["kernel"]["tuning_sources"][-1] == "user:devices/" + r["device"]["name"]'
# --tuning DIR (as $ITERCL_TUNING_DIR) is where tune stores and what runs read over the user's folder
ITERCL_NO_USER_TUNING=0 XDG_CONFIG_HOME=$xdg run_itercl tune kmeans --repeat 1 --force --tuning "$tmp/mine" \
  --problem '{"n_samples": 64, "n_features": 2, "n_clusters": 2}'
expect_rc 0 "itercl tune --tuning DIR"
[[ -f $tmp/mine/kmeans.json ]] || fail "itercl tune --tuning DIR: nothing stored there"
ITERCL_NO_USER_TUNING=0 XDG_CONFIG_HOME=$xdg run_itercl run "$tmp/good.json" --out "$tmp/tuned.json" --tuning "$tmp/mine"
check_results "$tmp/tuned.json" 'r["kernel"]["tuning_sources"][-2:] == ["user:devices/" + r["device"]["name"], "devices/" + r["device"]["name"]]'
# the tests themselves never see a user's folder (tests/CMakeLists.txt sets ITERCL_NO_USER_TUNING)
XDG_CONFIG_HOME=$xdg run_itercl run "$tmp/good.json" --out "$tmp/tuned.json"
check_results "$tmp/tuned.json" 'not any(s.startswith("user:") for s in r["kernel"]["tuning_sources"])'

# --- bench peers: a missing one and a crashed one are errors (exit 1), both said on stderr ---
cat >"$tmp/suite.json" <<'EOF'
{"name": "cli", "warmup": 0, "repeat": 1,
 "experiment": {"algorithm": "kmeans", "data": {"path": "points.csv"}, "params": {"n_clusters": 3, "random_state": 0}},
 "groups": [{"name": "one"}],
 "peers": [{"name": "gone", "command": ["python3", "-c", "import itercl_no_such_module"]}],
 "output": "out/suite.json"}
EOF
run_itercl bench "$tmp/suite.json"
expect_rc 1 "itercl bench with a missing peer"
expect_text stdout "1 peers, 1 missing, 0 crashed" "itercl bench with a missing peer"
expect_text stderr "failed: peers not installed (their results are absent; see" "itercl bench with a missing peer"
expect_text stderr "): gone" "itercl bench with a missing peer"
# A peer that lists a {"peer", "missing"} record (a package it could not import) is missing too. Peers
# run from the suite's folder.
echo 'print("[{\"peer\": \"x\", \"missing\": \"No module named y\"}]")' >"$tmp/missing_peer.py"
echo 'import json, sys; print(json.dumps([{"exe": sys.executable}]))' >"$tmp/exe_peer.py"
sed 's|"-c", "import itercl_no_such_module"|"missing_peer.py"|' "$tmp/suite.json" >"$tmp/record-suite.json"
run_itercl bench "$tmp/record-suite.json"
expect_rc 1 "itercl bench with a peer that lists a missing record"
expect_text stdout "1 peers, 1 missing, 0 crashed" "itercl bench with a peer that lists a missing record"
# "python3" in a peer's command is the build's interpreter (or $ITERCL_PYTHON), never the first python3
# on PATH: here a python3 on PATH that fails.
mkdir -p "$tmp/wrong-bin"
printf '#!/bin/sh\necho "the wrong python3" >&2\nexit 1\n' >"$tmp/wrong-bin/python3"
chmod +x "$tmp/wrong-bin/python3"
sed 's|"-c", "import itercl_no_such_module"|"exe_peer.py"|' "$tmp/suite.json" >"$tmp/exe-suite.json"
PATH="$tmp/wrong-bin:$PATH" run_itercl bench "$tmp/exe-suite.json"
expect_rc 0 "itercl bench with a wrong python3 first on PATH"
check_results "$tmp/out/suite.json" 'r["peers"][0]["output"][0]["exe"] == r["peers"][0]["command"][0] != "python3"'
PATH="$tmp/wrong-bin:$PATH" ITERCL_PYTHON=/usr/bin/python3 run_itercl bench "$tmp/exe-suite.json"
expect_rc 0 "ITERCL_PYTHON=/usr/bin/python3 itercl bench"
check_results "$tmp/out/suite.json" 'r["peers"][0]["command"][0] == "/usr/bin/python3"'
sed 's|"import itercl_no_such_module"|"raise SystemExit(3)"|' "$tmp/suite.json" >"$tmp/crash-suite.json"
run_itercl bench "$tmp/crash-suite.json" --quiet
expect_rc 1 "itercl bench with a crashed peer"
expect_text stderr "failed: peers crashed" "itercl bench with a crashed peer"
# A suite is read as a config is: a number beyond double names the suite and the field (was exit 1).
sed 's|"warmup": 0|"warmup": 1e999|' "$tmp/suite.json" >"$tmp/overflow-suite.json"
run_itercl bench "$tmp/overflow-suite.json"
expect_rc 2 "itercl bench overflow-suite.json"
expect_text stderr "overflow-suite.json: warmup: a number beyond the range of double" "itercl bench overflow-suite.json"
# Issue 34: a peer's timeout_s beyond int ran with the wrapped value (4294967896 s became 600 s).
sed 's|"name": "gone",|"name": "gone", "timeout_s": 4294967896,|' "$tmp/suite.json" >"$tmp/timeout-suite.json"
run_itercl bench "$tmp/timeout-suite.json"
expect_rc 2 "itercl bench timeout-suite.json"
expect_text stderr "timeout-suite.json: peers[0].timeout_s: 4294967896 is out of range: expected an integer from 1 to 2147483647" \
  "itercl bench timeout-suite.json"
# Its results and CSV are one output set: the CSV may not be the suite itself.
sed 's|"output": "out/suite.json"|"output": "suite-self.json"|' "$tmp/suite.json" >"$tmp/suite-self.csv"
cp "$tmp/suite-self.csv" "$tmp/suite-self.json"
run_itercl bench "$tmp/suite-self.csv"
expect_rc 2 "itercl bench suite-self.csv"
expect_text stderr "is the run's own input" "itercl bench suite-self.csv"

# --- bad input: exit code 2, "error:" and the culprit on stderr ---
cp "$results" "$tmp/results.before"
cat >"$tmp/bad.json" <<'EOF'
{
  "algorithm": "kmeans",
  "data": {"path": "points.csv"},
  "params": {"n_clusters": 3, "n_cluster": 3},
  "output": {"path": "out/results.json"}
}
EOF
run_itercl run "$tmp/bad.json"
expect_rc 2 "itercl run bad.json"
expect_text stderr "error:" "itercl run bad.json"
expect_text stderr "params.n_cluster" "itercl run bad.json"
cmp -s "$results" "$tmp/results.before" || fail "itercl run bad.json changed the results file of the earlier run"

run_itercl run "$tmp/no-such-config.json"
expect_rc 2 "itercl run on a missing config"
expect_text stderr "error:" "itercl run on a missing config"
expect_text stderr "no-such-config.json" "itercl run on a missing config"

# --- issue 14: input that is no regular file, or numbers out of range, exit 2 naming the file and field ---
mkfifo "$tmp/fifo.csv"
for data in "$tmp/fifo.csv" /dev/zero /dev/urandom "$tmp"; do
  sed "s|\"points.csv\"|\"$data\"|" "$tmp/good.json" >"$tmp/special.json"
  run_itercl run "$tmp/special.json"  # a FIFO blocked forever, /dev/zero ran out of memory
  expect_rc 2 "itercl run with data $data"
  expect_text stderr "expected a regular file" "itercl run with data $data"
done
mkdir "$tmp/folder.json"
run_itercl run "$tmp/folder.json"
expect_rc 2 "itercl run on a directory"
expect_text stderr "folder.json: cannot open the config file: the path is a directory" "itercl run on a directory"
sed 's|"n_clusters": 3|"n_clusters": 1e999|' "$tmp/good.json" >"$tmp/overflow.json"
run_itercl run "$tmp/overflow.json"
expect_rc 2 "itercl run overflow.json"
expect_text stderr "overflow.json: params.n_clusters: a number beyond the range of double" "itercl run overflow.json"
run_itercl tune kmeans --dry-run --problem '{"n_samples": 1e999}'
expect_rc 2 "itercl tune --problem with 1e999"
expect_text stderr "--problem: n_samples: a number beyond the range of double" "itercl tune --problem with 1e999"
run_itercl tune kmeans --dry-run --problem '{"n_samples": 18446744073709551615}'
expect_rc 2 "itercl tune --problem with 2^64 - 1"
expect_text stderr "n_samples: 18446744073709551615 is out of range" "itercl tune --problem with 2^64 - 1"
# --- issue 34: JSON nested 100,000 deep overflowed the stack (exit 139); a repeated key kept its last value;
# an int kernel field wrapped (4294967360 ran as 64) ---
python3 -c 'import sys; n = 100000; sys.stdout.write("{\"algorithm\": " + "[" * n + "]" * n + "}")' >"$tmp/deep.json"
run_itercl run "$tmp/deep.json"
expect_rc 2 "itercl run deep.json"
expect_text stderr "deep.json: objects and arrays nested deeper than 128 levels" "itercl run deep.json"
run_itercl tune kmeans --dry-run --problem "$(python3 -c 'print("[" * 50000 + "]" * 50000)')"  # one argument: at most 128 KiB
expect_rc 2 "itercl tune --problem nested 50,000 deep"
expect_text stderr "--problem: objects and arrays nested deeper than 128 levels" "itercl tune --problem nested deep"
sed 's|"n_clusters": 3|"n_clusters": 3, "n_clusters": 4|' "$tmp/good.json" >"$tmp/twice.json"
run_itercl run "$tmp/twice.json"
expect_rc 2 "itercl run twice.json"
expect_text stderr "twice.json: params.n_clusters: the key appears twice in one object" "itercl run twice.json"
sed 's|"n_clusters": 3|"n_clusters": 3, "kernel": {"work_group_size": 4294967360}|' "$tmp/good.json" >"$tmp/wrap.json"
run_itercl run "$tmp/wrap.json"
expect_rc 2 "itercl run wrap.json"
expect_text stderr "wrap.json: params.kernel.work_group_size: 4294967360 is out of range: expected an integer from 0 to 2147483647" \
  "itercl run wrap.json"
sed 's|"algorithm": "kmeans",|"algorithm": "kmeans", "repeat": 3000000000,|' "$tmp/good.json" >"$tmp/repeat.json"
run_itercl run "$tmp/repeat.json"  # was truncated to an int and replaced the results with an empty run
expect_rc 2 "itercl run repeat.json"
expect_text stderr "repeat.json: repeat: 3000000000 is out of range" "itercl run repeat.json"
cmp -s "$results" "$tmp/results.before" || fail "itercl run repeat.json changed the results file of the earlier run"

# --- issue 14, nothing lost: output paths checked before the run, all outputs or none ---
# A results folder that cannot be created (under /dev/null): refused before the run, naming the field.
sed 's|"out/results.json", "labels": "out/labels.txt"|"/dev/null/x/results.json"|' "$tmp/good.json" >"$tmp/unwritable.json"
grep -qF '/dev/null/x/results.json' "$tmp/unwritable.json" || fail "could not write the unwritable.json config"
run_itercl run "$tmp/unwritable.json"
expect_rc 2 "itercl run unwritable.json"
expect_text stderr "unwritable.json: output.path: /dev/null/x/results.json: cannot create its folder" \
  "itercl run unwritable.json"
labels=$tmp/out/labels.txt
cp "$labels" "$tmp/labels.before"
expect_refused() {  # labels path in the config, expected text on stderr
  sed "s|\"out/labels.txt\"|\"$1\"|" "$tmp/good.json" >"$tmp/refused.json"
  run_itercl run "$tmp/refused.json"
  expect_rc 2 "itercl run with labels $1"
  expect_text stderr "refused.json: output.labels: $1: $2" "itercl run with labels $1"
  grep -qF "inertia" "$tmp/stdout" && fail "itercl run with labels $1: the run went ahead"
  cmp -s "$results" "$tmp/results.before" || fail "itercl run with labels $1 changed the results of the earlier run"
  cmp -s "$labels" "$tmp/labels.before" || fail "itercl run with labels $1 changed the labels of the earlier run"
}
expect_refused /dev/full "is a character device" # as root, the device was replaced by a regular file
[[ -c /dev/full ]] || fail "/dev/full is no longer a character device"
expect_refused "$tmp" "is a directory"
expect_refused "$tmp/points.csv" "is the run's own input"
ln -s points.csv "$tmp/points-link.csv"
expect_refused "$tmp/points-link.csv" "is the run's own input"
expect_refused "$tmp/refused.json" "is the run's own input" # the config itself
expect_refused "$tmp/out/results.json" "also"
# Outputs whose names the run chooses are checked before the run too: the centroids beside the results
# (1,001 clusters x 10 features, more than go inline) would go to a directory.
mkdir "$tmp/out/results.centroids.npy"
sed 's|"path": "points.csv"|"generator": "uniform", "n_samples": 1200, "n_features": 10, "random_state": 1|;
     s|"n_clusters": 3|"n_clusters": 1001, "max_iter": 1|' "$tmp/good.json" >"$tmp/many.json"
run_itercl run "$tmp/many.json"
expect_rc 2 "itercl run many.json"
expect_text stderr "many.json: the centroids beside the results: $tmp/out/results.centroids.npy: is a directory" \
  "itercl run many.json"
cmp -s "$results" "$tmp/results.before" || fail "itercl run many.json changed the results of the earlier run"
cmp -s "$labels" "$tmp/labels.before" || fail "itercl run many.json changed the labels of the earlier run"
rmdir "$tmp/out/results.centroids.npy"
# A temporary file left by a killed run (SIGKILL: its pid no longer runs) is removed by the next run to
# the same path; a running process's is kept.
sleep 0 &
dead=$!
wait $dead
touch "$labels.tmp-$dead-1" "$labels.tmp-$$-1"
run_itercl run "$tmp/good.json"
expect_rc 0 "itercl run good.json after a killed run"
[[ ! -e $labels.tmp-$dead-1 ]] || fail "the stale temporary file of a dead process was not removed"
[[ -e $labels.tmp-$$-1 ]] || fail "the temporary file of a running process was removed"
rm "$labels.tmp-$$-1"
cmp -s "$labels" "$tmp/labels.before" || fail "itercl run good.json: different labels from the same seed"
# SIGTERM while the matrix streams to its temporary file: no temporary left, the earlier files kept.
mkdir "$tmp/pw"
echo old >"$tmp/pw/results.json"
echo old >"$tmp/pw/matrix.npy"
cat >"$tmp/pw.json" <<'EOF'
{"algorithm": "pairwise_distances", "params": {"form": "dense"},
 "data": {"generator": "uniform", "n_samples": 4000, "n_features": 64, "random_state": 1},
 "output": {"path": "pw/results.json", "matrix": "pw/matrix.npy"}}
EOF
"$itercl" run "$tmp/pw.json" --quiet >"$tmp/stdout" 2>"$tmp/stderr" &
pid=$!
for _ in $(seq 1 600); do
  compgen -G "$tmp/pw/matrix.npy.tmp-*" >/dev/null && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
compgen -G "$tmp/pw/matrix.npy.tmp-*" >/dev/null || fail "pairwise: no temporary matrix file appeared to interrupt"
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[[ $rc -eq 143 ]] || fail "itercl run pw.json under SIGTERM: exit code $rc, expected 143 (ended by the signal)"
[[ $(ls "$tmp/pw") == $'matrix.npy\nresults.json' ]] || fail "SIGTERM left files behind: $(ls "$tmp/pw")"
[[ $(cat "$tmp/pw/matrix.npy" "$tmp/pw/results.json") == $'old\nold' ]] || fail "SIGTERM changed the earlier files"
# A dense matrix larger than its file system's free space: refused before the run, naming the bytes.
sed 's|"n_samples": 4000, "n_features": 64|"n_samples": 3000000, "n_features": 1|' "$tmp/pw.json" >"$tmp/huge.json"
run_itercl run "$tmp/huge.json"
expect_rc 2 "itercl run huge.json"
expect_text stderr "huge.json: output.matrix: $tmp/pw/matrix.npy needs 36000000000128 bytes" "itercl run huge.json"

# --- issue 34: an edge list's first line "5 3" (then 3 edges among ids below 5) is an edge, as networkx
# reads it, unless data.header says counts; a line skipped, or an edge like counts, is said in the summary ---
printf '5 3\n0 1\n2 1\n4 0\n' >"$tmp/counts.txt"
cat >"$tmp/counts.json" <<'EOF'
{"algorithm": "pagerank", "data": {"path": "counts.txt"}, "output": "out/counts.json"}
EOF
run_itercl run "$tmp/counts.json"
expect_rc 0 "itercl run counts.json"
expect_text stdout "data: the first line '5 3' was read as an edge; if it is the node and edge counts, set data.header to true" \
  "itercl run counts.json"
check_results "$tmp/out/counts.json" 'r["data"]["n_links"] == 4 and r["data"]["first_edge_like_counts"] == "5 3"'
sed 's|"path": "counts.txt"|"path": "counts.txt", "header": true|' "$tmp/counts.json" >"$tmp/counts-header.json"
run_itercl run "$tmp/counts-header.json"
expect_rc 0 "itercl run counts-header.json"
expect_text stdout "data: the first line '5 3' was skipped as a header" "itercl run counts-header.json"
check_results "$tmp/out/counts.json" 'r["data"]["n_links"] == 3 and r["data"]["header_skipped"] == "5 3"'
# A graph whose only edge is a self-loop: one node, rank 1.
printf '7 7\n' >"$tmp/loop.txt"
sed 's|"counts.txt"|"loop.txt"|' "$tmp/counts.json" >"$tmp/loop.json"
run_itercl run "$tmp/loop.json"
expect_rc 0 "itercl run loop.json"
check_results "$tmp/out/counts.json" 'list(r["result"]["ranks"]) == ["7"] and abs(r["result"]["ranks"]["7"] - 1) < 1e-6'

# --- issue 34: messages that name the real cause ---
ln -s "$tmp/loop-b.csv" "$tmp/loop-a.csv"
ln -s "$tmp/loop-a.csv" "$tmp/loop-b.csv"
sed 's|"points.csv"|"loop-a.csv"|' "$tmp/good.json" >"$tmp/symlink-loop.json"
run_itercl run "$tmp/symlink-loop.json"  # was "cannot open (does the file exist?)"
expect_rc 2 "itercl run symlink-loop.json"
expect_text stderr "loop-a.csv: is a loop of symbolic links; expected a regular file" "itercl run symlink-loop.json"
# PoCL cannot start without a writable cache folder: said so, not "no ICD is registered".
if grep -qs pocl /etc/OpenCL/vendors/*.icd; then
  set +e
  env -u POCL_CACHE_DIR -u XDG_CACHE_HOME HOME=/dev/null "$itercl" devices >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  set -e
  expect_rc 1 "itercl devices with HOME=/dev/null"
  expect_text stderr "PoCL, the CPU driver registered here, cannot create its kernel cache folder /dev/null/.cache/pocl/kcache" \
    "itercl devices with HOME=/dev/null"
fi

# --- issue 34: outputs never mixed ---
# --out - to a standard output that cannot be written (/dev/full, closed) fails and commits nothing.
echo old >"$tmp/out/labels.txt"
for target in full closed; do
  set +e
  if [[ $target == full ]]; then
    "$itercl" run "$tmp/good.json" --out - --quiet >/dev/full 2>"$tmp/stderr"
  else
    "$itercl" run "$tmp/good.json" --out - --quiet >&- 2>"$tmp/stderr"
  fi
  rc=$?
  set -e
  expect_rc 1 "itercl run --out - to a $target standard output"
  expect_text stderr "standard output: cannot write the results" "itercl run --out - ($target)"
  [[ $(cat "$tmp/out/labels.txt") == old ]] || fail "--out - to a $target standard output committed the labels"
done
set +e
"$itercl" devices --json >/dev/full 2>"$tmp/stderr"
rc=$?
set -e
expect_rc 1 "itercl devices --json >/dev/full"
expect_text stderr "standard output: cannot write the device list" "itercl devices --json >/dev/full"
# Paths that can never be written are refused before the run: the kernel's file systems, and a name that
# the temporary suffix pushes past NAME_MAX (it failed after the computation).
for kernel_fs in /proc /sys; do
  run_itercl run "$tmp/good.json" --out "$kernel_fs/itercl-results.json"
  expect_rc 2 "itercl run --out $kernel_fs/..."
  expect_text stderr "$kernel_fs/itercl-results.json" "itercl run --out $kernel_fs/..."
done
long=$(printf 'r%.0s' $(seq 1 240)).json
run_itercl run "$tmp/good.json" --out "$tmp/$long"
expect_rc 2 "itercl run --out (a 245-byte name)"
expect_text stderr "with the temporary suffix (25 more) it passes the folder's limit of 255" "itercl run --out (long name)"
# Two runs writing the same outputs: the second is refused (exit 2) naming the first, which still ends
# with its own complete outputs.
"$itercl" run "$tmp/pw.json" --quiet >/dev/null 2>&1 &
first=$!
for _ in $(seq 1 600); do
  [[ -e $tmp/pw/.results.json.itercl-lock ]] && break
  sleep 0.05
done
run_itercl run "$tmp/pw.json" --quiet
expect_rc 2 "a second itercl run on the same outputs"
expect_text stderr "pw/results.json: another itercl run (pid $first) is writing it now" "a second run on the same outputs"
wait $first || fail "the first of two runs on the same outputs failed"
check_results "$tmp/pw/results.json" 'r["config"]["output"]["matrix"] == "pw/matrix.npy"'
[[ ! -e $tmp/pw/.results.json.itercl-lock ]] || fail "the output lock stayed after the run"
# SIGHUP, SIGQUIT and SIGUSR1 clean up as SIGTERM does: no temporary left, the earlier files kept (PoCL's
# LLVM, whose handlers swallowed SIGQUIT and SIGUSR1, is behind ours: docs/robustness.md).
for signal in HUP QUIT USR1; do
  echo old >"$tmp/pw/results.json"
  echo old >"$tmp/pw/matrix.npy"
  # A script's background jobs start with SIGINT and SIGQUIT ignored (which itercl keeps): restored here.
  (ulimit -c 0 && exec env --default-signal=INT,QUIT "$itercl" run "$tmp/pw.json" --quiet >/dev/null 2>&1) &
  pid=$!
  for _ in $(seq 1 600); do
    compgen -G "$tmp/pw/matrix.npy.tmp-*" >/dev/null && break
    sleep 0.05
  done
  kill -$signal $pid
  set +e
  wait $pid
  set -e
  [[ $(ls -A "$tmp/pw") == $'matrix.npy\nresults.json' ]] || fail "SIG$signal left files behind: $(ls -A "$tmp/pw")"
  [[ $(cat "$tmp/pw/matrix.npy" "$tmp/pw/results.json") == $'old\nold' ]] || fail "SIG$signal changed the earlier files"
done
# An interrupted bench removes its work folder (TMPDIR/itercl-bench-*; it stayed forever).
mkdir "$tmp/benchtmp"
sed 's|"n_clusters": 3, "random_state": 0}|"n_clusters": 3, "random_state": 0, "max_iter": 300}|; s|"repeat": 1|"repeat": 100000|' \
  "$tmp/suite.json" >"$tmp/long-suite.json"
TMPDIR=$tmp/benchtmp env --default-signal=INT "$itercl" bench "$tmp/long-suite.json" --quiet --no-peers >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  compgen -G "$tmp/benchtmp/itercl-bench-*" >/dev/null && break
  sleep 0.05
done
compgen -G "$tmp/benchtmp/itercl-bench-*" >/dev/null || fail "bench: no work folder appeared to interrupt"
kill -INT $pid
set +e
wait $pid
set -e
[[ -z $(ls -A "$tmp/benchtmp") ]] || fail "an interrupted bench left its work folder: $(ls -A "$tmp/benchtmp")"

echo "cli_test: all checks passed"
