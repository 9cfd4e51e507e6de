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
		"domain/job/job.go":             `package job; import _ "github.com/gin-gonic/gin"`,
		"domain/schema/s.go":            `package schema; import _ "github.com/tabnorm/tabnorm/adapters/sqlstore"`,
		"application/jobs/j.go":         `package jobs; import _ "github.com/uptrace/bun"`,
		"adapters/blob/b.go":            `package blob; import _ "go.uber.org/fx"`,
		"ports/p.go":                    `package ports; import _ "github.com/tabnorm/tabnorm/application/jobs"`,
		"adapters/sqlstore/ok.go":       `package sqlstore; import _ "github.com/uptrace/bun"`,
		"domain/normalize/ok.go":        `package normalize; import _ "github.com/nyaruka/phonenumbers"; import _ "golang.org/x/text/unicode/norm"`,
		"bootstrap/ok.go":               `package bootstrap; import _ "go.uber.org/fx"`,
		"domain/normalize/ok_test.go":   `package normalize; import _ "github.com/gin-gonic/gin"`,
		"adapters/blob/app.go":          `package blob; import _ "github.com/tabnorm/tabnorm/application/jobs"`,
		"adapters/webhook/other.go":     `package webhook; import _ "github.com/tabnorm/tabnorm/adapters/sqlstore"`,
		"adapters/httpapi/ok.go":        `package httpapi; import _ "github.com/tabnorm/tabnorm/application/jobs"; import _ "github.com/tabnorm/tabnorm/adapters/dashboard"`,
		"adapters/queue/ok.go":          `package queue; import _ "github.com/tabnorm/tabnorm/adapters/sqlstore"; import _ "github.com/tabnorm/tabnorm/adapters/queue/inner"`,
		"domain/job/engine.go":          `package job; import _ "github.com/tabnorm/tabnorm/domain/normalize"`,
		"domain/job/values.go":          `package job; import _ "github.com/tabnorm/tabnorm/domain/normalize/mode"; import _ "github.com/tabnorm/tabnorm/domain/normalize/review"`,
		"domain/normalize/coerce/c.go":  `package coerce; import _ "github.com/tabnorm/tabnorm/domain/normalize/match"`,
		"domain/normalize/match/m.go":   `package match; import _ "github.com/tabnorm/tabnorm/domain/normalize"; import _ "github.com/tabnorm/tabnorm/application/jobs"`,
		"domain/normalize/match/ok.go":  `package match; import _ "github.com/tabnorm/tabnorm/domain/normalize/coerce"`,
		"domain/normalize/review/r.go":  `package review; import _ "github.com/tabnorm/tabnorm/adapters/httpapi"`,
		"domain/normalize/review/ok.go": `package review; import _ "github.com/tabnorm/tabnorm/domain/normalize/match"`,
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
		"adapters/blob/app.go imports github.com/tabnorm/tabnorm/application/jobs",
		"adapters/webhook/other.go imports github.com/tabnorm/tabnorm/adapters/sqlstore",
		"domain/job/engine.go imports github.com/tabnorm/tabnorm/domain/normalize:",
		"domain/normalize/coerce/c.go imports github.com/tabnorm/tabnorm/domain/normalize/match",
		"domain/normalize/match/m.go imports github.com/tabnorm/tabnorm/domain/normalize:",
		"domain/normalize/match/m.go imports github.com/tabnorm/tabnorm/application/jobs",
		"domain/normalize/review/r.go imports github.com/tabnorm/tabnorm/adapters/httpapi",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("not reported: %s\ngot:\n%s", want, joined)
		}
	}
	for _, ok := range []string{"adapters/sqlstore/ok.go", "domain/normalize/ok", "bootstrap/ok.go", "adapters/httpapi/ok.go", "adapters/queue/ok.go",
		"domain/job/values.go", "domain/normalize/match/ok.go", "domain/normalize/review/ok.go"} {
		if strings.Contains(joined, ok) {
			t.Errorf("allowed import reported: %s\n%s", ok, joined)
		}
	}
}

func TestErrorCodesAreConstants(t *testing.T) {
	t.Parallel()
	found, err := LiteralCodes(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Error(f)
	}
}

// TestLiteralCodes_catchesLiterals proves the check is not vacuous: each
// way of writing a code as a literal is reported, the constants are not.
func TestLiteralCodes_catchesLiterals(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		"domain/codes.go":          `package domain; const CodeNotFound Code = "not_found"`,
		"domain/job/field.go":      `package job; var e = &domain.Error{Code: "conflict"}`,
		"domain/job/failure.go":    `package job; var f = Failure{Code: "worker_lost"}`,
		"domain/job/issue.go":      `package job; var i = Issue{Code: "invalid_email"}`,
		"domain/job/errorf.go":     `package job; var e = domain.Errorf(domain.ErrConflict, "job_not_cancelable", "x")`,
		"domain/normalize/f.go":    `package normalize; var f = fail("row_limit_exceeded", "x")`,
		"cmd/tabnorm/iscode.go":    `package main; var b = client.IsCode(err, "forbidden_entitlement_missing")`,
		"application/x/codeof.go":  `package x; var b = "conflict" == domain.CodeOf(err)`,
		"application/x/ok.go":      `package x; var e = domain.Errorf(domain.ErrConflict, domain.CodeConflict, "conflict")`,
		"application/x/ok_test.go": `package x; var e = &domain.Error{Code: "conflict"}`,
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
	found, err := LiteralCodes(root)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(found, "\n")
	for _, want := range []string{
		`domain/job/field.go:1: error code "conflict"`,
		`domain/job/errorf.go:1: error code "job_not_cancelable"`,
		`domain/job/failure.go:1: error code "worker_lost"`,
		`domain/normalize/f.go:1: error code "row_limit_exceeded"`,
		`cmd/tabnorm/iscode.go:1: error code "forbidden_entitlement_missing"`,
		`application/x/codeof.go:1: error code "conflict"`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("not reported: %s\ngot:\n%s", want, joined)
		}
	}
	if len(found) != 6 {
		t.Errorf("reported %d, want 6:\n%s", len(found), joined)
	}
}
