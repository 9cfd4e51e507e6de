package httpapi

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tabnorm/tabnorm/domain"
)

// declaredCodes reads domain/codes.go and returns its Code constants by
// const block: the problem codes, then the job failure codes.
func declaredCodes(t *testing.T) (problems, failures []domain.Code) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", "domain", "codes.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]domain.Code
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		var block []domain.Code
		for _, spec := range g.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok {
					t.Fatalf("domain/codes.go: a Code constant that is not a plain string: %#v", v)
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				block = append(block, domain.Code(s))
			}
		}
		blocks = append(blocks, block)
	}
	if len(blocks) != 2 {
		t.Fatalf("domain/codes.go has %d const blocks, want 2 (problem codes, job failure codes)", len(blocks))
	}
	return blocks[0], blocks[1]
}

// apiMarkdownTable returns, for the table of docs/API.md whose header row
// starts with header, the backquoted codes of its code column and the
// first column of each row.
func apiMarkdownTable(t *testing.T, header string, codeColumn int) (rows [][2]string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	start := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, header) })
	if start < 0 {
		t.Fatalf("docs/API.md has no table starting %q", header)
	}
	backquoted := regexp.MustCompile("`([a-z_]+)`")
	for _, l := range lines[start+2:] {
		if !strings.HasPrefix(l, "|") {
			break
		}
		cells := strings.Split(l, "|")
		for _, m := range backquoted.FindAllStringSubmatch(cells[1+codeColumn], -1) {
			rows = append(rows, [2]string{strings.TrimSpace(cells[1]), m[1]})
		}
	}
	return rows
}

func openAPISchemaProperty(t *testing.T, path ...string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	node := doc
	for _, p := range path {
		next, ok := node[p].(map[string]any)
		if !ok {
			t.Fatalf("openapi.json has no %s", strings.Join(path, "."))
		}
		node = next
	}
	return node
}

func openAPIEnum(t *testing.T, path ...string) []domain.Code {
	t.Helper()
	enum, ok := openAPISchemaProperty(t, path...)["enum"].([]any)
	if !ok {
		t.Fatalf("openapi.json: %s has no enum", strings.Join(path, "."))
	}
	var codes []domain.Code
	for _, v := range enum {
		s, ok := v.(string)
		if !ok {
			t.Fatalf("openapi.json: %s: %v in the enum is not a string", strings.Join(path, "."), v)
		}
		codes = append(codes, domain.Code(s))
	}
	return codes
}

func sameCodes(t *testing.T, what string, want, got []domain.Code) {
	t.Helper()
	for _, c := range want {
		if !slices.Contains(got, c) {
			t.Errorf("%s lacks %s", what, c)
		}
	}
	for _, c := range got {
		if !slices.Contains(want, c) {
			t.Errorf("%s has %s, which domain/codes.go does not declare as such", what, c)
		}
	}
}

// TestCodes_problemCodesAgree holds the problem codes to one list: the
// first const block of domain/codes.go, the keys of statusOf, the table of
// API.md §2 (with each code's status) and the OpenAPI Problem's code enum.
func TestCodes_problemCodesAgree(t *testing.T) {
	t.Parallel()
	declared, _ := declaredCodes(t)

	var table []domain.Code
	for c := range statusOf {
		table = append(table, c)
	}
	sameCodes(t, "statusOf", declared, table)

	var documented []domain.Code
	for _, row := range apiMarkdownTable(t, "| Status | code |", 1) {
		code := domain.Code(row[1])
		documented = append(documented, code)
		status, err := strconv.Atoi(row[0])
		if err != nil {
			t.Fatalf("API.md §2: status %q", row[0])
		}
		if s, ok := statusOf[code]; ok && s != byKind && s != status {
			t.Errorf("API.md §2 says %s is %d, statusOf says %d", code, status, s)
		}
	}
	sameCodes(t, "API.md §2", declared, documented)

	sameCodes(t, "openapi.json Problem.code", declared, openAPIEnum(t, "components", "schemas", "Problem", "properties", "code"))
}

// TestCodes_byKindStatusesAreTheKinds checks that every code whose status
// is byKind is only raised with a kind the fallback knows, so none of them
// can turn into a 500.
func TestCodes_byKindStatusesAreTheKinds(t *testing.T) {
	t.Parallel()
	for code, status := range statusOf {
		if status != byKind {
			continue
		}
		for _, kind := range []error{domain.ErrInvalid, domain.ErrForbidden, domain.ErrTooMany} {
			p, internal := toProblem(domain.Errorf(kind, code, "x"))
			if internal || p.Status == 0 || p.Code != code {
				t.Errorf("%s of kind %v: %+v, internal %v", code, kind, p, internal)
			}
		}
	}
}

// TestCodes_jobFailureCodesAgree holds the job failure codes to one list:
// the second const block of domain/codes.go, the table of API.md §5.2 and
// the OpenAPI Job's error.code enum.
func TestCodes_jobFailureCodesAgree(t *testing.T) {
	t.Parallel()
	problems, failures := declaredCodes(t)
	// A job fails with these problem codes too, when it finds the fault
	// as it runs (domain/codes.go says so beside the block).
	all := append(slices.Clone(failures), domain.CodeInvalidRequest, domain.CodeInvalidSchema,
		domain.CodeEncryptedFile, domain.CodeUnsupportedFileFormat, domain.CodeRequiredFieldUnmapped,
		domain.CodeNoColumnsMapped, domain.CodeInternalError)
	for _, c := range all[len(failures):] {
		if !slices.Contains(problems, c) {
			t.Errorf("%s is not a problem code", c)
		}
	}

	var documented []domain.Code
	for _, row := range apiMarkdownTable(t, "| error.code |", 0) {
		documented = append(documented, domain.Code(row[1]))
	}
	sameCodes(t, "API.md §5.2", all, documented)

	sameCodes(t, "openapi.json Job.error.code", all, openAPIEnum(t, "components", "schemas", "Job", "properties", "error", "properties", "code"))
}
