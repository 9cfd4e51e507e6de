package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tabnorm/tabnorm/ports"
)

// Orphans reclaims storage that nothing owns any more, once it is older
// than a grace period: what writes that never finished left behind (a
// local store's temporary files and empty folders, an S3 store's
// unfinished uploads), and blobs of jobs and library files that have no
// record — an upload whose job was never created because the process
// died, the files of a deleted job whose removal failed.
//
// A job's or a library file's bytes are stored before its record, and a
// running job writes its results for as long as it runs, so the grace
// period is what keeps a write in flight from being taken for an orphan:
// it must be longer than any upload or job takes. Blobs whose record
// exists are never touched here, however old; retention deletes them.
type Orphans struct {
	grace  time.Duration
	owners ports.BlobOwners
	blobs  ports.BlobStore
	clock  ports.Clock
	log    *slog.Logger
}

var _ ports.Purger = (*Orphans)(nil)

// DefaultOrphanGrace is how old an unowned blob or leftover must be
// before it is reclaimed, unless the operator says otherwise.
const DefaultOrphanGrace = 24 * time.Hour

// NewOrphans returns the sweep of orphaned storage (grace <= 0: the
// default grace).
func NewOrphans(grace time.Duration, owners ports.BlobOwners, blobs ports.BlobStore, clock ports.Clock, log *slog.Logger) *Orphans {
	if grace <= 0 {
		grace = DefaultOrphanGrace
	}
	return &Orphans{grace: grace, owners: owners, blobs: blobs, clock: clock, log: log}
}

// orphanBatch is how many candidate blobs are checked against the
// database at once.
const orphanBatch = 500

// owner is the record a blob key belongs to.
type owner struct {
	key, id string
	job     bool // else a library file
}

// ownerOf reads the record a key belongs to from the store's layout:
// org/<org>/jobs/<job>/<name> and org/<org>/files/<file>. Keys of any
// other shape are not the sweep's to judge.
func ownerOf(key string) (owner, bool) {
	parts := strings.Split(key, "/")
	switch {
	case len(parts) == 5 && parts[0] == "org" && parts[2] == "jobs" && parts[3] != "" && parts[4] != "":
		return owner{key: key, id: parts[3], job: true}, true
	case len(parts) == 4 && parts[0] == "org" && parts[2] == "files" && parts[3] != "":
		return owner{key: key, id: parts[3]}, true
	}
	return owner{}, false
}

// Purge deletes the orphaned blobs and leftovers older than the grace
// period and returns how many it removed.
func (o *Orphans) Purge(ctx context.Context) (int, error) {
	before := o.clock.Now().Add(-o.grace)
	n := 0
	var batch []owner
	flush := func() error {
		deleted, err := o.deleteUnowned(ctx, batch)
		n += deleted
		batch = batch[:0]
		return err
	}
	err := o.blobs.List(ctx, "org/", func(b ports.BlobInfo) error {
		if !b.ModTime.Before(before) {
			return nil
		}
		if ow, ok := ownerOf(b.Key); ok {
			batch = append(batch, ow)
		}
		if len(batch) < orphanBatch {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return n, fmt.Errorf("delete orphaned blobs: %w", err)
	}
	swept, err := o.blobs.Sweep(ctx, "org/", before)
	n += swept
	if err != nil {
		return n, fmt.Errorf("sweep storage leftovers: %w", err)
	}
	if n > 0 {
		o.log.InfoContext(ctx, "reclaimed orphaned storage", "removed", n, "grace", o.grace.String())
	}
	return n, nil
}

// deleteUnowned deletes those of the blobs whose job or file does not
// exist.
func (o *Orphans) deleteUnowned(ctx context.Context, batch []owner) (int, error) {
	if len(batch) == 0 {
		return 0, nil
	}
	var jobIDs, fileIDs []string // each once: a job has several blobs
	seen := make(map[owner]bool, len(batch))
	for _, b := range batch {
		id := owner{id: b.id, job: b.job}
		if seen[id] {
			continue
		}
		seen[id] = true
		if b.job {
			jobIDs = append(jobIDs, b.id)
		} else {
			fileIDs = append(fileIDs, b.id)
		}
	}
	jobs, err := o.owners.Jobs(ctx, jobIDs)
	if err != nil {
		return 0, err
	}
	files, err := o.owners.Files(ctx, fileIDs)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range batch {
		if b.job && jobs[b.id] || !b.job && files[b.id] {
			continue
		}
		if err := o.blobs.Delete(ctx, b.key); err != nil {
			return n, err
		}
		o.log.DebugContext(ctx, "deleted orphaned blob", "key", b.key)
		n++
	}
	return n, nil
}

// Purgers runs each of its purgers in turn, all of them even when one
// fails, and returns the sum of what they removed and their errors.
type Purgers []ports.Purger

var _ ports.Purger = Purgers(nil)

// Purge implements ports.Purger.
func (ps Purgers) Purge(ctx context.Context) (int, error) {
	total := 0
	var errs []error
	for _, p := range ps {
		n, err := p.Purge(ctx)
		total += n
		errs = append(errs, err)
	}
	return total, errors.Join(errs...)
}
