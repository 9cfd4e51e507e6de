#!/usr/bin/env bash
# Measures POST …/replacements on a 1M-row job (embedded SQLite, file
# store, one `serve` process), as docs/bench/records.sh measures records:
# the first request builds the records index; then the matched count of a
# preview (exact, contains, regex; all rows and rejected rows), a stored
# replacement, the first records page after it (the index of the new
# version is built), undo, and the first page after the undo.
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
BASE=http://127.0.0.1:18184
TABNORM_HTTP_ADDR=127.0.0.1:18184 $TN serve --role all > "$WORK/serve.log" 2>&1 &
PID=$!
for _ in $(seq 1 100); do curl -sf "$BASE/readyz" >/dev/null && break; sleep 0.1; done
JOB=$(curl -sf -H "Authorization: Bearer $KEY" -F "file=@$DATA/contacts_1m.csv" -F "schema=<$SCHEMA" "$BASE/v1/jobs" |
  sed 's/.*"id":"\(job_[^"]*\)".*/\1/')
(curl -sfN -H "Authorization: Bearer $KEY" "$BASE/v1/jobs/$JOB/events" || true) | grep -q '^event: job.succeeded'

get() { # label path: the request's time in ms
  printf '%-60s %8.1f ms\n' "$1" "$(curl -sf -o "$WORK/out.json" -w '%{time_total}' -H "Authorization: Bearer $KEY" "$BASE/v1/jobs/$JOB/$2" | awk '{print $1*1000}')"
}
post() { # label path body: the request's time in ms, and matched
  local t
  t=$(curl -sf -o "$WORK/out.json" -w '%{time_total}' -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    ${3:+-d "$3"} "$BASE/v1/jobs/$JOB/$2")
  printf '%-60s %8.1f ms  %s\n' "$1" "$(echo "$t" | awk '{print $1*1000}')" "$(grep -o '"matched":[0-9]*' "$WORK/out.json" || true)"
}
get "records, first request (builds the index)" "records?limit=100"
for run in 1 2 3; do
  post "preview exact country=Deutschland (run $run)" replacements '{"field":"country","find":"Deutschland","replace":"DE","preview":true}'
  post "preview contains email gmail (run $run)" replacements '{"field":"email","find":"GMAIL","replace":"gmail","match":"contains","preview":true}'
  post "preview regex phone ^\\+49 (run $run)" replacements '{"field":"phone","find":"^\\+49[ -]?","replace":"0","match":"regex","preview":true}'
  post "preview regex notes (rejected rows) (run $run)" replacements '{"field":"notes","find":"(?i)n/?a","replace":"","match":"regex","status":"rejected","preview":true}'
done
post "stored: contains email gmail" replacements '{"field":"email","find":"GMAIL","replace":"gmail","match":"contains"}'
get "records after it, first page (index of the new version built)" "records?limit=100"
get "records after it, offset=999900" "records?limit=100&offset=999900"
post "undo" undo
get "records after the undo, first page" "records?limit=100"
echo "server peak RSS (VmHWM): $(grep VmHWM /proc/$PID/status | awk '{print $2/1024 " MiB"}')"
