#!/usr/bin/env bash
# Measures the service end to end on the embedded SQLite default:
#  1. a 1M-row contacts job, upload → succeeded, against `tabnorm normalize` offline;
#  2. the API node's peak RSS while it takes a 1 GiB upload (API role: no job runs).
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH=${BENCH:-../shared/bench}
DATA=${BENCHDATA:-/tmp/benchdata}
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT
go build -o "$WORK/tabnorm" ./cmd/tabnorm
[[ -f $DATA/contacts_1m.csv ]] || /usr/bin/python3 "$BENCH/gen.py" --out "$DATA" --no-xlsx
SCHEMA=$BENCH/contacts.schema.json
export TABNORM_DATABASE_URL="sqlite://$WORK/db.sqlite" TABNORM_BLOB_URL="file://$WORK/blobs" TABNORM_LOG_LEVEL=error
TN=$WORK/tabnorm
$TN migrate >/dev/null
ORG=$($TN admin create-org --name bench --json | sed 's/.*"id":"\([^"]*\)".*/\1/')
KEY=$($TN admin create-key --org "$ORG" --name bench --json | sed 's/.*"key":"\([^"]*\)".*/\1/')

serve() { # role port
  TABNORM_HTTP_ADDR=127.0.0.1:$2 TABNORM_MAX_UPLOAD_BYTES=$((2 << 30)) $TN serve --role "$1" > "$WORK/serve-$1.log" 2>&1 &
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$2/readyz" >/dev/null && return; sleep 0.1; done
  echo "serve did not start:" >&2; cat "$WORK/serve-$1.log" >&2; exit 1
}
now() { date +%s.%N; }

RUNS=${RUNS:-5}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

serve all 18181
e2e=(); files=(); devnull=()
for _ in $(seq 1 "$RUNS"); do
  start=$(now)
  JOB=$(curl -sf -H "Authorization: Bearer $KEY" -F "file=@$DATA/contacts_1m.csv" -F "schema=<$SCHEMA" \
        http://127.0.0.1:18181/v1/jobs | sed 's/.*"id":"\(job_[^"]*\)".*/\1/')
  # The job's event stream ends with its terminal event: no polling, which
  # would itself take CPU from the job on a small machine.
  curl -sfN -H "Authorization: Bearer $KEY" "http://127.0.0.1:18181/v1/jobs/$JOB/events" | grep -q '^event: job.succeeded'
  e2e+=("$(echo "$(now) - $start" | bc)")
done
kill %1; wait %1 2>/dev/null || true
# Offline, writing rows and issues to files as the job does, and to /dev/null.
for _ in $(seq 1 "$RUNS"); do
  start=$(now)
  $TN normalize --schema "$SCHEMA" --out "$WORK/rows.jsonl" --errors "$WORK/issues.jsonl" "$DATA/contacts_1m.csv" 2>/dev/null
  files+=("$(echo "$(now) - $start" | bc)")
  start=$(now)
  $TN normalize --schema "$SCHEMA" --errors /dev/null "$DATA/contacts_1m.csv" > /dev/null 2>&1
  devnull+=("$(echo "$(now) - $start" | bc)")
done
e2e_m=$(printf '%s\n' "${e2e[@]}" | median); files_m=$(printf '%s\n' "${files[@]}" | median); devnull_m=$(printf '%s\n' "${devnull[@]}" | median)
echo "job end to end (s):  ${e2e[*]}"
echo "offline, files (s):  ${files[*]}"
echo "offline, /dev/null:  ${devnull[*]}"
printf '1M-row job end to end, median of %d: %.2f s; offline normalize writing files: %.2f s (ratio %.2f), to /dev/null: %.2f s (ratio %.2f); goal <= 1.3\n' \
  "$RUNS" "$e2e_m" "$files_m" "$(echo "$e2e_m / $files_m" | bc -l)" "$devnull_m" "$(echo "$e2e_m / $devnull_m" | bc -l)"

# 1 GiB upload to an API-only node: nothing runs the job, so this is the upload path alone.
BIG=$WORK/big.csv
head -n 1 "$DATA/contacts_1m.csv" > "$BIG"
while [ "$(stat -c %s "$BIG")" -lt $((1 << 30)) ]; do tail -n +2 "$DATA/contacts_1m.csv" >> "$BIG"; done
serve api 18182
PID=$(pgrep -f "tabnorm serve --role api" | head -n 1)
start=$(now)
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" -F "file=@$BIG" -F "schema=<$SCHEMA" http://127.0.0.1:18182/v1/jobs)
upload=$(echo "$(now) - $start" | bc)
hwm=$(grep VmHWM "/proc/$PID/status" | awk '{print $2}')
printf '%d-byte upload: HTTP %s in %.1f s; API node peak RSS %d MiB (goal < 100)\n' "$(stat -c %s "$BIG")" "$code" "$upload" $((hwm / 1024))
