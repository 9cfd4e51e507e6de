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
	"github.com/tabnorm/tabnorm/domain/normalize"
	"github.com/tabnorm/tabnorm/ports"
)

type historyRow struct {
	bun.BaseModel `bun:"table:job_history"`
	JobID         string    `bun:"job_id,pk"`
	OrgID         string    `bun:"org_id"`
	Step          int64     `bun:"step,pk"`
	Kind          string    `bun:"kind"`
	ID            string    `bun:"id"`
	Cells         int64     `bun:"cells"`
	Summary       string    `bun:"summary"`
	Undone        bool      `bun:"undone"`
	Payload       string    `bun:"payload"`
	CreatedAt     time.Time `bun:"created_at"`
}

// stepPayload is what a step holds beyond its columns, as JSON.
type stepPayload struct {
	Replacement *replacementJSON `json:"replacement,omitempty"`
	Status      string           `json:"status,omitempty"`
	Before      []editJSON       `json:"before,omitempty"`
	After       []editJSON       `json:"after,omitempty"`
}

type replacementJSON struct {
	Field   string             `json:"field"`
	Find    string             `json:"find"`
	Replace string             `json:"replace"`
	Match   string             `json:"match"`
	Rows    map[string][]int64 `json:"rows,omitempty"`
}

type editJSON struct {
	Row        int64     `json:"row"`
	SourceFile string    `json:"source_file,omitempty"`
	Field      string    `json:"field"`
	Value      *string   `json:"value"`
	At         time.Time `json:"at"`
	Step       int64     `json:"step,omitempty"`
}

func toEditsJSON(in []normalize.Edit) []editJSON {
	out := make([]editJSON, len(in))
	for i, e := range in {
		out[i] = editJSON{Row: e.Row, SourceFile: e.SourceFile, Field: e.Field, Value: e.Value, At: e.At.UTC(), Step: e.Step}
	}
	return out
}

func toEditsDomain(in []editJSON) []normalize.Edit {
	out := make([]normalize.Edit, len(in))
	for i, e := range in {
		out[i] = normalize.Edit{Row: e.Row, SourceFile: e.SourceFile, Field: e.Field, Value: e.Value, At: e.At.UTC(), Step: e.Step}
	}
	return out
}

func toHistoryRow(orgID, jobID string, s normalize.HistoryStep) (historyRow, error) {
	p := stepPayload{Status: s.Status, Before: toEditsJSON(s.Before), After: toEditsJSON(s.After)}
	if r := s.Replacement; r != nil {
		p.Replacement = &replacementJSON{Field: r.Field, Find: r.Find, Replace: r.Replace, Match: r.Match, Rows: r.Rows}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return historyRow{}, err
	}
	return historyRow{JobID: jobID, OrgID: orgID, Step: s.Step, Kind: s.Kind, ID: s.ID, Cells: s.Cells, Summary: s.Summary, Undone: s.Undone,
		Payload: string(b), CreatedAt: s.At.UTC()}, nil
}

func toStepDomain(r historyRow) (normalize.HistoryStep, error) {
	var p stepPayload
	if err := json.Unmarshal([]byte(r.Payload), &p); err != nil {
		return normalize.HistoryStep{}, fmt.Errorf("step %d of job %s: %w", r.Step, r.JobID, err)
	}
	s := normalize.HistoryStep{Step: r.Step, Kind: r.Kind, ID: r.ID, At: r.CreatedAt.UTC(), Cells: r.Cells, Summary: r.Summary, Undone: r.Undone,
		Status: p.Status, Before: toEditsDomain(p.Before), After: toEditsDomain(p.After)}
	if x := p.Replacement; x != nil {
		s.Replacement = &normalize.Replacement{Field: x.Field, Find: x.Find, Replace: x.Replace, Match: x.Match, Step: r.Step, Rows: x.Rows}
	}
	return s, nil
}

// History implements ports.JobHistory.
type History struct{ db *DB }

var _ ports.JobHistory = (*History)(nil)

// NewHistory returns the job history repository.
func NewHistory(db *DB) *History { return &History{db: db} }

// Steps implements ports.JobHistory.
func (s *History) Steps(ctx context.Context, orgID, jobID string) (normalize.History, error) {
	var rows []historyRow
	if err := s.db.conn(ctx).NewSelect().Model(&rows).Where("job_id = ? AND org_id = ?", jobID, orgID).OrderExpr("step").Scan(ctx); err != nil {
		return nil, translate(err, "job")
	}
	out := make(normalize.History, len(rows))
	for i, r := range rows {
		st, err := toStepDomain(r)
		if err != nil {
			return nil, err
		}
		out[i] = st
	}
	return out, nil
}

// Add implements ports.JobHistory.
func (s *History) Add(ctx context.Context, orgID, jobID string, step normalize.HistoryStep) error {
	row, err := toHistoryRow(orgID, jobID, step)
	if err != nil {
		return err
	}
	err = NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		tx := s.db.conn(ctx)
		var id string
		if err := tx.NewSelect().Table("jobs").Column("id").Where("id = ? AND org_id = ?", jobID, orgID).Scan(ctx, &id); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "No job %s.", jobID)
			}
			return err
		}
		if _, err := tx.NewDelete().TableExpr("job_history").Where("job_id = ? AND org_id = ? AND undone = ?", jobID, orgID, true).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
	return translate(err, "job")
}

// SetUndone implements ports.JobHistory.
func (s *History) SetUndone(ctx context.Context, orgID, jobID string, step int64, undone bool) error {
	res, err := s.db.conn(ctx).NewUpdate().TableExpr("job_history").Set("undone = ?", undone).
		Where("job_id = ? AND org_id = ? AND step = ?", jobID, orgID, step).Exec(ctx)
	if err != nil {
		return translate(err, "job")
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return domain.Errorf(domain.ErrNotFound, domain.CodeNotFound, "Job %s has no step %d.", jobID, step)
	}
	return nil
}
