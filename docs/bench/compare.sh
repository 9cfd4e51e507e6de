#!/usr/bin/env bash
# Side-by-side timing of `tabnorm normalize` against the Go encoding/csv →
# JSONL floor and the pandas normalizer, on the generated contacts data,
# plus peak RSS at 1M and 5M rows. Writes a markdown table to stdout.
#
#   bash docs/bench/compare.sh            # needs ../shared/bench beside the repo
#   RUNS=5 bash docs/bench/compare.sh     # more runs per command
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH=${BENCH:-../shared/bench}
DATA=${BENCHDATA:-/tmp/benchdata}
DATA5M=${BENCHDATA5M:-/tmp/benchdata5m}
TOOLS=${BENCHTOOLS:-/tmp/benchtools}
RES=${BENCHRESULTS:-/tmp/tabnorm-bench}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
mkdir -p "$TOOLS" "$RES"

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
$PY -c 'import pandas, openpyxl' 2>/dev/null || need+=(python3-pandas python3-openpyxl)
if ((${#need[@]})); then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null; fi
go build -o "$TOOLS/tabnorm" ./cmd/tabnorm
(cd "$BENCH/gofloor" && go build -o "$TOOLS/gofloor" .)
[[ -f $DATA/contacts_1m.csv && -f $DATA/contacts_100k.xlsx ]] || $PY "$BENCH/gen.py" --out "$DATA"
[[ -f $DATA5M/contacts_5m.csv ]] || $PY "$BENCH/gen.py" --out "$DATA5M" --rows 5000000 --small 1000 --no-xlsx
BIG5M=$DATA5M/contacts_5m.csv

SCHEMA=$BENCH/contacts.schema.json
TN="$TOOLS/tabnorm normalize --schema $SCHEMA --errors /dev/null"
# The schema without `unique`: memory then stays flat as files grow (a
# unique column costs about 8 bytes a row, by design).
$PY - "$SCHEMA" > "$RES/contacts.nounique.schema.json" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
for f in s["fields"]:
    f.get("constraints", {}).pop("unique", None)
print(json.dumps(s))
PYEOF

ONLY=${ONLY:-.}
bench() { # name command...
  local name=$1; shift
  [[ $name =~ $ONLY ]] || return 0
  rm -f "$RES/$name.rss"
  hyperfine --style basic --runs "$RUNS" --warmup 1 --export-json "$RES/$name.json" -n "$name" \
    "/usr/bin/time -f %M -a -o $RES/$name.rss $*" >&2
}
bench c1-tabnorm "$TN $DATA/contacts_1m.csv > /dev/null"
bench c1-go-jsonl "$TOOLS/gofloor csv2jsonl $DATA/contacts_1m.csv > /dev/null"
bench c1-pandas "$PY $BENCH/norm_pandas.py $DATA/contacts_1m.csv /dev/null /dev/null --dates formats"
bench x-tabnorm "$TN $DATA/contacts_100k.xlsx > /dev/null"
bench x-pandas "$PY $BENCH/norm_pandas.py $DATA/contacts_100k.xlsx /dev/null /dev/null --dates formats"
RUNS=1 bench m1-nounique "$TOOLS/tabnorm normalize --schema $RES/contacts.nounique.schema.json --errors /dev/null $DATA/contacts_1m.csv > /dev/null"
RUNS=1 bench m5-nounique "$TOOLS/tabnorm normalize --schema $RES/contacts.nounique.schema.json --errors /dev/null $BIG5M > /dev/null"
RUNS=1 bench m5-tabnorm "$TN $BIG5M > /dev/null"

$PY - "$RES" <<'PYEOF'
import json, sys, os
res = sys.argv[1]
def load(n):
    j = json.load(open(f"{res}/{n}.json"))["results"][0]
    rss = max(int(x) for x in open(f"{res}/{n}.rss").read().split())
    return j["median"], j["min"], j["max"], rss / 1024
rows = [("c1-tabnorm", "tabnorm normalize, 1M CSV"), ("c1-go-jsonl", "Go encoding/csv → JSONL floor, 1M CSV"),
        ("c1-pandas", "pandas normalizer (dates=formats), 1M CSV"), ("x-tabnorm", "tabnorm normalize, 100k XLSX"),
        ("x-pandas", "pandas normalizer (openpyxl), 100k XLSX"), ("m1-nounique", "tabnorm, no unique column, 1M CSV"),
        ("m5-nounique", "tabnorm, no unique column, 5M CSV"), ("m5-tabnorm", "tabnorm, contacts schema, 5M CSV")]
print("| id | what | median s | min–max s | peak RSS MiB |")
print("|---|---|---:|---|---:|")
got = {}
for key, what in rows:
    if not os.path.exists(f"{res}/{key}.json"):
        continue
    med, lo, hi, rss = load(key)
    got[key] = (med, rss)
    print(f"| {key} | {what} | {med:.3f} | {lo:.3f}–{hi:.3f} | {rss:.0f} |")
if {"c1-tabnorm", "c1-go-jsonl", "c1-pandas"} <= got.keys():
    t, f, p = got["c1-tabnorm"][0], got["c1-go-jsonl"][0], got["c1-pandas"][0]
    print(f"\ntabnorm ÷ Go floor: {t/f:.2f}× (goal ≤ 2×); tabnorm ÷ pandas: {t/p:.3f} (goal ≤ 0.1)")
if {"m1-nounique", "m5-nounique"} <= got.keys():
    a, b = got["m1-nounique"][1], got["m5-nounique"][1]
    print(f"peak RSS without unique columns, 5M ÷ 1M: {b/a:.2f} (goal 0.85–1.15)")
if "x-tabnorm" in got and "x-pandas" in got:
    print(f"XLSX 100k: tabnorm {100000/got['x-tabnorm'][0]:.0f} rows/s, pandas {100000/got['x-pandas'][0]:.0f} rows/s")
PYEOF
