// Package match maps the columns of a file to the fields of a target
// schema. The header methods (explicit, exact, normalized, alias,
// learned, position) claim first; the matcher then scores each open
// column–field pair from what the header says (synonyms.json,
// vocabulary.json) and what the column's sampled values look like (a
// profile of them), maps what it is sure of and ranks the alternatives a
// review offers. Columns is the entry point; an Entry says where one
// column went and why.
package match
