package jobs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// workdirPrefix names the folder a job's run works in, in the machine's
// temporary folder: copies of its files from a remote store.
const workdirPrefix = "tabnorm-job-"

// SweepWorkdirs removes the working folders of job runs in dir (the
// machine's temporary folder) that have not changed for the grace
// period: a run removes its own when it ends, so these are what killed
// workers left, copies of whole source files among them. A run lasts at
// most the job timeout, which the grace period exceeds. Every node that
// runs jobs sweeps its own temporary folder.
func (o *Orphans) SweepWorkdirs(ctx context.Context, dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("read the temporary folder: %w", err)
	}
	before := o.clock.Now().Add(-o.grace)
	n := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if !e.IsDir() || !strings.HasPrefix(e.Name(), workdirPrefix) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(before) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return n, fmt.Errorf("remove a dead job's working folder: %w", err)
		}
		n++
	}
	if n > 0 {
		o.log.InfoContext(ctx, "removed working folders of dead job runs", "folders", n, "dir", dir)
	}
	return n, nil
}
