#!/usr/bin/env bash
# Measures GET …/records on a 1M-row job (embedded SQLite, file store, one
# `serve` process): the first request (the records index is built), a page
# by offset at the first, middle and last position, the first page of a
# new search and of a new sort (its list is built), the same again (read),
# and the server's peak RSS while 5 new queries run at once.
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
BASE=http://127.0.0.1:18183
serve() {
  TABNORM_HTTP_ADDR=127.0.0.1:18183 $TN serve --role all > "$WORK/serve.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do curl -sf "$BASE/readyz" >/dev/null && return; sleep 0.1; done
  echo "serve did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1
}
serve
JOB=$(curl -sf -H "Authorization: Bearer $KEY" -F "file=@$DATA/contacts_1m.csv" -F "schema=<$SCHEMA" "$BASE/v1/jobs" |
  sed 's/.*"id":"\(job_[^"]*\)".*/\1/')
# grep ends the stream at the terminal event, which curl reports (23).
(curl -sfN -H "Authorization: Bearer $KEY" "$BASE/v1/jobs/$JOB/events" || true) | grep -q '^event: job.succeeded'
# A fresh process, so that its peak RSS is the records' alone, not the run's.
kill $PID; wait $PID 2>/dev/null || true
serve

get() { # label query: the request's time in ms, and its total
  local out
  out=$(curl -sf -o "$WORK/page.json" -w '%{time_total}' -H "Authorization: Bearer $KEY" "$BASE/v1/jobs/$JOB/records?$2")
  printf '%-52s %8.1f ms  total %s\n' "$1" "$(echo "$out * 1000" | bc -l)" "$(sed 's/.*"total":\([0-9]*\).*/\1/' "$WORK/page.json")"
}
get "first request (builds the index), limit=100" "limit=100"
for run in 1 2 3; do
  get "offset=0 limit=100 (run $run)" "limit=100&offset=0"
  get "offset=500000 limit=100 (run $run)" "limit=100&offset=500000"
  get "offset=999900 limit=100 (run $run)" "limit=100&offset=999900"
  get "offset=999500 limit=500 (run $run)" "limit=500&offset=999500"
  get "status=rejected, last page (run $run)" "status=rejected&limit=100&offset=1000000"
done
get "q=gmail, first page (builds its list)" "q=gmail&limit=100"
get "q=gmail, offset=300000" "q=gmail&limit=100&offset=300000"
get "sort=amount desc, first page (builds its list)" "sort=amount&order=desc&limit=100"
get "sort=amount desc, offset=500000" "sort=amount&order=desc&limit=100&offset=500000"
get "sort=signup_date, status=rejected (builds)" "sort=signup_date&status=rejected&limit=100"
get "field=email&code=invalid_email (builds)" "field=email&code=invalid_email&limit=100"
echo "server peak RSS (VmHWM) since its start, the index built: $(grep VmHWM /proc/$PID/status | awk '{print $2/1024 " MiB"}')"
# Another process reads the same index from storage, as another node
# would; its peak RSS is that of the five queries alone.
kill $PID; wait $PID 2>/dev/null || true
serve
get "a new process: offset=999900 limit=100" "limit=100&offset=999900"
# Five new queries at once: each builds its list (two at a time per organization).
start=$(date +%s.%N)
for q in "q=smith" "q=berlin" "sort=last_name" "sort=quantity&order=desc" "q=example.org&sort=signup_date"; do
  curl -sf -o /dev/null -H "Authorization: Bearer $KEY" "$BASE/v1/jobs/$JOB/records?$q&limit=100" &
done
wait $(jobs -p | grep -v "^$PID\$")
printf '5 new queries at once, all answered in %.2f s\n' "$(echo "$(date +%s.%N) - $start" | bc)"
echo "server peak RSS (VmHWM) of the new process: $(grep VmHWM /proc/$PID/status | awk '{print $2/1024 " MiB"}')"
du -sh "$WORK/blobs" | awk '{print "blob storage, source + results + records index: " $1}'
