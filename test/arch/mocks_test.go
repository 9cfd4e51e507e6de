package arch

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// notMocked are the ports that no use case calls: the application
// implements them and the queue's workers call them, and their tests run
// them for real. Every other interface in ports/ is mocked.
var notMocked = map[string]string{
	"JobRunner":        "implemented by application/jobs, called by the queue's workers",
	"Purger":           "implemented by application/jobs, called by the queue's periodic job",
	"WebhookDeliverer": "implemented by application/webhooks, called by the queue's workers",
	"PushDeliverer":    "implemented by application/destinations, called by the queue's workers",
}

// TestMocks_coverEveryPort keeps .mockery.yaml, the one configuration
// `task mocks` generates from, equal to the ports the use cases call, and
// test/mocks equal to what it generates (CI regenerates them and fails on
// any difference: .ci/lint).
func TestMocks_coverEveryPort(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	ports := portInterfaces(t, filepath.Join(root, "ports"))
	configured := mockeryInterfaces(t, filepath.Join(root, ".mockery.yaml"))
	for _, name := range ports {
		_, skip := notMocked[name]
		_, listed := configured[name]
		switch {
		case skip && listed:
			t.Errorf("%s is both mocked in .mockery.yaml and named in notMocked", name)
		case !skip && !listed:
			t.Errorf("port %s is missing from .mockery.yaml (or name it in notMocked with the reason)", name)
		}
	}
	known := map[string]bool{}
	for _, name := range ports {
		known[name] = true
	}
	for name := range configured {
		if !known[name] {
			t.Errorf(".mockery.yaml names %s, which is no interface in ports/", name)
		}
		file := filepath.Join(root, "test", "mocks", snake(name)+".go")
		if _, err := os.Stat(file); err != nil {
			t.Errorf("the mock of %s is not generated: %v", name, err)
		}
	}
	for name := range notMocked {
		if !known[name] {
			t.Errorf("notMocked names %s, which is no interface in ports/", name)
		}
	}
}

func portInterfaces(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.TYPE {
				continue
			}
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, isInterface := ts.Type.(*ast.InterfaceType); isInterface && ts.Name.IsExported() {
					names = append(names, ts.Name.Name)
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

// mockeryInterfaces reads the interface names under "interfaces:" of the
// ports package in .mockery.yaml (keys indented one level below it).
func mockeryInterfaces(t *testing.T, path string) map[string]struct{} {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	names := map[string]struct{}{}
	inside, indent := false, 0
	scan := bufio.NewScanner(f)
	for scan.Scan() {
		line := scan.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		depth := len(line) - len(strings.TrimLeft(line, " "))
		if trimmed == "interfaces:" {
			inside, indent = true, depth
			continue
		}
		if !inside {
			continue
		}
		if depth <= indent {
			inside = false
			continue
		}
		if depth == indent+2 && strings.HasSuffix(trimmed, ":") {
			names[strings.TrimSuffix(trimmed, ":")] = struct{}{}
		}
	}
	if err := scan.Err(); err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatalf("no interfaces found in %s", path)
	}
	return names
}

// snake is mockery's file name for an interface: JobReviews → job_reviews,
// APIKeys → api_keys.
func snake(name string) string {
	var b strings.Builder
	runes := []rune(name)
	for i, r := range runes {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 {
			prevLower := runes[i-1] >= 'a' && runes[i-1] <= 'z'
			nextLower := i+1 < len(runes) && runes[i+1] >= 'a' && runes[i+1] <= 'z'
			prevUpper := runes[i-1] >= 'A' && runes[i-1] <= 'Z'
			if prevLower || (prevUpper && nextLower) {
				b.WriteByte('_')
			}
		}
		if upper {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
