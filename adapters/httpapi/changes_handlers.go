package httpapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/review"
	"github.com/tabnorm/tabnorm/domain/normalize"
)

// changeRoutes are the routes of a finished job's replacements and its
// history of changes, beside its edits (editRoutes; docs/review.md).
func (a *API) changeRoutes(g *gin.RouterGroup) {
	g.POST("/:id/replacements", a.replace)
	get(g, "/:id/history", a.history)
	g.POST("/:id/undo", a.undo)
	g.POST("/:id/redo", a.redo)
}

// replaceRequest is a replacement as a request gives it.
type replaceRequest struct {
	Field   string `json:"field"`
	Find    string `json:"find"`
	Replace string `json:"replace"`
	Match   string `json:"match"`
	Status  string `json:"status"`
	Preview bool   `json:"preview"`
}

type replacementJSON struct {
	Object    string  `json:"object"`
	ID        *string `json:"id"`
	Field     string  `json:"field"`
	Find      string  `json:"find"`
	Replace   string  `json:"replace"`
	Match     string  `json:"match"`
	Status    string  `json:"status"`
	Matched   int64   `json:"matched"`
	CreatedAt string  `json:"created_at"`
}

func (a *API) replace(c *gin.Context) {
	var req replaceRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	st, err := a.deps.Changes.Replace(c.Request.Context(), principal(c), c.Param("id"), review.ReplaceRequest{Field: req.Field, Find: req.Find,
		Replace: req.Replace, Match: req.Match, Status: req.Status, Preview: req.Preview})
	if err != nil {
		fail(c, err)
		return
	}
	r := st.Replacement
	c.JSON(http.StatusOK, replacementJSON{Object: "replacement", ID: optionalString(st.ID), Field: r.Field, Find: r.Find, Replace: r.Replace,
		Match: r.Match, Status: st.Status, Matched: st.Cells, CreatedAt: formatTime(st.At)})
}

type historyStepJSON struct {
	Object    string `json:"object"`
	Step      int64  `json:"step"`
	Kind      string `json:"kind"`
	CreatedAt string `json:"created_at"`
	Cells     int64  `json:"cells"`
	Summary   string `json:"summary"`
	Undone    bool   `json:"undone"`
}

func newHistoryStepJSON(s normalize.HistoryStep) historyStepJSON {
	return historyStepJSON{Object: "history_step", Step: s.Step, Kind: s.Kind, CreatedAt: formatTime(s.At), Cells: s.Cells, Summary: s.Summary, Undone: s.Undone}
}

type historyJSON struct {
	Object  string            `json:"object"`
	Data    []historyStepJSON `json:"data"`
	CanUndo bool              `json:"can_undo"`
	CanRedo bool              `json:"can_redo"`
}

func (a *API) history(c *gin.Context) {
	h, err := a.deps.Changes.History(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	out := historyJSON{Object: "list", Data: make([]historyStepJSON, len(h))}
	for i, s := range h {
		out.Data[i] = newHistoryStepJSON(s)
	}
	_, undoErr := h.Undoable()
	_, redoErr := h.Redoable()
	out.CanUndo, out.CanRedo = undoErr == nil, redoErr == nil
	c.JSON(http.StatusOK, out)
}

func (a *API) undo(c *gin.Context) {
	st, err := a.deps.Changes.Undo(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newHistoryStepJSON(st))
}

func (a *API) redo(c *gin.Context) {
	st, err := a.deps.Changes.Redo(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newHistoryStepJSON(st))
}
