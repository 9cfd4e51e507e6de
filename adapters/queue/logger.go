package queue

import (
	"context"
	"log/slog"
	"strings"
)

// riverLogger is the logger River gets: its lines carry component=river,
// and its routine information (a producer's job counts every few seconds,
// a maintenance service that ran, a client that started) is at debug
// level, so an idle node's log is not a line every ten seconds. What an
// operator acts on stays at its level: warnings, errors, and the info
// lines about a job that failed, panicked or was stuck.
func riverLogger(log *slog.Logger) *slog.Logger {
	return slog.New(riverHandler{next: log.Handler()}).With("component", "river")
}

// riverInfoKept are the parts of River's info messages that stay at info.
var riverInfoKept = []string{"Job errored", "Job panicked", "Job became unstuck", "Hard stop"}

type riverHandler struct{ next slog.Handler }

func (h riverHandler) Enabled(ctx context.Context, level slog.Level) bool {
	// An info line may be kept at info: ask the next handler about info
	// itself, and decide per record in Handle.
	return h.next.Enabled(ctx, level) || level == slog.LevelInfo && h.next.Enabled(ctx, slog.LevelDebug)
}

func (h riverHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && !kept(r.Message) {
		r.Level = slog.LevelDebug
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h riverHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return riverHandler{next: h.next.WithAttrs(attrs)}
}

func (h riverHandler) WithGroup(name string) slog.Handler {
	return riverHandler{next: h.next.WithGroup(name)}
}

func kept(msg string) bool {
	for _, k := range riverInfoKept {
		if strings.Contains(msg, k) {
			return true
		}
	}
	return false
}
