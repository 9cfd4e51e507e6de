package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
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
}

func toEditDomain(r editRow) normalize.Edit {
	return normalize.Edit{Row: r.RowNumber, SourceFile: r.SourceFile, Field: r.Field, Value: r.Value, At: r.UpdatedAt.UTC()}
}

// Edits implements ports.JobEdits.
type Edits struct{ db *DB }

var _ ports.JobEdits = (*Edits)(nil)

// NewEdits returns the job edits repository.
func NewEdits(db *DB) *Edits { return &Edits{db: db} }

// editBatch is how many edits one INSERT carries (SQLite allows 32,766
// parameters a statement; an edit takes 7).
const editBatch = 1000

// Put implements ports.JobEdits: the job's row is locked (on PostgreSQL)
// while its edits are written and counted, so two requests cannot both
// pass the limit.
func (s *Edits) Put(ctx context.Context, orgID, jobID string, edits []normalize.Edit, limit int) (int, error) {
	total := 0
	err := NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		tx := s.db.conn(ctx)
		q := tx.NewSelect().Table("jobs").Column("id").Where("id = ? AND org_id = ?", jobID, orgID)
		if s.db.Dialect == Postgres {
			q = q.For("UPDATE")
		}
		var found string
		if err := q.Scan(ctx, &found); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No job %s.", jobID)
			}
			return err
		}
		for start := 0; start < len(edits); start += editBatch {
			part := edits[start:min(len(edits), start+editBatch)]
			rows := make([]editRow, len(part))
			for i, e := range part {
				rows[i] = editRow{JobID: jobID, OrgID: orgID, SourceFile: e.SourceFile, RowNumber: e.Row, Field: e.Field, Value: e.Value, UpdatedAt: e.At.UTC()}
			}
			_, err := tx.NewInsert().Model(&rows).
				On("CONFLICT (job_id, source_file, row_number, field) DO UPDATE").
				Set("value = EXCLUDED.value").Set("updated_at = EXCLUDED.updated_at").Exec(ctx)
			if err != nil {
				return err
			}
		}
		n, err := tx.NewSelect().Table("job_edits").Where("job_id = ? AND org_id = ?", jobID, orgID).Count(ctx)
		if err != nil {
			return err
		}
		if n > int64(limit) {
			return domain.Errorf(domain.ErrConflict, domain.CodeEditLimitReached,
				"A job holds at most %d edits; these would make %d. Nothing was stored: fix a value everywhere with value_map instead.", limit, n)
		}
		total = int(n)
		return nil
	})
	return total, translate(err, "job")
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
