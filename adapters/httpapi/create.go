package httpapi

import (
	"context"
	"encoding/json"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/ports"
)

// answer is how a creating request is answered, the first time and on a
// replay alike.
type answer struct {
	status  int
	noStore bool // the body shows a secret once: no cache may keep it
}

// createOnce runs create under the request's Idempotency-Key (API.md §1)
// and answers with the location and body create returns, or, for a repeat
// of the same request, with the first answer again. It reports whether
// this request's creation is the answer: false after a refusal or a
// replay.
func (a *API) createOnce(c *gin.Context, hash string, ans answer, create func(ctx context.Context) (location string, body any, err error)) bool {
	res, replayed, err := a.deps.Idempotency.Do(c.Request.Context(), principal(c).OrgID, c.GetHeader("Idempotency-Key"), hash,
		func(ctx context.Context) (ports.IdempotentAnswer, error) {
			location, v, err := create(ctx)
			if err != nil {
				return ports.IdempotentAnswer{}, err
			}
			body, err := json.Marshal(v)
			return ports.IdempotentAnswer{Status: ans.status, Location: location, Body: body}, err
		})
	if err != nil {
		fail(c, err)
		return false
	}
	writeAnswer(c, res, replayed, ans)
	return !replayed
}

// writeAnswer writes a creation's answer, first or replayed.
func writeAnswer(c *gin.Context, res ports.IdempotentAnswer, replayed bool, ans answer) {
	if ans.noStore {
		c.Header("Cache-Control", "no-store")
	}
	if res.Location != "" {
		c.Header("Location", res.Location)
	}
	if replayed {
		c.Header("Idempotent-Replayed", "true")
	}
	c.Data(res.Status, "application/json; charset=utf-8", res.Body)
}

// failCreating answers a creating request that failed before its
// Idempotency-Key was compared: a key already spent on another request is
// 409 idempotency_key_reused, whatever else is wrong with this one.
func (a *API) failCreating(c *gin.Context, orgID string, err error) {
	if rerr := a.deps.Idempotency.Reused(c.Request.Context(), orgID, c.GetHeader("Idempotency-Key")); rerr != nil {
		err = rerr
	}
	fail(c, err)
}
