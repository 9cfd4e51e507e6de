package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/review"
	"github.com/tabnorm/tabnorm/domain"
)

// reviewRoutes are the routes of a job's review and of fixing its values,
// under /v1/jobs/{id} and, for connect jobs, /v1/connect/jobs/{id}
// (docs/review.md).
func (a *API) reviewRoutes(g *gin.RouterGroup) {
	get(g, "/:id/review", a.getReview)
	g.PATCH("/:id/review", a.patchReview)
	g.PATCH("/:id/mapping", a.patchMapping)
	g.POST("/:id/confirm", a.confirmReview)
	get(g, "/:id/invalid-values", a.invalidValues)
	g.POST("/:id/rerun", a.rerunJob)
	a.editRoutes(g) // edits_handlers.go
}

// reviewJSON is the review object: its state, and the document the
// engine made (columns, blocking problems, counts, preview).
type reviewJSON struct {
	Object      string  `json:"object"`
	JobID       string  `json:"job_id"`
	JobStatus   string  `json:"job_status"`
	Status      string  `json:"status"`
	ExpiresAt   *string `json:"expires_at"`
	ConfirmedAt *string `json:"confirmed_at"`
	reviewDocJSON
}

func newReviewJSON(v review.View) reviewJSON {
	return reviewJSON{Object: "job_review", JobID: v.Job.ID, JobStatus: string(v.Job.Status), Status: v.Status,
		ExpiresAt: formatTimePtr(v.ExpiresAt), ConfirmedAt: formatTimePtr(v.Job.ReviewedAt), reviewDocJSON: newReviewDocJSON(v.Review)}
}

func (a *API) getReview(c *gin.Context) {
	v, err := a.deps.Review.Get(c.Request.Context(), principal(c), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newReviewJSON(v))
}

// reviewChange is the body of PATCH …/review: the sheet of the job's
// workbooks to read the sample from.
type reviewChange struct {
	Sheet     *string `json:"sheet"`
	HeaderRow *int    `json:"header_row"`
}

func (a *API) patchReview(c *gin.Context) {
	var req reviewChange
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	if req.Sheet == nil && req.HeaderRow == nil { // an unknown job is 404 before its body is 400, as on every route
		if _, err := a.deps.JobReader.Get(c.Request.Context(), principal(c), c.Param("id")); err != nil {
			fail(c, err)
			return
		}
		fail(c, errMissing("sheet", "Send the sheet to read the sample from as sheet: {\"sheet\": \"Sheet name\"}, or the header's row as header_row."))
		return
	}
	var v review.View
	var err error
	if req.Sheet != nil {
		if v, err = a.deps.Review.ChooseSheet(c.Request.Context(), principal(c), c.Param("id"), *req.Sheet); err != nil {
			fail(c, err)
			return
		}
	}
	if req.HeaderRow != nil {
		if v, err = a.deps.Review.ChooseHeaderRow(c.Request.Context(), principal(c), c.Param("id"), *req.HeaderRow); err != nil {
			fail(c, err)
			return
		}
	}
	c.JSON(http.StatusOK, newReviewJSON(v))
}

// mappingRequest is the body of PATCH …/mapping: source column → field,
// or null to ignore the column.
type mappingRequest struct {
	Mapping *map[string]*string `json:"mapping"`
}

func (a *API) patchMapping(c *gin.Context) {
	var req mappingRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	if req.Mapping == nil { // an unknown job is 404 before its body is 400, as on every route
		if _, err := a.deps.JobReader.Get(c.Request.Context(), principal(c), c.Param("id")); err != nil {
			fail(c, err)
			return
		}
		fail(c, errMissing("mapping", "Send the columns to change as mapping: {\"Source column\": \"field\" or null}."))
		return
	}
	v, err := a.deps.Review.PatchMapping(c.Request.Context(), principal(c), c.Param("id"), *req.Mapping)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newReviewJSON(v))
}

