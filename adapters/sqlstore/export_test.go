package sqlstore

// PreparedStatements counts the statements db has prepared.
func PreparedStatements(db *DB) int {
	n := 0
	db.stmts.stmts.Range(func(_, _ any) bool { n++; return true })
	return n
}
