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
}

// NewHookJSON converts a hook for output, with its secret when withSecret.
func NewHookJSON(h hook.Hook, withSecret bool) HookJSON {
	out := HookJSON{ID: h.ID, Object: "hook", Name: h.Name, URL: h.URL, TimeoutMS: h.Timeout.Milliseconds(), Concurrency: h.Concurrency,
		Enabled: h.Enabled, PreviousSecretUntil: formatTimePtr(h.PreviousUntil), CreatedAt: formatTime(h.CreatedAt), UpdatedAt: formatTime(h.UpdatedAt)}
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
		out[i] = NewHookJSON(h, false)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

func (a *API) getHook(c *gin.Context) {
	h, err := a.deps.Hooks.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewHookJSON(h, false))
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
