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

// statusOf is the contract's code → HTTP status table (API.md §2): every
// problem code is a key. A code whose status depends on what was refused
// has byKind as its status and takes its error's kind's: quota_exceeded is
// 403 for a spent monthly quota (ErrForbidden) and 429 for a full queue
// (ErrTooMany); invalid_cursor is 400 (ErrInvalid).
var statusOf = map[domain.Code]int{
	domain.CodeInvalidRequest:              http.StatusBadRequest,
	domain.CodeInvalidCursor:               byKind,
	domain.CodeFileRequired:                http.StatusBadRequest,
	domain.CodeInvalidMode:                 http.StatusBadRequest,
	domain.CodeMixedAuthentication:         http.StatusBadRequest,
	domain.CodeUnauthenticated:             http.StatusUnauthorized,
	domain.CodeInvalidAPIKey:               http.StatusUnauthorized,
	domain.CodeAPIKeyExpired:               http.StatusUnauthorized,
	domain.CodeInvalidCredentials:          http.StatusUnauthorized,
	domain.CodeCSRFTokenInvalid:            http.StatusForbidden,
	domain.CodeForbiddenEntitlementMissing: http.StatusForbidden,
	domain.CodeInsufficientPermissions:     http.StatusForbidden,
	domain.CodeInsufficientScope:           http.StatusForbidden,
	domain.CodeForbiddenImportSession:      http.StatusForbidden,
	domain.CodeImportSessionExpired:        http.StatusUnauthorized,
	domain.CodeLicenseInvalid:              http.StatusForbidden,
	domain.CodeLicenseExpired:              http.StatusForbidden,
	domain.CodeQuotaExceeded:               byKind,
	domain.CodeNotFound:                    http.StatusNotFound,
	domain.CodeMethodNotAllowed:            http.StatusMethodNotAllowed,
	domain.CodeJobNotCancelable:            http.StatusConflict,
	domain.CodeJobNotFinished:              http.StatusConflict,
	domain.CodeJobNotAwaitingReview:        http.StatusConflict,
	domain.CodeSourceDeleted:               http.StatusConflict,
	domain.CodeIdempotencyKeyReused:        http.StatusConflict,
	domain.CodeWebhookDisabled:             http.StatusConflict,
	domain.CodeWebhookLimitReached:         http.StatusConflict,
	domain.CodeSecretKeyRequired:           http.StatusConflict,
	domain.CodeSSORequired:                 http.StatusForbidden,
	domain.CodeSSONotConfigured:            http.StatusNotFound,
	domain.CodeSSODomainNotAllowed:         http.StatusForbidden,
	domain.CodeSSOFailed:                   byKind,
	domain.CodeEditLimitReached:            http.StatusConflict,
	domain.CodeNothingToUndo:               http.StatusConflict,
	domain.CodeNothingToRedo:               http.StatusConflict,
	domain.CodeRowsStillInvalid:            http.StatusConflict,
	domain.CodeTooFewValidRows:             http.StatusConflict,
	domain.CodeDeliveryPending:             http.StatusConflict,
	domain.CodeConflict:                    http.StatusConflict,
	domain.CodeFileTooLarge:                http.StatusRequestEntityTooLarge,
	domain.CodeUnsupportedFileFormat:       http.StatusUnsupportedMediaType,
	domain.CodeEncryptedFile:               http.StatusUnsupportedMediaType,
	domain.CodeUnsupportedMediaType:        http.StatusUnsupportedMediaType,
	domain.CodeInvalidSchema:               http.StatusUnprocessableEntity,
	domain.CodeFileNotFound:                http.StatusUnprocessableEntity,
	domain.CodeInvalidMapping:              http.StatusUnprocessableEntity,
	domain.CodeRequiredFieldUnmapped:       http.StatusUnprocessableEntity,
	domain.CodeNoColumnsMapped:             http.StatusUnprocessableEntity,
	domain.CodeCellTooLong:                 http.StatusUnprocessableEntity,
	domain.CodeRateLimited:                 http.StatusTooManyRequests,
	domain.CodeTooManyStreams:              http.StatusTooManyRequests,
	domain.CodeInternalError:               http.StatusInternalServerError,
	domain.CodeUnavailable:                 http.StatusServiceUnavailable,
}

// byKind, as a status in statusOf, means "the status of the error's kind".
const byKind = 0

// kinds is the fallback for coded errors whose code's status is byKind,
// and for plain errors wrapping a domain kind.
var kinds = []struct {
	kind error
	code domain.Code
}{
	{domain.ErrNotFound, domain.CodeNotFound},
	{domain.ErrConflict, domain.CodeConflict},
	{domain.ErrInvalid, domain.CodeInvalidRequest},
	{domain.ErrForbidden, domain.CodeInsufficientPermissions},
	{domain.ErrUnauthenticated, domain.CodeUnauthenticated},
	{domain.ErrUnavailable, domain.CodeUnavailable},
	{domain.ErrTooMany, domain.CodeRateLimited},
}

