#!/usr/bin/env bash
# Times the downloads of a finished 1M-row contacts job over HTTP on the embedded SQLite default:
# rows.jsonl, rows.csv (identity and gzip), rows.parquet and rows.xlsx (the first download builds the
# file, the second is served from where the first kept it), with each request's server CPU.
#   docs/bench/downloads.sh [BINARY]   (default: built from the working tree)
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH=${BENCH:-../shared/bench}
DATA=${BENCHDATA:-/tmp/benchdata}
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
TN=${1:-}
if [[ -z $TN ]]; then TN=$WORK/tabnorm; go build -o "$TN" ./cmd/tabnorm; fi
[[ -f $DATA/contacts_1m.csv ]] || /usr/bin/python3 "$BENCH/gen.py" --out "$DATA" --no-xlsx
SCHEMA=$BENCH/contacts.schema.json
export TABNORM_DATABASE_URL="sqlite://$WORK/db.sqlite" TABNORM_BLOB_URL="file://$WORK/blobs" TABNORM_LOG_LEVEL=error
$TN migrate >/dev/null
ORG=$($TN admin create-org --name bench --json | sed 's/.*"id":"\([^"]*\)".*/\1/')
KEY=$($TN admin create-key --org "$ORG" --name bench --json | sed 's/.*"key":"\([^"]*\)".*/\1/')
PORT=${PORT:-18191}
TABNORM_HTTP_ADDR=127.0.0.1:$PORT TABNORM_MAX_UPLOAD_BYTES=$((2 << 30)) $TN serve > "$WORK/serve.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null && break; sleep 0.1; done
BASE=http://127.0.0.1:$PORT/v1/jobs
JOB=$(curl -sf -H "Authorization: Bearer $KEY" -F "file=@$DATA/contacts_1m.csv" -F "schema=<$SCHEMA" "$BASE" |
  sed 's/.*"id":"\(job_[^"]*\)".*/\1/')
(curl -sfN -H "Authorization: Bearer $KEY" "$BASE/$JOB/events" || true) | grep -q '^event: job.succeeded'
cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; } # the server's user + system ticks
get() { # label path [curl options]
  local label=$1 path=$2; shift 2
  local c0 t c1
  c0=$(cpu)
  t=$(curl -sf -o "$WORK/out" -w '%{time_total} %{size_download}' -H "Authorization: Bearer $KEY" "$@" "$BASE/$JOB/$path")
  c1=$(cpu)
  printf '%-22s %8.3f s  %6.2f s server CPU  %11d bytes\n' "$label" "${t% *}" "$(echo "($c1 - $c0) / $(getconf CLK_TCK)" | bc -l)" "${t#* }"
}
get rows.jsonl rows.jsonl
get rows.csv rows.csv
get "rows.csv (gzip)" rows.csv --compressed
get "rows.parquet (build)" rows.parquet
get "rows.parquet (kept)" rows.parquet
get "rows.xlsx (build)" rows.xlsx
get "rows.xlsx (kept)" rows.xlsx
echo "peak server RSS: $(awk '/VmHWM/ {print $2, $3}' /proc/$PID/status); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
