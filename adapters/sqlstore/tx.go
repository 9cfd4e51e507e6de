package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"modernc.org/sqlite"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/ports"
)

type txKey struct{}

type afterCommitKey struct{}

// afterCommit collects what runs once the outermost transaction commits.
type afterCommit struct{ fns []func() }

// AfterCommit runs fn once the transaction carried by ctx commits (never
// if it rolls back), or at once outside a transaction. Notices about rows
// written in a transaction use it, so nobody is told before they can read.
func AfterCommit(ctx context.Context, fn func()) {
	if ac, ok := ctx.Value(afterCommitKey{}).(*afterCommit); ok {
		ac.fns = append(ac.fns, fn)
		return
	}
	fn()
}

// Transactor implements ports.Transactor on a DB.
type Transactor struct{ db *DB }

var _ ports.Transactor = (*Transactor)(nil)

// NewTransactor returns a Transactor for db.
func NewTransactor(db *DB) *Transactor { return &Transactor{db: db} }

// InTx runs fn in a transaction carried by ctx; a nested call joins it.
func (t *Transactor) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return fn(ctx)
	}
	ac := &afterCommit{}
	err := t.db.Bun.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		ctx = context.WithValue(context.WithValue(ctx, txKey{}, tx), afterCommitKey{}, ac)
		return fn(ctx)
	})
	if err == nil {
		for _, f := range ac.fns {
			f()
		}
	}
	return err
}

// TxFrom returns the transaction carried by ctx, if any, so that other
// adapters (the queue's transactional insert) can join it.
func TxFrom(ctx context.Context) (bun.Tx, bool) {
	tx, ok := ctx.Value(txKey{}).(bun.Tx)
	return tx, ok
}

// conn is what repositories query through: the context's transaction when
// there is one, else the pool.
func (db *DB) conn(ctx context.Context) bun.IDB {
	if tx, ok := TxFrom(ctx); ok {
		return tx
	}
	return db.Bun
}

// translate turns driver errors into domain kinds. what names the
// resource for a not-found message.
func translate(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return domain.NotFound(what)
	case isUniqueViolation(err):
		return &domain.Error{Kind: domain.ErrConflict, Code: domain.CodeConflict, Message: what + " already exists."}
	case isForeignKeyViolation(err):
		return &domain.Error{Kind: domain.ErrNotFound, Code: domain.CodeNotFound, Message: "A resource this " + what + " refers to does not exist."}
	}
	return fmt.Errorf("%s: %w", what, err)
}

func isUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == 2067 || lite.Code() == 1555 // SQLITE_CONSTRAINT_UNIQUE, _PRIMARYKEY
	}
	return false
}

func isForeignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23503"
	}
	var lite *sqlite.Error
	if errors.As(err, &lite) {
		return lite.Code() == 787 // SQLITE_CONSTRAINT_FOREIGNKEY
	}
	return false
}
