package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/keys"
	"github.com/tabnorm/tabnorm/domain/apikey"
	"github.com/tabnorm/tabnorm/ports"
)

// APIKeyJSON is a key as listed; the plaintext appears only in the
// creation response (Key).
type APIKeyJSON struct {
	ID         string   `json:"id"`
	Object     string   `json:"object"`
	Name       string   `json:"name"`
	Prefix     string   `json:"prefix"`
	Last4      string   `json:"last4"`
	CreatedAt  string   `json:"created_at"`
	LastUsedAt *string  `json:"last_used_at"`
	LastUsedIP *string  `json:"last_used_ip"`
	RevokedAt  *string  `json:"revoked_at"`
	CreatedBy  *string  `json:"created_by"`
	Scopes     []string `json:"scopes"`
	ExpiresAt  *string  `json:"expires_at"`
	Key        string   `json:"key,omitempty"`
}

// NewAPIKeyJSON converts a key for output; plaintext is "" except once.
func NewAPIKeyJSON(k apikey.Key, plaintext string) APIKeyJSON {
	out := APIKeyJSON{ID: k.ID, Object: "api_key", Name: k.Name, Prefix: apikey.Prefix, Last4: k.Last4,
		CreatedAt: formatTime(k.CreatedAt), LastUsedAt: formatTimePtr(k.LastUsedAt), RevokedAt: formatTimePtr(k.RevokedAt), Key: plaintext,
		ExpiresAt: formatTimePtr(k.ExpiresAt), Scopes: make([]string, len(k.Scopes))}
	for i, s := range k.Scopes {
		out.Scopes[i] = string(s)
	}
	if k.CreatedBy != "" {
		out.CreatedBy = &k.CreatedBy
	}
	if k.LastUsedIP != "" {
		out.LastUsedIP = &k.LastUsedIP
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
	Name      string     `json:"name"`
	Scopes    *[]string  `json:"scopes"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// fingerprint is what an Idempotency-Key's replay must repeat.
func (r createKeyRequest) fingerprint() []string {
	parts := []string{r.Name, "", ""}
	if r.Scopes != nil {
		parts[1] = "[" + strings.Join(*r.Scopes, "\x00") + "]"
	}
	if r.ExpiresAt != nil {
		parts[2] = r.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	return parts
}

func (r createKeyRequest) newKey() keys.NewKey {
	k := keys.NewKey{Name: r.Name, ExpiresAt: r.ExpiresAt}
	if r.Scopes != nil {
		k.Scopes = append([]string{}, *r.Scopes...) // present and empty stays empty: refused
	}
	return k
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
	res, replayed, err := a.deps.Idempotency.Do(c.Request.Context(), principal(c).OrgID, c.GetHeader("Idempotency-Key"), requestHash(c, req.fingerprint()...),
		func(ctx context.Context) (ports.IdempotentAnswer, error) {
			k, p, err := a.deps.Keys.Create(ctx, principal(c), req.newKey(), client(c))
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
