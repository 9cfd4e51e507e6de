# pandas' side of the export benchmark: the same rows JSON lines to XLSX
# (openpyxl) or Parquet (pyarrow/fastparquet), dates as dates.
import sys
import pandas as pd
fmt, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
df = pd.read_json(src, lines=True, dtype={"id": "int64", "phone": "string", "notes": "string"})
df["signup_date"] = pd.to_datetime(df["signup_date"])
if fmt == "xlsx":
    df.to_excel(out, index=False, engine="openpyxl")
else:
    df.to_parquet(out, index=False)
