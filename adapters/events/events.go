// Package events is the job event bus: in-process for the single-node
// SQLite setup, PostgreSQL LISTEN/NOTIFY when API and workers run on
// several nodes, so an SSE stream on any node follows a job run anywhere.
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tabnorm/tabnorm/adapters/sqlstore"
	"github.com/tabnorm/tabnorm/ports"
)

// hub fans notices out to this process's subscribers.
type hub struct {
	mu   sync.Mutex
	subs map[string]map[chan int]struct{}
}

func newHub() *hub { return &hub{subs: map[string]map[chan int]struct{}{}} }

func (h *hub) subscribe(jobID string) (<-chan int, func()) {
	ch := make(chan int, 16)
	h.mu.Lock()
	if h.subs[jobID] == nil {
		h.subs[jobID] = map[chan int]struct{}{}
	}
	h.subs[jobID][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs[jobID], ch)
		if len(h.subs[jobID]) == 0 {
			delete(h.subs, jobID)
		}
		h.mu.Unlock()
	}
}

// deliver never blocks: a subscriber that is behind reads the store anyway.
func (h *hub) deliver(jobID string, seq int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs[jobID] {
		select {
		case ch <- seq:
		default:
		}
	}
}

// Local is the in-process bus.
type Local struct{ h *hub }

var _ ports.EventBus = (*Local)(nil)

// NewLocal returns the in-process bus.
func NewLocal() *Local { return &Local{h: newHub()} }

// Publish delivers once the event's transaction commits (at once outside
// one), so a subscriber that reads on the notice finds the event.
func (l *Local) Publish(ctx context.Context, jobID string, seq int) error {
	sqlstore.AfterCommit(ctx, func() { l.h.deliver(jobID, seq) })
	return nil
}

// Subscribe implements ports.EventBus.
func (l *Local) Subscribe(jobID string) (<-chan int, func()) { return l.h.subscribe(jobID) }

// channel is the NOTIFY channel; payloads are "jobID seq".
const channel = "tabnorm_job_events"

// Postgres is the LISTEN/NOTIFY bus. One connection per node listens and
// fans notices out to the node's subscribers.
type Postgres struct {
	db   *sqlstore.DB
	pool *pgxpool.Pool
	h    *hub
	log  *slog.Logger
	stop context.CancelFunc
	done chan struct{}
}

var _ ports.EventBus = (*Postgres)(nil)

// NewPostgres returns the bus on db, which must be PostgreSQL.
func NewPostgres(db *sqlstore.DB, log *slog.Logger) *Postgres {
	return &Postgres{db: db, pool: db.Pool, h: newHub(), log: log}
}

// Start begins listening; it returns once LISTEN is in place, so no
// notice sent after Start returns is missed.
func (p *Postgres) Start(ctx context.Context) error {
	conn, err := p.listen(ctx)
	if err != nil {
		return fmt.Errorf("listen for job events: %w", err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	p.stop, p.done = cancel, make(chan struct{})
	go p.run(runCtx, conn)
	return nil
}

// listen takes a connection of the pool and LISTENs on it.
func (p *Postgres) listen(ctx context.Context) (*pgxpool.Conn, error) {
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		conn.Release()
		return nil, err
	}
	return conn, nil
}

// run fans the notices of conn out to this node's subscribers until ctx
// ends, listening again on another connection when conn breaks.
func (p *Postgres) run(ctx context.Context, conn *pgxpool.Conn) {
	defer close(p.done)
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			conn.Release()
			if ctx.Err() != nil {
				return
			}
			// The connection broke: subscribers fall back on their
			// periodic reads while we listen again.
			p.log.Error("job event listener", "error", err)
			if conn = p.relisten(ctx); conn == nil {
				return
			}
			continue
		}
		jobID, seqText, ok := strings.Cut(n.Payload, " ")
		if seq, err := strconv.Atoi(seqText); ok && err == nil {
			p.h.deliver(jobID, seq)
		}
	}
}

// relisten tries, once a second, to listen again; nil once ctx ends.
func (p *Postgres) relisten(ctx context.Context) *pgxpool.Conn {
	for ctx.Err() == nil {
		time.Sleep(time.Second)
		if conn, err := p.listen(ctx); err == nil {
			return conn
		}
	}
	return nil
}

// Stop ends listening.
func (p *Postgres) Stop(context.Context) error {
	if p.stop != nil {
		p.stop()
		<-p.done
	}
	return nil
}

// Publish sends NOTIFY through the context's transaction when there is
// one, so the notice goes out when the event row commits.
func (p *Postgres) Publish(ctx context.Context, jobID string, seq int) error {
	payload := jobID + " " + strconv.Itoa(seq)
	var err error
	if tx, ok := sqlstore.TxFrom(ctx); ok {
		_, err = tx.ExecContext(ctx, "SELECT pg_notify(?, ?)", channel, payload)
	} else {
		_, err = p.db.Bun.ExecContext(ctx, "SELECT pg_notify(?, ?)", channel, payload)
	}
	if err != nil {
		return errors.Join(errors.New("notify job event"), err)
	}
	return nil
}

// Subscribe implements ports.EventBus.
func (p *Postgres) Subscribe(jobID string) (<-chan int, func()) { return p.h.subscribe(jobID) }
