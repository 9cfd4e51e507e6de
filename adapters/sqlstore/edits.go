package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

type editRow struct {
	bun.BaseModel `bun:"table:job_edits"`
	JobID         string    `bun:"job_id,pk"`
	OrgID         string    `bun:"org_id"`
	SourceFile    string    `bun:"source_file,pk"`
	RowNumber     int64     `bun:"row_number,pk"`
	Field         string    `bun:"field,pk"`
	Value         *string   `bun:"value"`
	UpdatedAt     time.Time `bun:"updated_at"`
	Step          int64     `bun:"step"`
}

func toEditDomain(r editRow) normalize.Edit {
	return normalize.Edit{Row: r.RowNumber, SourceFile: r.SourceFile, Field: r.Field, Value: r.Value, At: r.UpdatedAt.UTC(), Step: r.Step}
}

// Edits implements ports.JobEdits.
type Edits struct{ db *DB }

var _ ports.JobEdits = (*Edits)(nil)

// NewEdits returns the job edits repository.
func NewEdits(db *DB) *Edits { return &Edits{db: db} }

// editBatch is how many edits one INSERT carries (SQLite allows 32,766
// parameters a statement; an edit takes 7).
const editBatch = 1000

// Put implements ports.JobEdits: the job's row (and its import session's)
// is locked on PostgreSQL while its edits are written, counted and
// measured, so two requests cannot both pass a limit; SQLite writes one
// transaction at a time.
func (s *Edits) Put(ctx context.Context, orgID, jobID string, edits []normalize.Edit, limits ports.EditLimits) (int, error) {
	total := 0
	err := NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		session, err := s.lockJob(ctx, orgID, jobID)
		if err != nil {
			return err
		}
		if err := s.upsert(ctx, orgID, jobID, edits); err != nil {
			return err
		}
		n, size, err := s.measure(ctx, s.db.conn(ctx).NewSelect().TableExpr("job_edits").Where("job_id = ? AND org_id = ?", jobID, orgID))
		if err != nil {
			return err
		}
		switch {
		case n > int64(limits.Count):
			return domain.Errorf(domain.ErrConflict, domain.CodeEditLimitReached,
				"A job holds at most %d edits; these would make %d. Nothing was stored: fix a value everywhere with value_map instead.", limits.Count, n)
		case limits.Bytes > 0 && size > limits.Bytes:
			return domain.Errorf(domain.ErrConflict, domain.CodeEditLimitReached,
				"A job's edits hold at most %d bytes; these would make %d. Nothing was stored: fix a value everywhere with value_map instead.", limits.Bytes, size)
		}
		if session != "" && limits.SessionBytes > 0 {
			q := s.db.conn(ctx).NewSelect().TableExpr("job_edits").
				Where("job_id IN (?)", s.db.conn(ctx).NewSelect().Table("jobs").Column("id").Where("import_session_id = ? AND org_id = ?", session, orgID))
			if _, size, err = s.measure(ctx, q); err != nil {
				return err
			}
			if size > limits.SessionBytes {
				return domain.Errorf(domain.ErrConflict, domain.CodeEditLimitReached,
					"The jobs of an import session hold at most %d bytes of edits; these would make %d. Nothing was stored.", limits.SessionBytes, size)
			}
		}
		total = int(n)
		return nil
	})
	return total, translate(err, "job")
}

// lockJob finds the organization's job and returns its import session,
// locking both rows on PostgreSQL.
func (s *Edits) lockJob(ctx context.Context, orgID, jobID string) (session string, err error) {
	tx := s.db.conn(ctx)
	q := tx.NewSelect().Table("jobs").Column("import_session_id").Where("id = ? AND org_id = ?", jobID, orgID)
	if s.db.Dialect == Postgres {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx, &session); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return "", domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No job %s.", jobID)
		}
		return "", err
	}
	if session != "" && s.db.Dialect == Postgres {
		var ids []string
		if err := tx.NewSelect().Table("import_sessions").Column("id").Where("id = ?", session).For("UPDATE").Scan(ctx, &ids); err != nil {
			return "", err
		}
	}
	return session, nil
}

func (s *Edits) upsert(ctx context.Context, orgID, jobID string, edits []normalize.Edit) error {
	tx := s.db.conn(ctx)
	for start := 0; start < len(edits); start += editBatch {
		part := edits[start:min(len(edits), start+editBatch)]
		rows := make([]editRow, len(part))
		for i, e := range part {
			rows[i] = editRow{JobID: jobID, OrgID: orgID, SourceFile: e.SourceFile, RowNumber: e.Row, Field: e.Field, Value: e.Value, UpdatedAt: e.At.UTC(), Step: e.Step}
		}
		_, err := tx.NewInsert().Model(&rows).
			On("CONFLICT (job_id, source_file, row_number, field) DO UPDATE").
			Set("value = EXCLUDED.value").Set("updated_at = EXCLUDED.updated_at").Set("step = EXCLUDED.step").Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

// measure counts the edits q selects and the bytes of their values,
// fields and file names (bytes, not characters, on both databases).
func (s *Edits) measure(ctx context.Context, q *bun.SelectQuery) (n, size int64, err error) {
	bytes := "COALESCE(SUM(LENGTH(CAST(field AS BLOB)) + LENGTH(CAST(source_file AS BLOB)) + COALESCE(LENGTH(CAST(value AS BLOB)), 0)), 0)"
	if s.db.Dialect == Postgres {
		bytes = "COALESCE(SUM(OCTET_LENGTH(field) + OCTET_LENGTH(source_file) + COALESCE(OCTET_LENGTH(value), 0)), 0)"
	}
	err = q.ColumnExpr("COUNT(*)").ColumnExpr(bytes).Scan(ctx, &n, &size)
	return n, size, err
}

// Edit cursors are the job's id and how many edits came before the page
// (pages of one job's edits, at most 100,000 of them, with short cursors
// whatever the fields are named).
func encodeEditCursor(jobID string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("job_edits " + jobID + " " + strconv.Itoa(offset)))
}

func decodeEditCursor(jobID, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, errInvalidCursor
	}
	parts := strings.Split(string(b), " ")
	if len(parts) != 3 || parts[0] != "job_edits" || parts[1] != jobID {
		return 0, errInvalidCursor
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 {
		return 0, errInvalidCursor
	}
	return n, nil
}

// List implements ports.JobEdits.
func (s *Edits) List(ctx context.Context, orgID, jobID string, page ports.Page) ([]normalize.Edit, string, error) {
	offset, err := decodeEditCursor(jobID, page.Cursor)
	if err != nil {
		return nil, "", err
	}
	limit := clampLimit(page.Limit)
	var rows []editRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("job_id = ? AND org_id = ?", jobID, orgID)
	if err := q.OrderExpr("source_file, row_number, field").Offset(int64(offset)).Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, "", translate(err, "job")
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = encodeEditCursor(jobID, offset+limit)
	}
	out := make([]normalize.Edit, len(rows))
	for i, r := range rows {
		out[i] = toEditDomain(r)
	}
	return out, next, nil
}

