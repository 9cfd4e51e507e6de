package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
)

// maxJSONBody bounds every JSON request body.
const maxJSONBody = 1 << 20

// decodeJSON reads a JSON request body strictly: the right content type,
// at most 1 MiB, one document, no unknown fields.
func decodeJSON(c *gin.Context, dst any) error {
	mt, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil || mt != "application/json" {
		return domain.Errorf(domain.ErrInvalid, domain.CodeUnsupportedMediaType, "Send the body as application/json.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return domain.Invalid("The JSON body is over %d bytes.", maxJSONBody)
		}
		if errors.Is(err, errBodyTooSlow) {
			return errBodyTooSlow
		}
		return domain.Invalid("The JSON body cannot be read: the connection broke off.")
	}
	if !cleanJSON(body) {
		return errBadText
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return domain.Invalid("The body is not valid JSON for this route: %s.", describeJSONError(err))
	}
	if dec.More() {
		return domain.Invalid("The body has more than one JSON document.")
	}
	return nil
}

func describeJSONError(err error) string {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("syntax error at byte %d", syntax.Offset)
	case errors.As(err, &typeErr):
		return fmt.Sprintf("field %q must be %s", typeErr.Field, typeErr.Type)
	case errors.Is(err, io.EOF):
		return "empty body"
	}
	return err.Error() // e.g. `json: unknown field "x"`: safe, names only the client's own field
}

// listJSON is the list envelope of API.md §1.
type listJSON[T any] struct {
	Object     string  `json:"object"`
	Data       []T     `json:"data"`
	NextCursor *string `json:"next_cursor"`
}

func newList[T any](data []T, next string) listJSON[T] {
	l := listJSON[T]{Object: "list", Data: data}
	if l.Data == nil {
		l.Data = []T{}
	}
	if next != "" {
		l.NextCursor = &next
	}
	return l
}
