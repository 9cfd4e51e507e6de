package httpapi

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
)

// Readiness reports whether the service can serve: the database answers
// and its migrations are applied.
type Readiness interface {
	Ready(ctx context.Context) error
}

type health struct {
	ready    Readiness
	draining *atomic.Bool
}

// statusOK is the body of an answered probe, written as bytes: a load
// balancer asks for it every second on every node.
var statusOK = []byte(`{"status":"ok"}`)

func (h health) healthz(c *gin.Context) {
	c.Data(http.StatusOK, "application/json; charset=utf-8", statusOK)
}

func (h health) readyz(c *gin.Context) {
	if h.draining.Load() {
		fail(c, domain.Errorf(domain.ErrUnavailable, domain.CodeUnavailable, "The server is shutting down."))
		return
	}
	if err := h.ready.Ready(c.Request.Context()); err != nil {
		fail(c, domain.Errorf(domain.ErrUnavailable, domain.CodeUnavailable, "Not ready: %s.", err.Error()))
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", statusOK)
}
