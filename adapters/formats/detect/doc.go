// Package detect holds what the readers of adapters/formats share: telling
// a text file's encoding (Encoding, Decoder), finding a table's header row
// among its first records and the kinds and shapes of its cells (Header,
// KindOf, ColumnKinds, ShapeOf), and the bookkeeping every reader does alike (blank and
// skipped records, the job's context on every read, the contract's two
// error kinds). It imports none of the readers, which import it.
package detect
