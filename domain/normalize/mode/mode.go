// Package mode holds what a job does with its files: normalize them,
// validate them or infer a schema from them (API.md §7). It is the one
// word of the engine's settings that a job carries as a value, apart from
// the engine itself.
package mode

import "github.com/tabnorm/tabnorm/domain"

// Mode is what a job does.
type Mode string

// The modes.
const (
	Normalize Mode = "normalize"
	Validate  Mode = "validate"
	Infer     Mode = "infer"
)

// Parse validates a mode; "" is normalize.
func Parse(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return Normalize, nil
	case Normalize, Validate, Infer:
		return m, nil
	}
	return "", domain.Errorf(domain.ErrInvalid, domain.CodeInvalidMode, "Unknown mode %q: use normalize, validate or infer.", s)
}
