// Package coerce reads cell text as the values of a target schema's
// fields: dates, numbers, booleans, e-mail addresses, phones, countries,
// currencies and the rest, each into its canonical text. A field is
// compiled once into a Column (its coercer and its checks), so the
// per-cell path does no lookups by name; the parsers are also what the
// engine's inference and the matcher's profiles read values with.
package coerce
