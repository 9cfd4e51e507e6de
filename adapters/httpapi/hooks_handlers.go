package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/hooks"
	"github.com/tabnorm/tabnorm/domain/hook"
)

// HookJSON is a validation hook. Secret appears only in the answers to
// its creation and to a rotation.
type HookJSON struct {
	ID                  string  `json:"id"`
	Object              string  `json:"object"`
	Name                string  `json:"name"`
	URL                 string  `json:"url"`
	TimeoutMS           int64   `json:"timeout_ms"`
	Concurrency         int     `json:"concurrency"`
	Enabled             bool    `json:"enabled"`
	PreviousSecretUntil *string `json:"previous_secret_until"`
	CreatedAt           string  `json:"created_at"`
	UpdatedAt           string  `json:"updated_at"`
	Secret              string  `json:"secret,omitempty"`
	// RecentBatches are its last batches on the node that answers,
	// newest first.
	RecentBatches []hookBatchJSON `json:"recent_batches"`
}

// hookBatchJSON is how one of a hook's recent batches went.
type hookBatchJSON struct {
	At        string  `json:"at"`
	Status    string  `json:"status"`
	LatencyMS int64   `json:"latency_ms"`
	Rows      int     `json:"rows"`
	Error     *string `json:"error"`
}

func recentJSON(list []hooks.Outcome) []hookBatchJSON {
	out := make([]hookBatchJSON, len(list))
	for i, o := range list {
		out[i] = hookBatchJSON{At: formatTime(o.At), Status: o.Status, LatencyMS: o.Latency.Milliseconds(), Rows: o.Rows}
		if o.Error != "" {
			out[i].Error = &o.Error
		}
	}
	return out
}

// NewHookJSON converts a hook for output, with its secret when withSecret.
func NewHookJSON(h hook.Hook, withSecret bool) HookJSON {
	out := HookJSON{ID: h.ID, Object: "hook", Name: h.Name, URL: h.URL, TimeoutMS: h.Timeout.Milliseconds(), Concurrency: h.Concurrency,
		Enabled: h.Enabled, PreviousSecretUntil: formatTimePtr(h.PreviousUntil), CreatedAt: formatTime(h.CreatedAt), UpdatedAt: formatTime(h.UpdatedAt),
		RecentBatches: []hookBatchJSON{}}
	if withSecret {
		out.Secret = h.Secret
	}
	return out
}

type createHookRequest struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	TimeoutMS   int64  `json:"timeout_ms"`
	Concurrency int    `json:"concurrency"`
}

type updateHookRequest struct {
	Name        *string `json:"name"`
	URL         *string `json:"url"`
	TimeoutMS   *int64  `json:"timeout_ms"`
	Concurrency *int    `json:"concurrency"`
	Enabled     *bool   `json:"enabled"`
}

// hookRoutes are the routes of the validation hooks (docs/hooks.md).
func (a *API) hookRoutes(g *gin.RouterGroup) {
	g.POST("", a.createHook)
	get(g, "", a.listHooks)
	get(g, "/:id", a.getHook)
	g.PATCH("/:id", a.updateHook)
	g.DELETE("/:id", a.deleteHook)
	g.POST("/:id/rotate-secret", a.rotateHookSecret)
	g.POST("/:id/test", a.testHook)
}

// withRecent adds the hook's recent batches.
func (a *API) withRecent(h hook.Hook) HookJSON {
	out := NewHookJSON(h, false)
	out.RecentBatches = recentJSON(a.deps.Hooks.Recent(h.ID))
	return out
}

func (a *API) createHook(c *gin.Context) {
	var req createHookRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	p := principal(c)
	hash := requestHash(c, req.Name, req.URL, strconv.FormatInt(req.TimeoutMS, 10), strconv.Itoa(req.Concurrency))
	a.createOnce(c, hash, answer{status: http.StatusCreated, noStore: true}, func(ctx context.Context) (string, any, error) {
		h, err := a.deps.Hooks.Create(ctx, p, hooks.Input{Name: req.Name, URL: req.URL, TimeoutMS: req.TimeoutMS, Concurrency: req.Concurrency})
		if err != nil {
			return "", nil, err
		}
		return "/v1/hooks/" + h.ID, NewHookJSON(h, true), nil
	})
}

func (a *API) listHooks(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	list, next, err := a.deps.Hooks.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]HookJSON, len(list))
	for i, h := range list {
		out[i] = a.withRecent(h)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) getHook(c *gin.Context) {
	h, err := a.deps.Hooks.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, a.withRecent(h))
}

func (a *API) updateHook(c *gin.Context) {
	var req updateHookRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	in := hooks.Patch{Name: req.Name, URL: req.URL, TimeoutMS: req.TimeoutMS, Concurrency: req.Concurrency, Enabled: req.Enabled}
	h, err := a.deps.Hooks.Update(c.Request.Context(), principal(c), c.Param("id"), in)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewHookJSON(h, false))
}

func (a *API) deleteHook(c *gin.Context) {
	if err := a.deps.Hooks.Delete(c.Request.Context(), principal(c), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

func (a *API) rotateHookSecret(c *gin.Context) {
	h, err := a.deps.Hooks.RotateSecret(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, NewHookJSON(h, true))
}

type testHookRequest struct {
	Rows []hook.Row `json:"rows"`
}

// hookTestJSON is what a hook made of a sample batch.
type hookTestJSON struct {
	Object     string           `json:"object"`
	Hook       string           `json:"hook"`
	Status     string           `json:"status"`
	StatusCode *int             `json:"status_code"`
	DurationMS int64            `json:"duration_ms"`
	Rows       []hookAnswerJSON `json:"rows"`
	Error      *string          `json:"error"`
}

// hookAnswerJSON is a hook's answer for one row: its issues, and its
// corrections as the cell text they would be read as (null: emptied).
type hookAnswerJSON struct {
	Row    int64              `json:"row"`
	Issues []hook.Issue       `json:"issues"`
	Values map[string]*string `json:"values"`
}

func (a *API) testHook(c *gin.Context) {
	var req testHookRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	ans, err := a.deps.Hooks.Test(c.Request.Context(), principal(c), c.Param("id"), req.Rows)
	if err != nil {
		fail(c, err)
		return
	}
	out := hookTestJSON{Object: "hook_test", Hook: c.Param("id"), Status: ans.Status, DurationMS: ans.Duration.Milliseconds(), Rows: []hookAnswerJSON{}}
	if ans.StatusCode != 0 {
		out.StatusCode = &ans.StatusCode
	}
	if ans.Error != "" {
		out.Error = &ans.Error
	}
	for _, r := range ans.Answers {
		row := hookAnswerJSON{Row: r.Row, Issues: r.Issues, Values: map[string]*string{}}
		if row.Issues == nil {
			row.Issues = []hook.Issue{}
		}
		for _, cv := range r.Corrections {
			if cv.Null {
				row.Values[cv.Field] = nil
			} else {
				row.Values[cv.Field] = &cv.Value
			}
		}
		out.Rows = append(out.Rows, row)
	}
	c.JSON(http.StatusOK, out)
}