type problemField struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

type problem struct {
	Type      string      `json:"type"`
	Title     string      `json:"title"`
	Status    int         `json:"status"`
	Code      domain.Code `json:"code"`
	Detail    string      `json:"detail"`
	RequestID string      `json:"request_id"`
	// RequiredScope is the scope an API key lacked (insufficient_scope).
	RequiredScope string `json:"required_scope,omitempty"`
	// Reason says which check failed (sso_failed).
	Reason string         `json:"reason,omitempty"`
	Errors []problemField `json:"errors,omitempty"`
}

// toProblem maps any error to the problem a client sees. Internal errors
// become a generic 500: their text is logged, never sent.
func toProblem(err error) (problem, bool) {
	var coded *domain.Error
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &coded):
		p := problem{Code: coded.Code, Detail: coded.Message, RequiredScope: coded.Scope, Reason: coded.Reason}
		for _, f := range coded.Fields {
			p.Errors = append(p.Errors, problemField(f))
		}
		if status := statusOf[coded.Code]; status != byKind {
			p.Status = status
			return p, false
		}
		for _, k := range kinds {
			if errors.Is(coded.Kind, k.kind) {
				p.Status = statusOf[k.code]
				return p, false
			}
		}
	case errors.As(err, &tooBig):
		return problem{Status: http.StatusRequestEntityTooLarge, Code: domain.CodeFileTooLarge,
			Detail: "The request body is over the limit of " + strconv.FormatInt(tooBig.Limit, 10) + " bytes."}, false
	default:
		for _, k := range kinds {
			if errors.Is(err, k.kind) {
				return problem{Status: statusOf[k.code], Code: k.code, Detail: http.StatusText(statusOf[k.code]) + "."}, false
			}
		}
	}
	return problem{Status: http.StatusInternalServerError, Code: domain.CodeInternalError,
		Detail: "Something went wrong on our side. Quote the request id when you report it."}, true
}

// writeProblem renders err as RFC 9457 problem+json. It is the one place
// where errors become responses.
func (a *API) writeProblem(c *gin.Context, err error) {
	p, internal := toProblem(err)
	p.Type = problemType(p.Code)
	p.Title = http.StatusText(p.Status)
	p.RequestID = requestID(c)
	switch {
	case !internal || errors.Is(err, errPanic):
	case errors.Is(err, context.Canceled):
		a.log.DebugContext(c.Request.Context(), "request canceled", "request_id", p.RequestID)
	default:
		a.log.ErrorContext(c.Request.Context(), "internal error", "request_id", p.RequestID, "error", err.Error())
	}
	if p.Status == http.StatusUnauthorized {
		c.Header("WWW-Authenticate", bearerChallenge(p.Code))
	}
	if p.Code == domain.CodeInsufficientScope { // RFC 6750 §3.1
		c.Header("WWW-Authenticate", `Bearer realm="tabnorm", error="insufficient_scope", scope="`+p.RequiredScope+`"`)
	}
	var coded *domain.Error
	if errors.As(err, &coded) && coded.RetryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(coded.RetryAfter))
	}
	switch p.Code {
	case domain.CodeRateLimited, domain.CodeQuotaExceeded, domain.CodeTooManyStreams:
		a.observer.Refused(string(p.Code))
	}
	body, _ := json.Marshal(p)
	c.Data(p.Status, "application/problem+json", body)
}

// problemTypes is where each code is documented: a problem's type is
// this and its code, the anchor of the code's section of docs/problems.md
// (a test holds every code of domain/codes.go to having one).
const problemTypes = "https://github.com/tabnorm/tabnorm/blob/main/docs/problems.md#"

func problemType(code domain.Code) string { return problemTypes + string(code) }

// fail records err for the error middleware and stops the chain. Handlers
// and middleware report every error this way.
func fail(c *gin.Context, err error) {
	_ = c.Error(err)
	c.Abort()
}

// bearerChallenge is the WWW-Authenticate of a 401 (RFC 9110 §11.6.1,
// RFC 6750 §3): every 401 names the Bearer scheme and the realm; a
// credential that was sent and refused (a revoked, unknown or malformed
// key, an expired import session's secret) adds error="invalid_token";
// an expired key says so in error_description.
// A request without credentials, a failed sign-in and an expired session
// get no error code: RFC 6750 gives none to a request that sent no token.
func bearerChallenge(code domain.Code) string {
	switch code {
	case domain.CodeAPIKeyExpired:
		return `Bearer realm="tabnorm", error="invalid_token", error_description="The API key expired"`
	case domain.CodeInvalidAPIKey, domain.CodeImportSessionExpired:
		return `Bearer realm="tabnorm", error="invalid_token"`
	}
	return `Bearer realm="tabnorm"`
}
