package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/job"
	"github.com/tabnorm/tabnorm/domain/normalize/mode"
	"github.com/tabnorm/tabnorm/ports"
)

type jobRow struct {
	bun.BaseModel `bun:"table:jobs"`
	ID            string     `bun:"id,pk"`
	OrgID         string     `bun:"org_id"`
	Name          string     `bun:"name"`
	Mode          string     `bun:"mode"`
	Status        string     `bun:"status"`
	SourceType    string     `bun:"source_type"`
	Files         string     `bun:"files"`
	SchemaID      string     `bun:"schema_id"`
	Schema        *string    `bun:"schema"`
	Options       string     `bun:"options"`
	RowsRead      int64      `bun:"rows_read"`
	RowsValid     int64      `bun:"rows_valid"`
	RowsRejected  int64      `bun:"rows_rejected"`
	BytesRead     int64      `bun:"bytes_read"`
	BytesTotal    int64      `bun:"bytes_total"`
	Mapping       *string    `bun:"mapping"`
	Result        *string    `bun:"result"`
	ErrorCode     string     `bun:"error_code"`
	ErrorMessage  string     `bun:"error_message"`
	Attempts      int        `bun:"attempts"`
	LeaseUntil    *time.Time `bun:"lease_until"`
	CreatedAt     time.Time  `bun:"created_at"`
	StartedAt     *time.Time `bun:"started_at"`
	FinishedAt    *time.Time `bun:"finished_at"`
	PurgedAt      *time.Time `bun:"purged_at"`
	Review        *string    `bun:"review"`
	ReviewSince   *time.Time `bun:"review_since"`
	ReviewedAt    *time.Time `bun:"reviewed_at"`
	RerunOf       string     `bun:"rerun_of"`
	Superseded    bool       `bun:"superseded,scanonly"` // supersededColumn
	ImportSession string     `bun:"import_session_id"`
	Metadata      *string    `bun:"metadata"`
}

type fileJSON struct {
	ID        string `json:"id"`
	Filename  string `json:"filename"`
	Format    string `json:"format"`
	SizeBytes int64  `json:"size_bytes"`
	SHA256    string `json:"sha256"`
}

