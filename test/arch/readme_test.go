package arch

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadme_folderTable keeps the folder table of README.md's
// Architecture section equal to the tree: every top-level folder has a
// row, every row's folder exists, every folder one level below a row is
// named in it (as `name` or `row/name`), and every folder name a row
// names exists.
func TestReadme_folderTable(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows := folderRows(t, string(readme))
	top := map[string]bool{}
	for folder := range rows {
		top[strings.SplitN(folder, "/", 2)[0]] = true
		if _, err := os.Stat(filepath.Join(root, folder)); err != nil {
			t.Errorf("README names %s/, which does not exist", folder)
		}
	}
	for _, dir := range subfolders(t, root) {
		if !top[dir] {
			t.Errorf("folder %s/ has no row in README.md's folder table", dir)
		}
	}
	for folder, text := range rows {
		named := backticked(text)
		for _, sub := range subfolders(t, filepath.Join(root, folder)) {
			if !named[sub] && !named[folder+"/"+sub] && !named[folder+"/"+sub+"/"] {
				t.Errorf("README's row for %s/ does not name %s", folder, sub)
			}
		}
		for name := range named {
			if !folderName.MatchString(name) {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, folder, name)); err != nil {
				t.Errorf("README's row for %s/ names %s, which is no folder there", folder, name)
			}
		}
	}
}

var (
	rowPattern  = regexp.MustCompile("^\\| `([a-z/]+)/` \\| (.*) \\|$")
	tickPattern = regexp.MustCompile("`([^`]+)`")
	folderName  = regexp.MustCompile("^[a-z][a-z0-9]*$")
)

// folderRows reads the folder table of the Architecture section: folder
// (no trailing slash) → the row's text.
func folderRows(t *testing.T, readme string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Architecture\n")
	if !ok {
		t.Fatal("README.md has no Architecture section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if m := rowPattern.FindStringSubmatch(line); m != nil {
			rows[m[1]] = m[2]
		}
	}
	if len(rows) < 5 {
		t.Fatalf("README.md's folder table has %d rows", len(rows))
	}
	return rows
}

func backticked(text string) map[string]bool {
	names := map[string]bool{}
	for _, m := range tickPattern.FindAllStringSubmatch(text, -1) {
		names[m[1]] = true
	}
	return names
}

// subfolders lists the folders directly in dir, leaving out hidden ones
// and testdata.
func subfolders(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "testdata" && e.Name() != "data" {
			names = append(names, e.Name())
		}
	}
	return names
}
