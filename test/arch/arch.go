// Package arch checks the shape of the code: the import direction of the
// hexagon, domain ← ports ← application ← adapters ← bootstrap ← cmd,
// which packages may import the frameworks, and that error codes are
// written as their domain.Code constants.
package arch

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// Module is the module path.
const Module = "github.com/tabnorm/tabnorm"

// Rule forbids packages under From (a path relative to the module root, ""
// for all) to import any path with one of the Deny prefixes, or any of the
// DenyPackages exactly, unless the importing package is under one of
// Except.
type Rule struct {
	From         string
	Deny         []string
	DenyPackages []string
	Except       []string
	Why          string
}

// Rules are the import rules of README.md's Architecture section and
// docs/adapters.md.
var Rules = []Rule{
	{From: "domain", Deny: []string{Module + "/ports", Module + "/application", Module + "/adapters", Module + "/bootstrap", Module + "/cmd", "github.com/", "go.uber.org/", "gocloud.dev/", "modernc.org/"},
		Except: nil, Why: "domain imports only the standard library, golang.org/x and value libraries"},
	{From: "ports", Deny: []string{Module + "/application", Module + "/adapters", Module + "/bootstrap", Module + "/cmd", "github.com/gin-gonic", "github.com/uptrace", "github.com/riverqueue", "go.uber.org/fx"},
		Why: "ports speak only domain types"},
	{From: "application", Deny: []string{Module + "/adapters", Module + "/bootstrap", Module + "/cmd", "github.com/gin-gonic", "github.com/uptrace", "github.com/riverqueue", "github.com/jackc", "gocloud.dev", "go.uber.org/fx"},
		Why: "use cases depend on ports, never on adapters or frameworks"},
	{From: "adapters", Deny: []string{Module + "/bootstrap", Module + "/cmd", "go.uber.org/fx"},
		Why: "adapters are wired by bootstrap, not the other way round"},
	{From: "", Deny: []string{"go.uber.org/fx", "go.uber.org/dig"}, Except: []string{"bootstrap", "cmd"},
		Why: "only bootstrap and cmd know about fx"},
	{From: "", Deny: []string{"github.com/gin-gonic/"}, Except: []string{"adapters/httpapi"},
		Why: "only the HTTP adapter knows gin"},
	{From: "", Deny: []string{"github.com/uptrace/bun"}, Except: []string{"adapters/sqlstore", "adapters/queue"},
		Why: "only the storage adapters know bun"},
	// The table readers (docs/adapters.md): adapters/formats tells the
	// format and imports each reader; the readers share formats/detect and
	// never import one another (nor can they import formats: a cycle).
	{From: "adapters/formats/detect", Deny: []string{formats + "/delimited", formats + "/jsonl", formats + "/xlsx"},
		Why: "formats/detect is what the readers share: it imports none of them"},
	{From: "adapters/formats/delimited", Deny: []string{formats + "/jsonl", formats + "/xlsx"},
		Why: "a reader imports formats/detect, never another reader"},
	{From: "adapters/formats/jsonl", Deny: []string{formats + "/delimited", formats + "/xlsx"},
		Why: "a reader imports formats/detect, never another reader"},
	{From: "adapters/formats/xlsx", Deny: []string{formats + "/delimited", formats + "/jsonl"},
		Why: "a reader imports formats/detect, never another reader"},
	// The engine's rooms (docs/design.md): domain/normalize is the run
	// loop; coerce and mode import nothing of the engine, match reads
	// values with coerce, review holds match's values; a job holds the
	// engine's values (its mode, its review), never the engine.
	{From: "domain/job", DenyPackages: []string{engine},
		Why: "a job holds the engine's values (normalize/mode, normalize/review), never the engine"},
	{From: "domain/normalize/coerce", Deny: []string{engine + "/"}, DenyPackages: []string{engine},
		Why: "the coercion of values imports no other part of the engine"},
	{From: "domain/normalize/mode", Deny: []string{engine + "/"}, DenyPackages: []string{engine},
		Why: "a job's mode imports no other part of the engine"},
	{From: "domain/normalize/match", Deny: []string{engine + "/review", engine + "/mode"}, DenyPackages: []string{engine},
		Why: "the matching of columns reads values with normalize/coerce and imports no other part of the engine"},
	{From: "domain/normalize/review", Deny: []string{engine + "/coerce", engine + "/mode"}, DenyPackages: []string{engine},
		Why: "the review's model holds normalize/match's values and imports no other part of the engine"},
}