func optString(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

func optBytes(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func toJobRow(j job.Job) (jobRow, error) {
	files := make([]fileJSON, len(j.Files))
	for i, f := range j.Files {
		files[i] = fileJSON(f)
	}
	filesJSON, _ := json.Marshal(files)
	r := jobRow{ID: j.ID, OrgID: j.OrgID, Name: j.Name, Mode: string(j.Mode), Status: string(j.Status), SourceType: string(j.SourceType),
		Files: string(filesJSON), SchemaID: j.SchemaID, Schema: optString(j.Schema), Options: string(j.Options),
		RowsRead: j.Progress.RowsRead, RowsValid: j.Progress.RowsValid, RowsRejected: j.Progress.RowsRejected,
		BytesRead: j.Progress.BytesRead, BytesTotal: j.Progress.BytesTotal,
		Mapping: optString(j.Mapping), Attempts: j.Attempts,
		CreatedAt: j.CreatedAt.UTC(), StartedAt: utcPtr(j.StartedAt), FinishedAt: utcPtr(j.FinishedAt),
		ReviewSince: utcPtr(j.ReviewSince), ReviewedAt: utcPtr(j.ReviewedAt), RerunOf: j.RerunOf,
		ImportSession: j.ImportSessionID, Metadata: optString(j.Metadata)}
	if j.Failure != nil {
		r.ErrorCode, r.ErrorMessage = string(j.Failure.Code), j.Failure.Message
	}
	var err error
	if r.Review, err = encodeReview(j.Review); err != nil {
		return r, err
	}
	r.Result, err = encodeResult(j.Result)
	return r, err
}

func toJobDomain(r jobRow) (job.Job, error) {
	var files []fileJSON
	if err := json.Unmarshal([]byte(r.Files), &files); err != nil {
		return job.Job{}, fmt.Errorf("job %s: read its files column: %w", r.ID, err)
	}
	j := job.Job{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Mode: mode.Mode(r.Mode), Status: job.Status(r.Status), SourceType: job.SourceType(r.SourceType),
		SchemaID: r.SchemaID, Schema: optBytes(r.Schema), Options: []byte(r.Options),
		Progress: job.Progress{RowsRead: r.RowsRead, RowsValid: r.RowsValid, RowsRejected: r.RowsRejected, BytesRead: r.BytesRead, BytesTotal: r.BytesTotal},
		Mapping:  optBytes(r.Mapping), Attempts: r.Attempts,
		CreatedAt: r.CreatedAt.UTC(), StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt),
		ReviewSince: utcPtr(r.ReviewSince), ReviewedAt: utcPtr(r.ReviewedAt), RerunOf: r.RerunOf,
		Superseded: r.Superseded, ImportSessionID: r.ImportSession, Metadata: optBytes(r.Metadata)}
	for _, f := range files {
		j.Files = append(j.Files, job.File(f))
	}
	rev, err := decodeReview(r.Review)
	if err != nil {
		return job.Job{}, fmt.Errorf("job %s: %w", r.ID, err)
	}
	j.Review = rev
	result, err := decodeResult(r.Result)
	if err != nil {
		return job.Job{}, fmt.Errorf("job %s: %w", r.ID, err)
	}
	j.Result = result
	if r.ErrorCode != "" {
		j.Failure = &job.Failure{Code: domain.Code(r.ErrorCode), Message: r.ErrorMessage}
	}
	return j, nil
}

// supersededColumn reads whether a later job reruns the job, or reruns
// the job it reruns (the same file rerun twice, or two reruns at once):
// the index on rerun_of finds both, and the reads of one job and of a
// list show it.
const supersededColumn = "(EXISTS (SELECT 1 FROM jobs AS rerun WHERE rerun.rerun_of = ?TableAlias.id) OR " +
	"(?TableAlias.rerun_of <> '' AND EXISTS (SELECT 1 FROM jobs AS later WHERE later.rerun_of = ?TableAlias.rerun_of AND " +
	"(later.created_at > ?TableAlias.created_at OR later.created_at = ?TableAlias.created_at AND later.id > ?TableAlias.id)))) AS superseded"

// Jobs implements ports.Jobs.
type Jobs struct {
	db     *DB
	getSQL string // the read of one job by id and organization, prepared
}

var _ ports.Jobs = (*Jobs)(nil)

// NewJobs returns the jobs repository.
func NewJobs(db *DB) *Jobs {
	return &Jobs{db: db, getSQL: db.Bun.NewSelect().Model((*jobRow)(nil)).ColumnExpr("?TableColumns").ColumnExpr(supersededColumn).
		Where("id = ? AND org_id = ?", bun.Safe("?"), bun.Safe("?")).String()}
}

// Create inserts a job.
func (s *Jobs) Create(ctx context.Context, j job.Job) error {
	row, err := toJobRow(j)
	if err != nil {
		return fmt.Errorf("job %s: %w", j.ID, err)
	}
	_, err = s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "job")
}

// Get returns an organization's job.
func (s *Jobs) Get(ctx context.Context, orgID, id string) (job.Job, error) {
	var row jobRow
	if err := s.db.scanOne(ctx, &row, s.getSQL, id, orgID); err != nil {
		return job.Job{}, translate(err, "job")
	}
	return toJobDomain(row)
}

// List returns an organization's jobs, newest first.
func (s *Jobs) List(ctx context.Context, orgID string, f ports.JobFilter, page ports.Page) ([]job.Job, string, error) {
	var rows []jobRow
	// A list shows no review. Arguments are placeholders of a prepared read.
	q := s.db.Bun.NewSelect().Model(&rows).ExcludeColumn("review").ColumnExpr(supersededColumn).Where("org_id = ?", placeholder)
	args := []any{orgID}
	if f.Status != "" {
		q = q.Where("status = ?", placeholder)
		args = append(args, string(f.Status))
	}
	if f.SourceType != "" {
		q = q.Where("source_type = ?", placeholder)
		args = append(args, string(f.SourceType))
	}
	if f.ImportSessionID != "" {
		q = q.Where("import_session_id = ?", placeholder)
		args = append(args, f.ImportSessionID)
	}
	next, err := s.db.listPagePrepared(ctx, q, args, &rows, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "job")
	}
	out := make([]job.Job, len(rows))
	for i, r := range rows {
		if out[i], err = toJobDomain(r); err != nil {
			return nil, "", err
		}
	}
	return out, next, nil
}

