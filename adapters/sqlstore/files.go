package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/connect"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/ports"
)

type fileRow struct {
	bun.BaseModel `bun:"table:files"`
	ID            string    `bun:"id,pk"`
	OrgID         string    `bun:"org_id"`
	Filename      string    `bun:"filename"`
	Format        string    `bun:"format"`
	SizeBytes     int64     `bun:"size_bytes"`
	SHA256        string    `bun:"sha256"`
	CreatedAt     time.Time `bun:"created_at"`
}

type jobFileRow struct {
	bun.BaseModel `bun:"table:job_files"`
	JobID         string `bun:"job_id,pk"`
	Position      int    `bun:"position,pk"`
	FileID        string `bun:"file_id"`
}

func toFileRow(f connect.File) fileRow {
	return fileRow{ID: f.ID, OrgID: f.OrgID, Filename: f.Filename, Format: f.Format, SizeBytes: f.SizeBytes, SHA256: f.SHA256, CreatedAt: f.CreatedAt.UTC()}
}

func toFileDomain(r fileRow) connect.File {
	return connect.File{ID: r.ID, OrgID: r.OrgID, Filename: r.Filename, Format: r.Format, SizeBytes: r.SizeBytes, SHA256: r.SHA256, CreatedAt: r.CreatedAt.UTC()}
}

// Files implements ports.Files.
type Files struct{ db *DB }

var _ ports.Files = (*Files)(nil)

// NewFiles returns the connect files repository.
func NewFiles(db *DB) *Files { return &Files{db: db} }

// Create stores a file record.
func (s *Files) Create(ctx context.Context, f connect.File) error {
	row := toFileRow(f)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "file")
}

// Get returns an organization's file.
func (s *Files) Get(ctx context.Context, orgID, id string) (connect.File, error) {
	var row fileRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID).Scan(ctx)
	return toFileDomain(row), translate(err, "file")
}

// List returns an organization's files, newest first.
func (s *Files) List(ctx context.Context, orgID string, page ports.Page) ([]connect.File, string, error) {
	var rows []fileRow
	next, err := listPage(ctx, s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID), page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "file")
	}
	return toFiles(rows), next, nil
}

func toFiles(rows []fileRow) []connect.File {
	out := make([]connect.File, len(rows))
	for i, r := range rows {
		out[i] = toFileDomain(r)
	}
	return out
}

// Hold reads the files with a shared row lock on PostgreSQL, which a
// concurrent ActiveJobs (FOR UPDATE) waits for: a file cannot vanish
// between a job's check and its commit. SQLite's immediate transactions
// serialise the two already.
func (s *Files) Hold(ctx context.Context, orgID string, ids []string) ([]connect.File, error) {
	var rows []fileRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ? AND id IN (?)", orgID, bun.List(ids))
	if s.db.Dialect == Postgres {
		q = q.For("SHARE")
	}
	if err := q.Scan(ctx); err != nil {
		return nil, translate(err, "file")
	}
	return toFiles(rows), nil
}

// Link records a job's files in order.
func (s *Files) Link(ctx context.Context, jobID string, fileIDs []string) error {
	rows := make([]jobFileRow, len(fileIDs))
	for i, id := range fileIDs {
		rows[i] = jobFileRow{JobID: jobID, Position: i, FileID: id}
	}
	_, err := s.db.conn(ctx).NewInsert().Model(&rows).Exec(ctx)
	return translate(err, "file")
}

// ActiveJobs locks the file row (FOR UPDATE on PostgreSQL) and lists the
// unfinished jobs reading it.
func (s *Files) ActiveJobs(ctx context.Context, orgID, id string) ([]string, error) {
	q := s.db.conn(ctx).NewSelect().Model((*fileRow)(nil)).Column("id").Where("id = ? AND org_id = ?", id, orgID)
	if s.db.Dialect == Postgres {
		q = q.For("UPDATE")
	}
	var found string
	if err := q.Scan(ctx, &found); err != nil {
		return nil, translate(err, "file")
	}
	var jobIDs []string
	err := s.db.conn(ctx).NewSelect().TableExpr("job_files AS jf").Join("JOIN jobs AS j ON j.id = jf.job_id").
		ColumnExpr("DISTINCT j.id").Where("jf.file_id = ?", id).Where("j.status IN (?)", bun.List([]string{string(job.Queued), string(job.Running)})).
		OrderExpr("j.id").Scan(ctx, &jobIDs)
	return jobIDs, translate(err, "file")
}

// Delete removes an organization's file record; finished jobs that read
// it keep their own copy of its description.
func (s *Files) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.db.conn(ctx).NewDelete().Model((*fileRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	if err != nil {
		return translate(err, "file")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return translate(sql.ErrNoRows, "file")
	}
	return nil
}
