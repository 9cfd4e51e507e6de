#!/usr/bin/env python3
"""Fails when a client generated from openapi.json has an untyped field
where the API knows the type: interface{} in the Go client (oapi-codegen),
unknown or Record<string, never> in the TypeScript types (openapi-typescript).

The allowed ones are values the contract leaves free, by name:
  - `metadata`: any JSON object the caller chose (an import session's);
  - the OpenAPI document itself (GET /v1/openapi.json);
  - openapi-typescript's `[name: string]: unknown` of response headers and
    its empty `webhooks` and `$defs`.
Usage: untyped.py client.gen.go api.d.ts
"""
import re
import sys

go_path, ts_path = sys.argv[1], sys.argv[2]
bad = []

# Go: struct fields and type declarations whose type holds interface{}.
go_field = re.compile(r'^\s+(\w+)\s+[^/]*interface\{\}')
go_type = re.compile(r'^type (\w+)\s*=?\s*[^/]*interface\{\}')
func, decl = None, ""
for n, line in enumerate(open(go_path, encoding="utf-8"), 1):
    if line.startswith("func "):
        func = line
    elif line.startswith("type "):
        func, decl = None, line
    if func is not None:
        continue  # function bodies and signatures: plumbing, not fields
    m = go_field.match(line) or go_type.match(line)
    if not m:
        continue
    name = m.group(1)
    if name == "Metadata" or (name == "JSON200" and decl.startswith("type GetOpenAPIResponse ")):
        continue
    bad.append(f"{go_path}:{n}: {line.strip()}")

# TypeScript: unknown or Record<string, never> in a field, outside the
# headers' index signatures; the line before an index signature names its
# field (`metadata?: {`).
lines = open(ts_path, encoding="utf-8").read().split("\n")
for n, line in enumerate(lines, 1):
    s = line.strip()
    if s.startswith(("*", "/*", "//")):
        continue
    if "unknown" not in s and "Record<string, never>" not in s:
        continue
    if s == "[name: string]: unknown;":  # response headers
        continue
    if s in ("export type webhooks = Record<string, never>;", "export type $defs = Record<string, never>;"):
        continue
    owner = lines[n - 2].strip() if n >= 2 else ""
    if s == "[key: string]: unknown;" and (owner.startswith(("metadata:", "metadata?:")) or
                                             '"application/json": {' == owner and "getOpenAPI" in "\n".join(lines[max(0, n - 30):n])):
        continue
    bad.append(f"{ts_path}:{n}: {s}  (in: {owner})")

if bad:
    print("untyped fields in the generated clients (type them in openapi.json, or name them here if the contract leaves them free):")
    print("\n".join(bad))
    sys.exit(1)
print("clients: no untyped field but metadata and the OpenAPI document")
