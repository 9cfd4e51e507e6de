#!/usr/bin/env bash
# The engine's benchmarks of the working tree against a base commit, run
# side by side and compared with benchstat, so a slowdown shows before it
# lands.
#
#   docs/bench/regress.sh [BASE] [ROUNDS]     BASE: a commit (default main), ROUNDS: default 6
#
# Each benchmark package is compiled twice (the base in a temporary
# worktree, the change here), then the two binaries run in turn, one round
# each, ROUNDS times: a machine whose speed drifts (another process, a
# thermal limit) slows both alike instead of the one measured second.
# Benchmarks are matched by name, not by package, so a benchmark that moved
# to another package is still compared. The script fails when a benchmark's
# time or allocated bytes a run grew by more than TABNORM_BENCH_LIMIT percent
# (default 10) and benchstat finds the change significant (p < 0.05).
set -euo pipefail

base=${1:-main}
rounds=${2:-6}
limit=${TABNORM_BENCH_LIMIT:-10}
filter=${TABNORM_BENCH_FILTER:-'^Benchmark(Engine|EngineRules|Coerce|PhoneValid|MatchColumns|CSVReader|TSVReader|JSONLReader|XLSXReader|WriteRows|WriteCSV)$'}
benchtime=${TABNORM_BENCH_TIME:-1s}
# The folders holding the engine's, the readers' and the writers' benchmarks.
roots=(domain adapters/formats adapters/export adapters/httpapi)

head=$(git rev-parse --show-toplevel)
cd "$head"
base_rev=$(git rev-parse --verify "$base^{commit}")
work=$(mktemp -d)
trap 'git -C "$head" worktree remove --force "$work/base" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git worktree add --detach --quiet "$work/base" "$base_rev"
# Corpus and bench data are found beside the repository; the base sees the
# same ones.
export TABNORM_TEST_CORPUS=${TABNORM_TEST_CORPUS:-$(cd "$head/.." && pwd)/shared/corpus}

# packages TREE prints the folders under roots whose tests hold a benchmark
# the filter matches.
packages() {
  (cd "$1" && grep -rlE '^func Benchmark' --include='*_test.go' "${roots[@]}" 2>/dev/null | xargs -r dirname | sort -u)
}

# build TREE SIDE compiles each benchmark package of TREE.
build() {
  local tree=$1 side=$2 dir
  mkdir -p "$work/$side"
  for dir in $(packages "$tree"); do
    (cd "$tree" && go test -c -o "$work/$side/$(echo "$dir" | tr / _).test" "./$dir") >/dev/null
  done
}

echo "building $base ($(git rev-parse --short "$base_rev")) and the working tree"
build "$work/base" base
build "$head" head

# run TREE SIDE runs one round of every benchmark binary of SIDE, each in
# its package folder (benchmarks read testdata by relative path).
run() {
  local tree=$1 side=$2 bin dir
  for bin in "$work/$side"/*.test; do
    [ -e "$bin" ] || continue
    dir=$(basename "$bin" .test | tr _ /)
    (cd "$tree/$dir" && "$bin" -test.run '^$' -test.bench "$filter" -test.benchmem \
      -test.benchtime "$benchtime" -test.count 1) | grep -E '^Benchmark' >>"$work/$side.txt" || true
  done
}

for i in $(seq 1 "$rounds"); do
  echo "round $i of $rounds"
  if ((i % 2)); then run "$work/base" base; run "$head" head; else run "$head" head; run "$work/base" base; fi
done

go tool -modfile="$head/tools/go.mod" benchstat "base=$work/base.txt" "head=$work/head.txt"

# The gate: a significant growth of sec/op or B/op past the limit fails.
go tool -modfile="$head/tools/go.mod" benchstat -format csv "base=$work/base.txt" "head=$work/head.txt" 2>/dev/null |
  awk -F, -v limit="$limit" '
    $1 == "" && $2 != "base" { unit = $2 }
    (unit == "sec/op" || unit == "B/op") && $1 != "" && $1 != "geomean" && NF >= 7 {
      delta = $6; p = $7
      sub(/^\+/, "", delta); sub(/%$/, "", delta); sub(/^p=/, "", p); sub(/ n=.*/, "", p)
      if (delta ~ /^[0-9.]+$/ && delta + 0 > limit && p + 0 < 0.05) {
        printf "slower: %s %s +%s%% (p=%s)\n", $1, unit, delta, p; bad = 1
      }
    }
    END { exit bad }' || { echo "a benchmark grew by more than $limit %: see the table above" >&2; exit 1; }
echo "no benchmark grew by more than $limit % (p < 0.05)"
