package domain

import (
	"errors"
	"fmt"
)

// Error kinds. Specific errors wrap one of them, so a caller that only
// needs the category can use errors.Is, and the HTTP layer can fall back
// to a status by kind.
var (
	ErrNotFound        = errors.New("not found")
	ErrConflict        = errors.New("conflict")
	ErrInvalid         = errors.New("invalid")
	ErrForbidden       = errors.New("forbidden")
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrUnavailable     = errors.New("unavailable")
	ErrTooMany         = errors.New("too many requests")
)

// FieldError is one validation problem, located by a JSON path such as
// "schema.fields[2].type".
type FieldError struct {
	Field   string
	Message string
}

// Error is an error with the contract's machine-readable code (API.md §2).
// Message is safe to show to the client.
type Error struct {
	Kind    error
	Code    Code
	Message string
	Fields  []FieldError
	// RetryAfter, when positive, is how many seconds a client should wait.
	RetryAfter int
	// Scope is the scope an API key lacked (insufficient_scope only).
	Scope string
	// Reason says which check failed, for codes that cover several
	// (sso_failed).
	Reason string
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return string(e.Code) + ": " + e.Message
	}
	return fmt.Sprintf("%s: %s (%d problems, first: %s: %s)", e.Code, e.Message, len(e.Fields), e.Fields[0].Field, e.Fields[0].Message)
}

func (e *Error) Unwrap() error { return e.Kind }

// Errorf builds a coded error of the given kind.
func Errorf(kind error, code Code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the error for an unknown resource, including one that belongs
// to another organization: the two must be indistinguishable.
func NotFound(what string) *Error {
	return Errorf(ErrNotFound, CodeNotFound, "%s not found.", what)
}

// Invalid is a 400 invalid_request with a message.
func Invalid(format string, args ...any) *Error {
	return Errorf(ErrInvalid, CodeInvalidRequest, format, args...)
}

// CodeOf returns the contract code carried by err, or "" when it has none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// PrefixFields returns err with prefix added to each field path, so a
// problem found inside a nested document ("fields[2].type") is located
// in the request ("schema.fields[2].type"). Other errors pass unchanged.
func PrefixFields(err error, prefix string) error {
	var coded *Error
	if !errors.As(err, &coded) {
		return err
	}
	c := *coded
	c.Fields = make([]FieldError, len(coded.Fields))
	for i, f := range coded.Fields {
		c.Fields[i] = FieldError{Field: prefix + f.Field, Message: f.Message}
	}
	return &c
}