// rowsBatch is how many rows one statement of OfRows names.
const rowsBatch = 500

// OfRows implements ports.JobEdits, a statement per file and up to
// rowsBatch of its rows, on the table's primary key.
func (s *Edits) OfRows(ctx context.Context, orgID, jobID string, rows map[string][]int64) ([]normalize.Edit, error) {
	files := make([]string, 0, len(rows))
	for f := range rows {
		files = append(files, f)
	}
	slices.Sort(files)
	var out []normalize.Edit
	for _, f := range files {
		nums := slices.Clone(rows[f])
		slices.Sort(nums)
		nums = slices.Compact(nums)
		for start := 0; start < len(nums); start += rowsBatch {
			var part []editRow
			err := s.db.conn(ctx).NewSelect().Model(&part).
				Where("job_id = ? AND org_id = ? AND source_file = ? AND row_number IN (?)", jobID, orgID, f, bun.List(nums[start:min(len(nums), start+rowsBatch)])).
				OrderExpr("row_number, field").Scan(ctx)
			if err != nil {
				return nil, translate(err, "job")
			}
			for _, r := range part {
				out = append(out, toEditDomain(r))
			}
		}
	}
	return out, nil
}

// All implements ports.JobEdits.
func (s *Edits) All(ctx context.Context, orgID, jobID string) ([]normalize.Edit, error) {
	var rows []editRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).Where("job_id = ? AND org_id = ?", jobID, orgID).
		OrderExpr("source_file, row_number, field").Scan(ctx)
	if err != nil {
		return nil, translate(err, "job")
	}
	out := make([]normalize.Edit, len(rows))
	for i, r := range rows {
		out[i] = toEditDomain(r)
	}
	return out, nil
}

// Version implements ports.JobEdits: the count of the job's edits and
// the time of the last stored, in one indexed aggregate.
func (s *Edits) Version(ctx context.Context, orgID, jobID string) (string, error) {
	var n int64
	var last sql.NullString
	err := s.db.conn(ctx).NewSelect().TableExpr("job_edits").Where("job_id = ? AND org_id = ?", jobID, orgID).
		ColumnExpr("COUNT(*)").ColumnExpr("CAST(MAX(updated_at) AS TEXT)").Scan(ctx, &n, &last)
	if err != nil {
		return "", translate(err, "job")
	}
	var steps []int64
	err = s.db.conn(ctx).NewSelect().TableExpr("job_history").Column("step").
		Where("job_id = ? AND org_id = ? AND kind = ? AND undone = ?", jobID, orgID, normalize.StepReplacement, false).OrderExpr("step").Scan(ctx, &steps)
	if err != nil {
		return "", translate(err, "job")
	}
	v := strconv.FormatInt(n, 10) + "@" + last.String
	for _, st := range steps {
		v += "/r" + strconv.FormatInt(st, 10)
	}
	return v, nil
}

// Delete implements ports.JobEdits.
func (s *Edits) Delete(ctx context.Context, orgID, jobID string, cells []normalize.EditKey) error {
	tx := s.db.conn(ctx)
	for _, c := range cells {
		_, err := tx.NewDelete().TableExpr("job_edits").
			Where("job_id = ? AND org_id = ? AND source_file = ? AND row_number = ? AND field = ?", jobID, orgID, c.SourceFile, c.Row, c.Field).Exec(ctx)
		if err != nil {
			return translate(err, "job")
		}
	}
	return nil
}

// Replacements implements ports.JobEdits: the job's history's
// replacement steps not undone.
func (s *Edits) Replacements(ctx context.Context, orgID, jobID string) ([]normalize.Replacement, error) {
	var rows []historyRow
	err := s.db.conn(ctx).NewSelect().Model(&rows).
		Where("job_id = ? AND org_id = ? AND kind = ? AND undone = ?", jobID, orgID, normalize.StepReplacement, false).OrderExpr("step").Scan(ctx)
	if err != nil {
		return nil, translate(err, "job")
	}
	out := make([]normalize.Replacement, 0, len(rows))
	for _, r := range rows {
		st, err := toStepDomain(r)
		if err != nil {
			return nil, err
		}
		if st.Replacement != nil {
			out = append(out, *st.Replacement)
		}
	}
	return out, nil
}
