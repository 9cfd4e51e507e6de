package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
)

// statusOf is the contract's code → HTTP status table (API.md §2).
var statusOf = map[string]int{
	"invalid_request":               http.StatusBadRequest,
	"file_required":                 http.StatusBadRequest,
	"invalid_mode":                  http.StatusBadRequest,
	"mixed_authentication":          http.StatusBadRequest,
	"unauthenticated":               http.StatusUnauthorized,
	"invalid_api_key":               http.StatusUnauthorized,
	"invalid_credentials":           http.StatusUnauthorized,
	"csrf_token_invalid":            http.StatusForbidden,
	"forbidden_entitlement_missing": http.StatusForbidden,
	"insufficient_permissions":      http.StatusForbidden,
	"license_invalid":               http.StatusForbidden,
	"license_expired":               http.StatusForbidden,
	"not_found":                     http.StatusNotFound,
	"method_not_allowed":            http.StatusMethodNotAllowed,
	"job_not_cancelable":            http.StatusConflict,
	"job_not_finished":              http.StatusConflict,
	"job_not_awaiting_review":       http.StatusConflict,
	"source_deleted":                http.StatusConflict,
	"idempotency_key_reused":        http.StatusConflict,
	"webhook_disabled":              http.StatusConflict,
	"delivery_pending":              http.StatusConflict,
	"conflict":                      http.StatusConflict,
	"file_too_large":                http.StatusRequestEntityTooLarge,
	"unsupported_file_format":       http.StatusUnsupportedMediaType,
	"encrypted_file":                http.StatusUnsupportedMediaType,
	"unsupported_media_type":        http.StatusUnsupportedMediaType,
	"invalid_schema":                http.StatusUnprocessableEntity,
	"file_not_found":                http.StatusUnprocessableEntity,
	"invalid_mapping":               http.StatusUnprocessableEntity,
	"required_field_unmapped":       http.StatusUnprocessableEntity,
	"no_columns_mapped":             http.StatusUnprocessableEntity,
	"rate_limited":                  http.StatusTooManyRequests,
	"internal_error":                http.StatusInternalServerError,
	"unavailable":                   http.StatusServiceUnavailable,
}

// byKind is the fallback for coded errors with a code outside the table
// and for plain errors wrapping a domain kind.
var byKind = []struct {
	kind error
	code string
}{
	{domain.ErrNotFound, "not_found"},
	{domain.ErrConflict, "conflict"},
	{domain.ErrInvalid, "invalid_request"},
	{domain.ErrForbidden, "insufficient_permissions"},
	{domain.ErrUnauthenticated, "unauthenticated"},
	{domain.ErrUnavailable, "unavailable"},
	{domain.ErrTooMany, "rate_limited"},
}

type problemField struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type problem struct {
	Type      string         `json:"type"`
	Title     string         `json:"title"`
	Status    int            `json:"status"`
	Code      string         `json:"code"`
	Detail    string         `json:"detail"`
	RequestID string         `json:"request_id"`
	Errors    []problemField `json:"errors,omitempty"`
}

// toProblem maps any error to the problem a client sees. Internal errors
// become a generic 500: their text is logged, never sent.
func toProblem(err error) (problem, bool) {
	var coded *domain.Error
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &coded):
		p := problem{Code: coded.Code, Detail: coded.Message}
		for _, f := range coded.Fields {
			p.Errors = append(p.Errors, problemField(f))
		}
		if status, ok := statusOf[coded.Code]; ok {
			p.Status = status
			return p, false
		}
		for _, k := range byKind {
			if errors.Is(coded.Kind, k.kind) {
				p.Status = statusOf[k.code]
				return p, false
			}
		}
	case errors.As(err, &tooBig):
		return problem{Status: http.StatusRequestEntityTooLarge, Code: "file_too_large",
			Detail: "The request body is over the limit of " + strconv.FormatInt(tooBig.Limit, 10) + " bytes."}, false
	default:
		for _, k := range byKind {
			if errors.Is(err, k.kind) {
				return problem{Status: statusOf[k.code], Code: k.code, Detail: http.StatusText(statusOf[k.code]) + "."}, false
			}
		}
	}
	return problem{Status: http.StatusInternalServerError, Code: "internal_error",
		Detail: "Something went wrong on our side. Quote the request id when you report it."}, true
}

// writeProblem renders err as RFC 9457 problem+json. It is the one place
// where errors become responses.
func (a *API) writeProblem(c *gin.Context, err error) {
	p, internal := toProblem(err)
	p.Type = "about:blank"
	p.Title = http.StatusText(p.Status)
	p.RequestID = requestID(c)
	switch {
	case !internal || errors.Is(err, errPanic):
	case errors.Is(err, context.Canceled):
		a.log.DebugContext(c.Request.Context(), "request canceled", "request_id", p.RequestID)
	default:
		a.log.ErrorContext(c.Request.Context(), "internal error", "request_id", p.RequestID, "error", err.Error())
	}
	var coded *domain.Error
	if errors.As(err, &coded) && coded.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(coded.RetryAfter))
	}
	switch p.Code {
	case "rate_limited", "quota_exceeded":
		a.observer.Refused(p.Code)
	}
	body, _ := json.Marshal(p)
	c.Data(p.Status, "application/problem+json", body)
}

// fail records err for the error middleware and stops the chain. Handlers
// and middleware report every error this way.
func fail(c *gin.Context, err error) {
	_ = c.Error(err)
	c.Abort()
}
