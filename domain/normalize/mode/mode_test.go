package mode

import (
	"errors"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Mode{"": Normalize, "normalize": Normalize, "validate": Validate, "infer": Infer} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := Parse("Normalize")
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalidMode {
		t.Errorf("Parse(Normalize) = %v; want invalid_mode", err)
	}
}
