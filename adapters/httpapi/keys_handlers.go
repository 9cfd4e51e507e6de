package httpapi

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/ports"
)

// APIKeyJSON is a key as listed; the plaintext appears only in the
// creation response (Key).
type APIKeyJSON struct {
	ID         string  `json:"id"`
	Object     string  `json:"object"`
	Name       string  `json:"name"`
	Prefix     string  `json:"prefix"`
	Last4      string  `json:"last4"`
	CreatedAt  string  `json:"created_at"`
	LastUsedAt *string `json:"last_used_at"`
	RevokedAt  *string `json:"revoked_at"`
	CreatedBy  *string `json:"created_by"`
	Key        string  `json:"key,omitempty"`
}

// NewAPIKeyJSON converts a key for output; plaintext is "" except once.
func NewAPIKeyJSON(k apikey.Key, plaintext string) APIKeyJSON {
	out := APIKeyJSON{ID: k.ID, Object: "api_key", Name: k.Name, Prefix: apikey.Prefix, Last4: k.Last4,
		CreatedAt: formatTime(k.CreatedAt), LastUsedAt: formatTimePtr(k.LastUsedAt), RevokedAt: formatTimePtr(k.RevokedAt), Key: plaintext}
	if k.CreatedBy != "" {
		out.CreatedBy = &k.CreatedBy
	}
	return out
}

func (a *API) listKeys(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	keys, next, err := a.deps.Keys.List(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]APIKeyJSON, len(keys))
	for i, k := range keys {
		out[i] = NewAPIKeyJSON(k, "")
	}
	c.JSON(http.StatusOK, newList(out, next))
}

type createKeyRequest struct {
	Name string `json:"name"`
}

func (a *API) createKey(c *gin.Context) {
	// The role check comes first: an API key caller is refused before its
	// body is even read.
	if err := principal(c).CanManageKeys(); err != nil {
		fail(c, err)
		return
	}
	var req createKeyRequest
	if err := decodeJSON(c, &req); err != nil {
		a.failCreating(c, principal(c).OrgID, err)
		return
	}
	// Under an Idempotency-Key the answer kept for a replay is the key's
	// record without its secret: only the secret's hash is stored, so a
	// replay cannot show it again (API.md §3).
	var plain string
	var created APIKeyJSON
	res, replayed, err := a.deps.Idempotency.Do(c.Request.Context(), principal(c).OrgID, c.GetHeader("Idempotency-Key"), requestHash(c, req.Name),
		func(ctx context.Context) (ports.IdempotentAnswer, error) {
			k, p, err := a.deps.Keys.Create(ctx, principal(c), req.Name, client(c))
			if err != nil {
				return ports.IdempotentAnswer{}, err
			}
			plain, created = p, NewAPIKeyJSON(k, "")
			body, err := json.Marshal(created)
			return ports.IdempotentAnswer{Status: http.StatusCreated, Body: body}, err
		})
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	if replayed {
		writeAnswer(c, res, true, answer{noStore: true})
		return
	}
	created.Key = plain
	c.JSON(http.StatusCreated, created)
}

func (a *API) revokeKey(c *gin.Context) {
	k, err := a.deps.Keys.Revoke(c.Request.Context(), principal(c), c.Param("id"), client(c))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, NewAPIKeyJSON(k, ""))
}
