package events_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/tabnorm/tabnorm/adapters/events"
	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/adapters/sqlstore/sqltest"
	"github.com/tabnorm/tabnorm/ports/portstest"
)

func openDB(t *testing.T, target sqltest.Target) *sqlstore.DB {
	t.Helper()
	db, err := sqlstore.Open(context.Background(), sqlstore.Config{URL: target.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestLocal_conformance: the in-process bus, which delivers at the commit
// of a store transaction.
func TestLocal_conformance(t *testing.T) {
	t.Parallel()
	portstest.EventBus(t, func(t *testing.T) portstest.EventBusNodes {
		bus := events.NewLocal()
		return portstest.EventBusNodes{Publisher: bus, Subscriber: bus, Tx: sqlstore.NewTransactor(openDB(t, sqltest.SQLite(t)))}
	})
}

// TestPostgres_conformance: LISTEN/NOTIFY between two nodes on one
// database, each with its own connections and listener.
func TestPostgres_conformance(t *testing.T) {
	t.Parallel()
	for _, kind := range sqltest.Kinds(t) {
		if kind.Name != "postgres" {
			continue
		}
		portstest.EventBus(t, func(t *testing.T) portstest.EventBusNodes {
			target := kind.New(t)
			publisher, subscriber := openDB(t, target), openDB(t, target)
			var buses []*events.Postgres
			for _, db := range []*sqlstore.DB{publisher, subscriber} {
				bus := events.NewPostgres(db, slog.New(slog.DiscardHandler))
				if err := bus.Start(context.Background()); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = bus.Stop(context.Background()) })
				buses = append(buses, bus)
			}
			return portstest.EventBusNodes{Publisher: buses[0], Subscriber: buses[1], Tx: sqlstore.NewTransactor(publisher)}
		})
	}
}
