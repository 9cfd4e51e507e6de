package dashboard

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestModulesResolve catches a misspelt import: the browser would refuse
// the whole module graph, and nothing else would say why.
func TestModulesResolve(t *testing.T) {
	t.Parallel()
	importRe := regexp.MustCompile(`(?m)^import .* from '([^']+)';$`)
	n := 0
	err := fs.WalkDir(Files, "assets", func(name string, _ fs.DirEntry, err error) error {
		if err != nil || path.Ext(name) != ".js" {
			return err
		}
		src, _ := fs.ReadFile(Files, name)
		for _, m := range importRe.FindAllStringSubmatch(string(src), -1) {
			n++
			target := path.Join(path.Dir(name), m[1])
			asset := strings.TrimPrefix(target, "assets/")
			if _, ok := Asset(asset); !ok && FromImporter[asset] == "" {
				t.Errorf("%s imports %s: no such asset", name, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("found only %d imports: the pattern no longer matches the modules", n)
	}
}

// TestNothingInline keeps the files within the Content-Security-Policy:
// no inline script, no inline handlers, no style attributes, no other
// origin, no innerHTML.
func TestNothingInline(t *testing.T) {
	t.Parallel()
	forbidden := map[string]*regexp.Regexp{
		"inline script":      regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`),
		"script without src": regexp.MustCompile(`<script(?:\s+(?:type|async|defer)(?:="[^"]*")?)*>`),
		"inline handler":     regexp.MustCompile(`\son[a-z]+\s*=`),
		"style attribute":    regexp.MustCompile(`\sstyle\s*=|setAttribute\('style'`),
		"other origin":       regexp.MustCompile(`https?://`),
		"innerHTML":          regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write`),
		"eval":               regexp.MustCompile(`\beval\(|new Function\(`),
	}
	err := fs.WalkDir(Files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(name) == ".svg" {
			return err
		}
		src, _ := fs.ReadFile(Files, name)
		for what, re := range forbidden {
			if loc := re.FindIndex(src); loc != nil {
				t.Errorf("%s has %s: %q", name, what, src[loc[0]:loc[1]])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAsset(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"app.js":       "text/javascript; charset=utf-8",
		"views/job.js": "text/javascript; charset=utf-8",
		"style.css":    "text/css; charset=utf-8",
		"favicon.svg":  "image/svg+xml",
	} {
		f, ok := Asset(name)
		if !ok || f.ContentType != want || len(f.Body) == 0 || len(f.ETag) < 10 {
			t.Errorf("Asset(%q) = %q, %d bytes, ETag %q, %v; want %q", name, f.ContentType, len(f.Body), f.ETag, ok, want)
		}
	}
	for _, name := range []string{"", "nope.js", "../index.html", "views"} {
		if _, ok := Asset(name); ok {
			t.Errorf("Asset(%q) found", name)
		}
	}
}

func TestShell(t *testing.T) {
	t.Parallel()
	same, err := Shell("")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(same), `<meta name="tabnorm-api" content="">`) ||
		!strings.Contains(string(same), `<script type="module" src="/assets/app.js"></script>`) {
		t.Errorf("shell:\n%s", same)
	}
	other, err := Shell(`https://api.example.com"><script>`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(other), `"><script>`) || !strings.Contains(string(other), `content="https://api.example.com&#34;&gt;&lt;script&gt;"`) {
		t.Errorf("the API origin is not escaped:\n%s", other)
	}
}

func TestIsPage(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"/": true, "/login": true, "/jobs": true, "/jobs/new": true, "/jobs/job_01jz8k2m3n": true,
		"/schemas": true, "/connect": true, "/admin/keys": true, "/admin/audit": true, "/webhooks": true, "/hooks": true, "/destinations": true, "/staff/organizations": true,
		"/import-sessions": true, "/import-sessions/imp_01m8f": true, "/import-sessions/job_1": false, "/import-sessions/": false,
		"/nope": false, "/jobs/": false, "/jobs/a/b": false, "/v1/jobs": false, "/auth/me": false,
		"/admin": false, "/webhooks/": false, "/hooks/": false, "/assets/app.js": false, "/login/": false, "/jobs/x.y": false,
	} {
		if got := IsPage(p); got != want {
			t.Errorf("IsPage(%q) = %v, want %v", p, got, want)
		}
	}
}
