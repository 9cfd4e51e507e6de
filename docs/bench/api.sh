#!/usr/bin/env bash
# The API's cost per request, side by side: builds the working tree and an
# earlier commit, starts each on loopback with a fresh database holding one
# finished job, and loads GET /v1/jobs/{id}, GET /v1/jobs and /healthz with
# tools/loadgen (50 keep-alive clients, 5 s a route), alternating the two
# builds ROUNDS times so that a change in the machine's load hits both.
#
#   docs/bench/api.sh [BASE_COMMIT]          # default ab68fa5
#   ROUNDS=3 CLIENTS=50 DURATION=5s DB=sqlite|postgres docs/bench/api.sh
#   ENCODING=gzip docs/bench/api.sh          # send Accept-Encoding (none by default)
#   ROUTES=/v1/jobs/{id},/healthz docs/bench/api.sh
#
# DB=postgres needs a server where a scratch database may be created
# (TABNORM_TEST_DATABASE_URL, as the tests use). Everything runs on
# 127.0.0.1 and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:-ab68fa5}
rounds=${ROUNDS:-3}
clients=${CLIENTS:-50}
duration=${DURATION:-5s}
db=${DB:-sqlite}
encoding=${ENCODING:-}
default_routes='/v1/jobs/{id},/v1/jobs,/healthz'
routes=${ROUTES:-$default_routes}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  git worktree remove --force "$work/base-tree" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the working tree and $base"
go build -o "$work/tabnorm-head" ./cmd/tabnorm
git worktree add -q --detach "$work/base-tree" "$base"
(cd "$work/base-tree" && go build -o "$work/tabnorm-base" ./cmd/tabnorm)
(cd tools && go build -o "$work/loadgen" ./loadgen)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start NAME: a fresh database and blob folder, the server on a free port,
# an organization, a key and one succeeded job; sets URL_<NAME>, KEY_<NAME>,
# JOB_<NAME>, PID_<NAME>.
start() {
  local name=$1 bin="$work/tabnorm-$1" dir="$work/$1" port
  mkdir -p "$dir"
  port=$(free_port)
  local dburl="sqlite://$dir/tabnorm.db"
  if [ "$db" = postgres ]; then
    local scratch="tabnorm_bench_${name}_$$"
    psql "${TABNORM_TEST_DATABASE_URL:?DB=postgres needs TABNORM_TEST_DATABASE_URL}" -q -c "DROP DATABASE IF EXISTS $scratch" -c "CREATE DATABASE $scratch"
    dburl=$(python3 -c 'import sys,urllib.parse as u; p=u.urlparse(sys.argv[1]); print(p._replace(path="/"+sys.argv[2]).geturl())' "$TABNORM_TEST_DATABASE_URL" "$scratch")
  fi
  export TABNORM_DATABASE_URL="$dburl" TABNORM_BLOB_URL="file://$dir/blobs" TABNORM_HTTP_ADDR="127.0.0.1:$port" \
    TABNORM_RATE_LIMIT_PER_SECOND=1000000 TABNORM_RATE_LIMIT_BURST=1000000
  "$bin" migrate >/dev/null
  local org key
  org=$("$bin" admin create-org --name bench | grep -o 'org_[a-z0-9]*' | head -n 1)
  key=$("$bin" admin create-key --org "$org" --name bench | grep -o 'svc_[a-z]*_[A-Za-z0-9]*' | head -n 1)
  "$bin" serve >"$dir/serve.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/readyz" && break; sleep 0.2; done
  printf 'name,email,age\nAda,ada@example.com,36\nGrace,grace@example.com,45\n' >"$dir/people.csv"
  printf '{"fields":[{"name":"name","type":"string"},{"name":"email","type":"string","format":"email"},{"name":"age","type":"integer"}]}' >"$dir/people.schema.json"
  local job
  job=$(curl -fs -H "Authorization: Bearer $key" -F file=@"$dir/people.csv" -F schema=@"$dir/people.schema.json" \
    "http://127.0.0.1:$port/v1/jobs" | grep -o '"id":"job_[a-z0-9]*"' | head -n 1 | cut -d'"' -f4)
  for _ in $(seq 1 150); do
    curl -fs -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/jobs/$job" | grep -q '"status":"succeeded"' && break
    sleep 0.2
  done
  eval "URL_$name=http://127.0.0.1:$port KEY_$name=$key JOB_$name=$job PID_$name=$pid"
}

start head
start base

for round in $(seq 1 "$rounds"); do
  for name in base head; do
    url="URL_$name" key="KEY_$name" job="JOB_$name" pid="PID_$name"
    "$work/loadgen" -url "${!url}" -key "${!key}" -job "${!job}" -pid "${!pid}" -c "$clients" -d "$duration" -encoding "$encoding" -routes "$routes" -json |
      python3 -c 'import json,sys; [print(json.dumps(dict(r, build=sys.argv[1], round=int(sys.argv[2])))) for r in json.load(sys.stdin)]' "$name" "$round" >>"$work/results.jsonl"
  done
done

python3 - "$work/results.jsonl" "$base" "$db" "$(uptime | sed 's/.*load average: //')" <<'EOF'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
base, db, load = sys.argv[2], sys.argv[3], sys.argv[4]
print(f"\n{db}; median of {max(r['round'] for r in rows)} alternating rounds; load average at the end {load}")
print(f"{'route':<22} {'build':<6} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7} {'peak RSS MiB':>13} {'user µs/req':>12} {'sys µs/req':>11}")
for route in dict.fromkeys(r['route'] for r in rows):
    med = {}
    for build in ('base', 'head'):
        rs = [r for r in rows if r['route'] == route and r['build'] == build]
        med[build] = statistics.median(r['requests_per_second'] for r in rs)
        label = base if build == 'base' else 'head'
        print(f"{route:<22} {label:<6.6} {med[build]:>9.0f} {statistics.median(r['p50_ms'] for r in rs):>8.2f} "
              f"{statistics.median(r['p99_ms'] for r in rs):>8.2f} {sum(r['errors'] for r in rs):>7} "
              f"{max(r.get('peak_rss_kib', 0) for r in rs)/1024:>13.1f} "
              f"{statistics.median(r.get('server_user_cpu_us_per_request', 0) for r in rs):>12.1f} "
              f"{statistics.median(r.get('server_sys_cpu_us_per_request', 0) for r in rs):>11.1f}")
        cpu = {b: statistics.median(r.get('server_user_cpu_us_per_request', 0) for r in rows if r['route'] == route and r['build'] == b) for b in ('base', 'head')}
    ratio = f"{med['head']/med['base']:>9.2f}"
    if cpu['base'] > 0:
        ratio += f" {'':<44} user CPU/req ×{cpu['head']/cpu['base']:.2f}"
    print(f"{'':<22} {'ratio':<6} {ratio}")
EOF
