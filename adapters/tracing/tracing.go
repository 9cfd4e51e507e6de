// Package tracing sets up OpenTelemetry traces: off unless
// OTEL_EXPORTER_OTLP_ENDPOINT is set, then spans go by OTLP/HTTP to that
// collector, and W3C traceparent headers join a caller's trace. The rest
// of the code only uses the otel API, which does nothing until Setup
// installs a provider.
package tracing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config is what tracing needs from the environment.
type Config struct {
	// Endpoint is OTEL_EXPORTER_OTLP_ENDPOINT (or the traces-only
	// variable); empty turns tracing off. The exporter reads the other
	// OTEL_EXPORTER_OTLP_* variables itself.
	Endpoint string
	// Exporter replaces the OTLP exporter (tests pass an in-memory one).
	Exporter sdktrace.SpanExporter
	// Version is the service.version of the spans' resource (empty: the
	// binary's module version, "(devel)" when built from a checkout).
	Version string
}

// Resource describes this process to the collector: service.name,
// service.version, and service.instance.id, a random id of the process
// (a restart is another instance, as OpenTelemetry's conventions have it).
func Resource(version string) *resource.Resource {
	if version == "" {
		version = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			version = bi.Main.Version
		}
	}
	return resource.NewSchemaless(attribute.String("service.name", "tabnorm"), attribute.String("service.version", version),
		attribute.String("service.instance.id", instanceID()))
}

// instanceID is 128 random bits in hex, made once per process.
var instanceID = sync.OnceValue(func() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
})

// Setup installs the global tracer provider and the W3C propagator, and
// returns the function that flushes and stops them.
func Setup(ctx context.Context, cfg Config) (func(context.Context) error, error) {
	// The propagator is set even when tracing is off, so a traceparent
	// still passes through to the queue and back out unchanged.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	exp := cfg.Exporter
	if exp == nil {
		if cfg.Endpoint == "" {
			return func(context.Context) error { return nil }, nil
		}
		var err error
		if exp, err = otlptracehttp.New(ctx); err != nil {
			return nil, fmt.Errorf("OTLP trace exporter: %w", err)
		}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(Resource(cfg.Version)))
	otel.SetTracerProvider(tp)
	return tp.Shutdown, nil
}

// LogHandler adds the trace and span ids of the record's context to
// every log line, so a line leads to its trace.
type LogHandler struct{ slog.Handler }

// Handle implements slog.Handler.
func (h LogHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return LogHandler{h.Handler.WithAttrs(attrs)}
}

// WithGroup implements slog.Handler.
func (h LogHandler) WithGroup(name string) slog.Handler { return LogHandler{h.Handler.WithGroup(name)} }
