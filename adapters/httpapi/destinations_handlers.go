package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/destinations"
	"github.com/tabnorm/tabnorm/domain/destination"
)

// DestinationJSON is a destination. Its config shows the settings that
// may be shown; secrets (a password, a key, a signing secret) never
// appear, but for an http destination's signing secret made by the
// service, once, in the answer to its creation.
type DestinationJSON struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Name          string            `json:"name"`
	Type          string            `json:"type"`
	Config        map[string]string `json:"config"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
	SigningSecret string            `json:"signing_secret,omitempty"`
}

// NewDestinationJSON converts a destination for output.
func NewDestinationJSON(d destination.Destination) DestinationJSON {
	cfg := d.Config
	if cfg == nil {
		cfg = map[string]string{}
	}
	return DestinationJSON{ID: d.ID, Object: "destination", Name: d.Name, Type: d.Type, Config: cfg, CreatedAt: formatTime(d.CreatedAt),
		UpdatedAt: formatTime(d.UpdatedAt)}
}

// DestinationDeliveryJSON is a job's delivery to one destination.
type DestinationDeliveryJSON struct {
	ID            string  `json:"id"`
	Object        string  `json:"object"`
	JobID         string  `json:"job_id"`
	DestinationID string  `json:"destination_id"`
	Status        string  `json:"status"`
	Attempts      int     `json:"attempts"`
	Rows          int64   `json:"rows"`
	Bytes         int64   `json:"bytes"`
	LastError     *string `json:"last_error"`
	NextAttemptAt *string `json:"next_attempt_at"`
	CreatedAt     string  `json:"created_at"`
	UpdatedAt     string  `json:"updated_at"`
	DeliveredAt   *string `json:"delivered_at"`
}

// NewDestinationDeliveryJSON converts a delivery for output.
func NewDestinationDeliveryJSON(d destination.Delivery) DestinationDeliveryJSON {
	out := DestinationDeliveryJSON{ID: d.ID, Object: "destination_delivery", JobID: d.JobID, DestinationID: d.DestinationID, Status: d.Status,
		Attempts: d.Attempts, Rows: d.Rows, Bytes: d.Bytes, CreatedAt: formatTime(d.CreatedAt), UpdatedAt: formatTime(d.UpdatedAt),
		DeliveredAt: formatTimePtr(d.DeliveredAt)}
	if d.LastError != "" {
		out.LastError = &d.LastError
	}
	if d.Status == destination.Pending {
		out.NextAttemptAt = formatTimePtr(d.NextAt)
	}
	return out
}

type createDestinationRequest struct {
	Name   string         `json:"name"`
	Type   string         `json:"type"`
	Config map[string]any `json:"config"`
}

type updateDestinationRequest struct {
	Name   *string        `json:"name"`
	Config map[string]any `json:"config"`
}

// destinationRoutes are account routes: any organization may deliver
// its jobs' rows, whatever its products.
func (a *API) destinationRoutes(g *gin.RouterGroup) {
	g.POST("", a.createDestination)
	get(g, "", a.listDestinations)
	get(g, "/:id", a.getDestination)
	g.PATCH("/:id", a.updateDestination)
	g.DELETE("/:id", a.deleteDestination)
	g.POST("/:id/test", a.testDestination)
	get(g, "/:id/deliveries", a.listDestinationDeliveries)
}

func (a *API) createDestination(c *gin.Context) {
	var req createDestinationRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	d, err := a.deps.Destinations.Create(c.Request.Context(), principal(c), destinations.Input{Name: req.Name, Type: req.Type, Config: req.Config})
	if err != nil {
		fail(c, err)
		return
	}
	out := NewDestinationJSON(d.Destination)
	out.SigningSecret = d.SigningSecret
	c.Header("Cache-Control", "no-store")
	c.Header("Location", "/v1/destinations/"+d.ID)
	c.JSON(http.StatusCreated, out)
}

func (a *API) listDestinations(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Destinations.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]DestinationJSON, len(list))
	for i, d := range list {
		out[i] = NewDestinationJSON(d)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) getDestination(c *gin.Context) {
	d, err := a.deps.Destinations.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewDestinationJSON(d))
}

func (a *API) updateDestination(c *gin.Context) {
	var req updateDestinationRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	d, err := a.deps.Destinations.Update(c.Request.Context(), principal(c), c.Param("id"), destinations.Patch{Name: req.Name, Config: req.Config})
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewDestinationJSON(d))
}

func (a *API) deleteDestination(c *gin.Context) {
	if err := a.deps.Destinations.Delete(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// destinationTestJSON is the outcome of a test of a destination.
type destinationTestJSON struct {
	OK    bool    `json:"ok"`
	Error *string `json:"error"`
}

func (a *API) testDestination(c *gin.Context) {
	r, err := a.deps.Destinations.Test(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	out := destinationTestJSON{OK: r.OK}
	if r.Error != "" {
		out.Error = &r.Error
	}
	c.JSON(http.StatusOK, out)
}

func (a *API) listDestinationDeliveries(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Destinations.Recent(c.Request.Context(), principal(c), c.Param("id"), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]DestinationDeliveryJSON, len(list))
	for i, d := range list {
		out[i] = NewDestinationDeliveryJSON(d)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) jobDeliveries(c *gin.Context) {
	list, err := a.deps.Destinations.JobDeliveries(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]DestinationDeliveryJSON, len(list))
	for i, d := range list {
		out[i] = NewDestinationDeliveryJSON(d)
	}
	c.JSON(http.StatusOK, newList(out, ""))
}

func (a *API) retryJobDelivery(c *gin.Context) {
	d, err := a.deps.Destinations.Retry(c.Request.Context(), principal(c), c.Param("id"), c.Param("destination_id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusAccepted, NewDestinationDeliveryJSON(d))
}
