package httpapi

import (
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"net/http"
	"strings"
)

var tracer = otel.Tracer("github.com/tabnorm/tabnorm/adapters/httpapi")

// traced gives every request a server span, a child of the caller's W3C
// traceparent when it sends one. The span is named by the route's
// pattern, never the raw path, and carries the request id, so a trace
// and a log line find each other.
func traced(c *gin.Context) {
	ctx := otel.GetTextMapPropagator().Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
	route := c.FullPath()
	if route == "" {
		route = "unmatched"
	}
	method := knownMethod(c.Request.Method)
	ctx, span := tracer.Start(ctx, method+" "+route, trace.WithSpanKind(trace.SpanKindServer))
	defer span.End()
	recording := span.IsRecording()
	// Without an exporter (the default) the span records nothing: the
	// request keeps its context unless it carries a caller's trace, whose
	// traceparent a job created here passes on to its worker.
	if recording || span.SpanContext().IsValid() {
		c.Request = c.Request.WithContext(ctx)
	}
	if !recording {
		c.Next()
		return
	}
	span.SetAttributes(attribute.String("http.request.method", method), attribute.String("http.route", route),
		attribute.String("tabnorm.request_id", requestID(c)))
	c.Next()
	status := c.Writer.Status()
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if v, ok := c.Get(principalKey); ok {
		span.SetAttributes(attribute.String("tabnorm.org_id", principalOrg(v)))
	}
	if id := routeJobID(c, route); id != "" {
		span.SetAttributes(attribute.String("tabnorm.job_id", id))
	}
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
}

// routeJobID is the job id of a route of one job (/v1/jobs/:id/…,
// /v1/connect/jobs/:id/…), else "".
func routeJobID(c *gin.Context, route string) string {
	if !strings.HasPrefix(route, "/v1/jobs/:id") && !strings.HasPrefix(route, "/v1/connect/jobs/:id") {
		return ""
	}
	return c.Param("id")
}

// knownMethod is a standard HTTP method, or _OTHER as OpenTelemetry's
// conventions name the rest: a client's made-up methods do not name spans.
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}