// engine is the normalize engine's package; its rooms are below it.
const engine = Module + "/domain/normalize"

// formats is the table readers' parent package.
const formats = Module + "/adapters/formats"

// AdapterImports names, for each adapter, the application packages and
// other adapters it may import (docs/adapters.md, "Imports point inwards"):
// an adapter imports domain and ports; the driving HTTP adapter also calls
// the use cases, serves the dashboard's and the embedded importer's files
// and writes
// downloads with the export writers (XLSX, Parquet); the queue and
// the destinations' writers read stored rows and write Parquet with the
// export readers and writers; the event bus run on the stores' database and take its handle from
// sqlstore. Any other import of application or of another adapter breaks
// the build.
var AdapterImports = map[string][]string{
	"httpapi":     {"application/", "adapters/dashboard", "adapters/export", "adapters/importer"},
	"queue":       {"adapters/sqlstore"},
	"destination": {"adapters/export"},
	"events":      {"adapters/sqlstore"},
}

// allowedInDomain are third-party value libraries the domain may use.
var allowedInDomain = []string{"github.com/nyaruka/phonenumbers", "github.com/google/cel-go/"}

// Check parses every non-test Go file under root and returns the broken
// rules, one line each.
func Check(root string) ([]string, error) {
	var problems []string
	fset := token.NewFileSet()
	err := walkGo(root, func(path string) error {
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if why := adapterImport(rel, p); why != "" {
				problems = append(problems, fmt.Sprintf("%s imports %s: %s", filepath.ToSlash(mustRel(root, path)), p, why))
			}
			for _, r := range Rules {
				if broken(r, rel, p) {
					problems = append(problems, fmt.Sprintf("%s imports %s: %s", filepath.ToSlash(mustRel(root, path)), p, r.Why))
				}
			}
		}
		return nil
	})
	sort.Strings(problems)
	return problems, err
}

func broken(r Rule, pkg, imp string) bool {
	if r.From != "" && !under(pkg, r.From) {
		return false
	}
	for _, e := range r.Except {
		if under(pkg, e) {
			return false
		}
	}
	if r.From == "domain" {
		for _, ok := range allowedInDomain {
			if strings.HasPrefix(imp, ok) {
				return false
			}
		}
		if strings.HasPrefix(imp, Module+"/domain") {
			return false
		}
	}
	for _, d := range r.Deny {
		if strings.HasPrefix(imp, d) {
			return true
		}
	}
	for _, d := range r.DenyPackages {
		if imp == d {
			return true
		}
	}
	return false
}

// adapterImport says why an adapter's import of application or of another
// adapter is not allowed, or "" when it is (AdapterImports).
func adapterImport(pkg, imp string) string {
	if !under(pkg, "adapters") || !strings.HasPrefix(imp, Module+"/") {
		return ""
	}
	target := strings.TrimPrefix(imp, Module+"/")
	if !under(target, "adapters") && !under(target, "application") {
		return ""
	}
	own := strings.SplitN(strings.TrimPrefix(pkg, "adapters/"), "/", 2)[0]
	if under(target, "adapters/"+own) {
		return ""
	}
	for _, ok := range AdapterImports[own] {
		if strings.HasSuffix(ok, "/") && strings.HasPrefix(target, ok) || under(target, ok) {
			return ""
		}
	}
	return "an adapter imports domain and ports, and only the application packages and adapters AdapterImports names for it"
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

func mustRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return rel
}