// Update is a read-modify-write of one job in a transaction. The row is
// locked on PostgreSQL (FOR UPDATE); SQLite's immediate transactions
// already serialise writers.
func (s *Jobs) Update(ctx context.Context, orgID, id string, fn func(*job.Job) error) (job.Job, error) {
	var out job.Job
	err := NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		var row jobRow
		q := s.db.conn(ctx).NewSelect().Model(&row).ColumnExpr("?TableColumns").ColumnExpr(supersededColumn).Where("id = ?", id)
		if orgID != "" {
			q = q.Where("org_id = ?", orgID)
		}
		if s.db.Dialect == Postgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return translate(err, "job")
		}
		j, err := toJobDomain(row)
		if err != nil {
			return err
		}
		if err := fn(&j); err != nil {
			return err
		}
		updated, err := toJobRow(j)
		if err != nil {
			return fmt.Errorf("job %s: %w", j.ID, err)
		}
		updated.LeaseUntil, updated.PurgedAt = row.LeaseUntil, row.PurgedAt
		if j.Status != job.Running {
			updated.LeaseUntil = nil
		}
		if _, err := s.db.conn(ctx).NewUpdate().Model(&updated).WherePK().Exec(ctx); err != nil {
			return translate(err, "job")
		}
		out = j
		return nil
	})
	return out, err
}

// Heartbeat implements ports.Jobs.
func (s *Jobs) Heartbeat(ctx context.Context, id string, p job.Progress, leaseUntil time.Time) (job.Status, error) {
	_, err := s.db.conn(ctx).NewUpdate().Model((*jobRow)(nil)).
		Set("rows_read = ?, rows_valid = ?, rows_rejected = ?, bytes_read = ?", p.RowsRead, p.RowsValid, p.RowsRejected, p.BytesRead).
		Set("lease_until = ?", leaseUntil.UTC()).
		Where("id = ? AND status = ?", id, string(job.Running)).Exec(ctx)
	if err != nil {
		return "", translate(err, "job")
	}
	var status string
	err = s.db.conn(ctx).NewSelect().Model((*jobRow)(nil)).Column("status").Where("id = ?", id).Scan(ctx, &status)
	return job.Status(status), translate(err, "job")
}

// Delete removes an organization's job and its events.
func (s *Jobs) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.db.conn(ctx).NewDelete().Model((*jobRow)(nil)).Where("id = ? AND org_id = ?", id, orgID).Exec(ctx)
	if err != nil {
		return translate(err, "job")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return translate(sql.ErrNoRows, "job")
	}
	return nil
}

// Expired implements ports.Jobs.
func (s *Jobs) Expired(ctx context.Context, now time.Time) ([][2]string, error) {
	var rows []jobRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Column("id", "org_id").
		Where("status = ? AND lease_until < ?", string(job.Running), now.UTC()).Scan(ctx)
	return pairs(rows), translate(err, "job")
}

// FinishedBefore implements ports.Jobs.
func (s *Jobs) FinishedBefore(ctx context.Context, t time.Time, limit int) ([][2]string, error) {
	var rows []jobRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Column("id", "org_id").
		Where("finished_at < ? AND purged_at IS NULL", t.UTC()).OrderExpr("finished_at").Limit(int64(limit)).Scan(ctx)
	return pairs(rows), translate(err, "job")
}

// MarkPurged records that a job's files were deleted.
func (s *Jobs) MarkPurged(ctx context.Context, id string, now time.Time) error {
	_, err := s.db.conn(ctx).NewUpdate().Model((*jobRow)(nil)).Set("purged_at = ?", now.UTC()).Where("id = ?", id).Exec(ctx)
	return translate(err, "job")
}

func pairs(rows []jobRow) [][2]string {
	out := make([][2]string, len(rows))
	for i, r := range rows {
		out[i] = [2]string{r.OrgID, r.ID}
	}
	return out
}

type eventRow struct {
	bun.BaseModel `bun:"table:job_events"`
	JobID         string    `bun:"job_id,pk"`
	Seq           int       `bun:"seq,pk"`
	Kind          string    `bun:"kind"`
	Data          string    `bun:"data"`
	CreatedAt     time.Time `bun:"created_at"`
}

// JobEvents implements ports.JobEvents.
type JobEvents struct{ db *DB }

var _ ports.JobEvents = (*JobEvents)(nil)

// NewJobEvents returns the job events repository.
func NewJobEvents(db *DB) *JobEvents { return &JobEvents{db: db} }