// confirmReview queues a job awaiting review; an Idempotency-Key makes a
// retried confirmation answer as the first did.
func (a *API) confirmReview(c *gin.Context) {
	p := principal(c)
	a.createOnce(c, requestHash(c), answer{status: http.StatusAccepted}, func(ctx context.Context) (string, any, error) {
		j, err := a.deps.Confirm.Confirm(ctx, p, c.Param("id"))
		if err != nil {
			return "", nil, err
		}
		return jobPath(j), newJobJSON(j), nil
	})
}

// invalidValueJSON is one distinct rejected value of a field.
type invalidValueJSON struct {
	Object string `json:"object"`
	Value  string `json:"value"`
	Count  int64  `json:"count"`
	Code   string `json:"code"`
}

type invalidValuesJSON struct {
	listJSON[invalidValueJSON]
	Field         string `json:"field"`
	DistinctCount int    `json:"distinct_count"`
	Capped        bool   `json:"capped"`
}

func (a *API) invalidValues(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	vals, err := a.deps.Edits.InvalidValues(c.Request.Context(), principal(c), c.Param("id"), c.Query("field"), page)
	if err != nil {
		fail(c, err)
		return
	}
	data := make([]invalidValueJSON, len(vals.Values))
	for i, v := range vals.Values {
		data[i] = invalidValueJSON{Object: "invalid_value", Value: v.Value, Count: v.Count, Code: v.Code}
	}
	c.JSON(http.StatusOK, invalidValuesJSON{listJSON: newList(data, vals.Next), Field: vals.Field, DistinctCount: vals.Distinct, Capped: vals.Capped})
}

// rerunRequest is the body of POST …/rerun; every part is optional.
type rerunRequest struct {
	Options json.RawMessage    `json:"options"`
	Mapping map[string]*string `json:"mapping"`
	Edits   []editRequestJSON  `json:"edits,omitempty"`
	Review  bool               `json:"review,omitempty"`
}

// rerunJob makes a new job on the same files: an upload job's file is
// copied first, as an upload is stored before its creation is compared
// with an Idempotency-Key, and removed when it makes no job. A retry with
// a key already answered replays without copying anything.
func (a *API) rerunJob(c *gin.Context) {
	ctx := c.Request.Context()
	p := principal(c)
	var req rerunRequest
	if err := decodeOptionalJSON(c, &req); err != nil {
		a.failCreating(c, p.OrgID, err)
		return
	}
	canonical, _ := json.Marshal(req)
	key, hash := c.GetHeader("Idempotency-Key"), requestHash(c, string(canonical))
	// A replay answers without copying the file again.
	if res, replayed, err := a.deps.Idempotency.Replay(ctx, p.OrgID, key, hash); err != nil {
		fail(c, err)
		return
	} else if replayed {
		writeAnswer(c, res, true, answer{})
		return
	}
	edits, err := toEdits("edits", req.Edits)
	if err != nil {
		fail(c, err)
		return
	}
	run, err := a.deps.Reruns.PrepareRerun(ctx, p, c.Param("id"), review.RerunRequest{Options: present(req.Options), Mapping: req.Mapping, Edits: edits, Review: req.Review})
	if err != nil {
		fail(c, err)
		return
	}
	created := a.createOnce(c, hash, answer{status: http.StatusAccepted}, func(ctx context.Context) (string, any, error) {
		j, err := a.deps.Reruns.SubmitRerun(ctx, p, run)
		if err != nil {
			return "", nil, err
		}
		return jobPath(j), newJobJSON(j), nil
	})
	if !created {
		a.deps.Reruns.DiscardRerun(ctx, run)
	}
}

// decodeOptionalJSON is decodeJSON for a body that may be left out: no
// body at all reads as {}.
func decodeOptionalJSON(c *gin.Context, dst any) error {
	if c.Request.ContentLength == 0 && c.GetHeader("Content-Type") == "" {
		return nil
	}
	return decodeJSON(c, dst)
}

func errMissing(field, message string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: message, Fields: []domain.FieldError{{Field: field, Message: "required"}}}
}
