package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tabnorm/tabnorm/application/lists"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/domain/schema"
)

// openLocalLists reads each --list ID=FILE into a sorted index in a
// temporary folder, as the service stores lists, so the offline command
// checks inList constraints in the same bounded memory.
func openLocalLists(specs []string) (map[string]normalize.ListLookup, func(), error) {
	if len(specs) == 0 {
		return nil, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "tabnorm-lists-*")
	if err != nil {
		return nil, nil, fmt.Errorf("--list: %w", err)
	}
	out := map[string]normalize.ListLookup{}
	budget := int64(lists.JobMemoryBudget)
	var opened []*lists.Index
	closeAll := func() {
		for _, ix := range opened {
			_ = ix.Close()
		}
		_ = os.RemoveAll(dir)
	}
	for _, spec := range specs {
		ix, err := openLocalList(spec, dir, out, &budget)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		opened = append(opened, ix)
	}
	return out, closeAll, nil
}

func openLocalList(spec, dir string, out map[string]normalize.ListLookup, budget *int64) (*lists.Index, error) {
	listID, path, ok := strings.Cut(spec, "=")
	if !ok || !strings.HasPrefix(listID, schema.ListPrefix) || path == "" {
		return nil, fmt.Errorf("--list %q: want ID=FILE, the id starting with %s", spec, schema.ListPrefix)
	}
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, fmt.Errorf("--list: %w", err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), lists.MaxValueBytes+2)
	ix, _, err := lists.BuildIndex(func() (string, error) {
		if sc.Scan() {
			return sc.Text(), nil
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", io.EOF
	}, dir, budget)
	if err != nil {
		return nil, fmt.Errorf("--list %s: %w", listID, err)
	}
	out[listID] = ix
	return ix, nil
}