// Append stores the event under the next sequence number. On PostgreSQL
// the job's row is locked first, as Jobs.Update locks it, so appends of
// one job (a worker's progress, a cancel) take turns in one order: each
// reads the last number once the one before it committed, and none waits
// on a number the other holds (no MAX(seq)+1 race, no deadlock). SQLite's
// immediate transactions already serialise writers.
func (s *JobEvents) Append(ctx context.Context, jobID, kind string, data []byte, at time.Time) (ports.Event, error) {
	row := eventRow{JobID: jobID, Kind: kind, Data: string(data), CreatedAt: at.UTC()}
	err := NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		conn := s.db.conn(ctx)
		if s.db.Dialect == Postgres {
			var id string
			if err := conn.NewSelect().Table("jobs").Column("id").Where("id = ?", jobID).For("NO KEY UPDATE").Scan(ctx, &id); err != nil {
				return err // no such job: not found
			}
		}
		var last sql.NullInt64
		if err := conn.NewSelect().Model((*eventRow)(nil)).ColumnExpr("MAX(seq)").Where("job_id = ?", jobID).Scan(ctx, &last); err != nil {
			return err
		}
		row.Seq = int(last.Int64) + 1
		_, err := conn.NewInsert().Model(&row).Exec(ctx)
		return err
	})
	if err != nil {
		return ports.Event{}, translate(err, "job event")
	}
	return ports.Event{JobID: jobID, Seq: row.Seq, Kind: kind, Data: data, At: row.CreatedAt}, nil
}

// After implements ports.JobEvents.
func (s *JobEvents) After(ctx context.Context, jobID string, after int) ([]ports.Event, error) {
	var rows []eventRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("job_id = ? AND seq > ?", jobID, after).OrderExpr("seq").Scan(ctx)
	if err != nil {
		return nil, translate(err, "job event")
	}
	out := make([]ports.Event, len(rows))
	for i, r := range rows {
		out[i] = ports.Event{JobID: r.JobID, Seq: r.Seq, Kind: r.Kind, Data: []byte(r.Data), At: r.CreatedAt.UTC()}
	}
	return out, nil
}

// CountByStatus counts the jobs of each status, for the operator's metrics.
func (s *Jobs) CountByStatus(ctx context.Context) (map[job.Status]int64, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int64  `bun:"n"`
	}
	if err := s.db.Bun.NewSelect().Table("jobs").Column("status").ColumnExpr("count(*) AS n").Group("status").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("count jobs by status: %w", err)
	}
	out := make(map[job.Status]int64, len(rows))
	for _, r := range rows {
		out[job.Status(r.Status)] = r.N
	}
	return out, nil
}

var _ ports.JobSlots = (*Jobs)(nil)

// Counts implements ports.JobSlots. On PostgreSQL the organization's row
// is locked, so two nodes dispatching for one organization take turns;
// SQLite's immediate transactions already do.
func (s *Jobs) Counts(ctx context.Context, orgID string) (active, pending int, err error) {
	conn := s.db.conn(ctx)
	if s.db.Dialect == Postgres {
		var id string
		if err := conn.NewSelect().Table("organizations").Column("id").Where("id = ?", orgID).For("NO KEY UPDATE").Scan(ctx, &id); err != nil {
			return 0, 0, translate(err, "organization")
		}
	}
	var c struct {
		Active  int `bun:"active"`
		Pending int `bun:"pending"`
	}
	err = conn.NewSelect().Table("jobs").
		ColumnExpr("coalesce(sum(CASE WHEN status = 'running' OR dispatched THEN 1 ELSE 0 END), 0) AS active").
		ColumnExpr("count(*) AS pending").
		Where("org_id = ? AND status IN ('queued', 'running')", orgID).Scan(ctx, &c)
	if err != nil {
		return 0, 0, fmt.Errorf("count jobs of %s: %w", orgID, err)
	}
	return c.Active, c.Pending, nil
}

// Hold implements ports.JobSlots.
func (s *Jobs) Hold(ctx context.Context, jobID string) error {
	_, err := s.db.conn(ctx).NewUpdate().Table("jobs").Set("dispatched = ?", false).Where("id = ?", jobID).Exec(ctx)
	return translate(err, "job")
}

// NextWaiting implements ports.JobSlots.
func (s *Jobs) NextWaiting(ctx context.Context, orgID string) (string, error) {
	var id string
	err := s.db.conn(ctx).NewSelect().Table("jobs").Column("id").
		Where("org_id = ? AND status = 'queued' AND NOT dispatched", orgID).
		Order("created_at", "id").Limit(1).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("next waiting job of %s: %w", orgID, err)
	}
	_, err = s.db.conn(ctx).NewUpdate().Table("jobs").Set("dispatched = ?", true).Where("id = ?", id).Exec(ctx)
	return id, translate(err, "job")
}

// OrgsWaiting implements ports.JobSlots.
func (s *Jobs) OrgsWaiting(ctx context.Context, limit int) ([]string, error) {
	var ids []string
	err := s.db.conn(ctx).NewSelect().Table("jobs").ColumnExpr("DISTINCT org_id").
		Where("status = 'queued' AND NOT dispatched").Limit(int64(limit)).Scan(ctx, &ids)
	if err != nil {
		return nil, fmt.Errorf("organizations with waiting jobs: %w", err)
	}
	return ids, nil
}
