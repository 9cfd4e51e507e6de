package sqlstore

import (
	"context"

	"github.com/uptrace/bun"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/adapters/sqlstore")

// queryTracer records each query as a span of the request or job that
// made it. A query outside any span (the workers' polling, heartbeats
// between phases) starts no trace of its own. The statement is not
// recorded: its arguments may hold the caller's data.
type queryTracer struct{ system string }

type spanKey struct{}

func (h queryTracer) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	op := e.Operation()
	_, span := tracer.Start(ctx, "db "+op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", h.system), attribute.String("db.operation.name", op)))
	if e.Stash == nil {
		e.Stash = map[any]any{}
	}
	e.Stash[spanKey{}] = span
	// The caller's context goes on unchanged: bun hands BEGIN's context to
	// the whole transaction, which would make every later query, and the
	// job the transaction queues, a child of BEGIN.
	return ctx
}

func (h queryTracer) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	span, ok := e.Stash[spanKey{}].(trace.Span)
	if !ok {
		return
	}
	if e.Err != nil {
		span.SetStatus(codes.Error, "")
	}
	span.End()
}
