package arch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImportDirection(t *testing.T) {
	t.Parallel()
	problems, err := Check(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCheck_catchesViolations proves the checker is not vacuous: a tree
// with each kind of wrong import must be reported.
func TestCheck_catchesViolations(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"domain/job/job.go":           `package job; import _ "github.com/gin-gonic/gin"`,
		"domain/schema/s.go":          `package schema; import _ "github.com/tabnorm/tabnorm/adapters/sqlstore"`,
		"application/jobs/j.go":       `package jobs; import _ "github.com/uptrace/bun"`,
		"adapters/blob/b.go":          `package blob; import _ "go.uber.org/fx"`,
		"ports/p.go":                  `package ports; import _ "github.com/tabnorm/tabnorm/application/jobs"`,
		"adapters/sqlstore/ok.go":     `package sqlstore; import _ "github.com/uptrace/bun"`,
		"domain/normalize/ok.go":      `package normalize; import _ "github.com/nyaruka/phonenumbers"; import _ "golang.org/x/text/unicode/norm"`,
		"bootstrap/ok.go":             `package bootstrap; import _ "go.uber.org/fx"`,
		"domain/normalize/ok_test.go": `package normalize; import _ "github.com/gin-gonic/gin"`,
	}
	for name, src := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	problems, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(problems, "\n")
	for _, want := range []string{
		"domain/job/job.go imports github.com/gin-gonic/gin",
		"domain/schema/s.go imports github.com/tabnorm/tabnorm/adapters/sqlstore",
		"application/jobs/j.go imports github.com/uptrace/bun",
		"adapters/blob/b.go imports go.uber.org/fx",
		"ports/p.go imports github.com/tabnorm/tabnorm/application/jobs",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("not reported: %s\ngot:\n%s", want, joined)
		}
	}
	for _, ok := range []string{"adapters/sqlstore/ok.go", "domain/normalize/ok", "bootstrap/ok.go"} {
		if strings.Contains(joined, ok) {
			t.Errorf("allowed import reported: %s\n%s", ok, joined)
		}
	}
}
