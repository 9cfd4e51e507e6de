package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain/entitlement"
	"github.com/tabnorm/tabnorm/domain/importsession"
	"github.com/tabnorm/tabnorm/ports"
)

type importSessionRow struct {
	bun.BaseModel  `bun:"table:import_sessions"`
	ID             string     `bun:"id,pk"`
	OrgID          string     `bun:"org_id"`
	Hash           []byte     `bun:"hash"`
	SchemaID       string     `bun:"schema_id"`
	Schema         *string    `bun:"schema"`
	Options        string     `bun:"options"`
	AllowedOrigins string     `bun:"allowed_origins"`
	Metadata       string     `bun:"metadata"`
	MaxJobs        int        `bun:"max_jobs"`
	Locale         string     `bun:"locale"`
	Theme          string     `bun:"theme"`
	Texts          string     `bun:"texts"`
	SubmitPolicy   string     `bun:"submit_policy"`
	CreatedBy      string     `bun:"created_by"`
	CreatedAt      time.Time  `bun:"created_at"`
	ExpiresAt      time.Time  `bun:"expires_at"`
	RevokedAt      *time.Time `bun:"revoked_at"`
	SubmittedAt    *time.Time `bun:"submitted_at"`
	OpenedAt       *time.Time `bun:"opened_at"`
}

// paletteJSON and themeJSON are the theme column's document.
type paletteJSON struct {
	Background  string `json:"background,omitempty"`
	Surface     string `json:"surface,omitempty"`
	Text        string `json:"text,omitempty"`
	Muted       string `json:"muted,omitempty"`
	Border      string `json:"border,omitempty"`
	Primary     string `json:"primary,omitempty"`
	PrimaryText string `json:"primary_text,omitempty"`
	Success     string `json:"success,omitempty"`
	Warning     string `json:"warning,omitempty"`
	Error       string `json:"error,omitempty"`
}

type themeJSON struct {
	paletteJSON
	Dark        *paletteJSON `json:"dark,omitempty"`
	Radius      string       `json:"radius,omitempty"`
	Font        string       `json:"font,omitempty"`
	FontSize    string       `json:"font_size,omitempty"`
	Density     string       `json:"density,omitempty"`
	ButtonStyle string       `json:"button_style,omitempty"`
	Mode        string       `json:"mode,omitempty"`
	LogoURL     string       `json:"logo_url,omitempty"`
	Title       string       `json:"title,omitempty"`
}

func toThemeJSON(t importsession.Theme) themeJSON {
	out := themeJSON{paletteJSON: paletteJSON(t.Palette), Radius: t.Radius, Font: t.Font, FontSize: t.FontSize, Density: t.Density,
		ButtonStyle: t.ButtonStyle, Mode: t.Mode, LogoURL: t.LogoURL, Title: t.Title}
	if t.Dark != (importsession.Palette{}) {
		d := paletteJSON(t.Dark)
		out.Dark = &d
	}
	return out
}

func toThemeDomain(t themeJSON) importsession.Theme {
	out := importsession.Theme{Palette: importsession.Palette(t.paletteJSON), Radius: t.Radius, Font: t.Font, FontSize: t.FontSize,
		Density: t.Density, ButtonStyle: t.ButtonStyle, Mode: t.Mode, LogoURL: t.LogoURL, Title: t.Title}
	if t.Dark != nil {
		out.Dark = importsession.Palette(*t.Dark)
	}
	return out
}

func toImportSessionRow(s importsession.Session) importSessionRow {
	origins, _ := json.Marshal(s.AllowedOrigins)
	theme, _ := json.Marshal(toThemeJSON(s.Theme))
	texts := []byte("{}")
	if len(s.Texts) > 0 {
		texts, _ = json.Marshal(s.Texts)
	}
	policy, _ := json.Marshal(submitPolicyJSON(s.SubmitPolicy))
	return importSessionRow{SubmitPolicy: string(policy), ID: s.ID, OrgID: s.OrgID, Hash: s.Hash[:], SchemaID: s.SchemaID, Schema: optString(s.Schema),
		Options: string(s.Options), AllowedOrigins: string(origins), Metadata: string(s.Metadata), MaxJobs: s.MaxJobs,
		Locale: s.Locale, Theme: string(theme), Texts: string(texts), CreatedBy: s.CreatedBy, CreatedAt: s.CreatedAt.UTC(), ExpiresAt: s.ExpiresAt.UTC(),
		RevokedAt: utcPtr(s.RevokedAt), SubmittedAt: utcPtr(s.SubmittedAt), OpenedAt: utcPtr(s.OpenedAt)}
}

func toImportSessionDomain(r importSessionRow) (importsession.Session, error) {
	s := importsession.Session{ID: r.ID, OrgID: r.OrgID, SchemaID: r.SchemaID, Schema: optBytes(r.Schema), Options: []byte(r.Options),
		Metadata: []byte(r.Metadata), MaxJobs: r.MaxJobs, Locale: r.Locale, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(),
		ExpiresAt: r.ExpiresAt.UTC(), RevokedAt: utcPtr(r.RevokedAt), SubmittedAt: utcPtr(r.SubmittedAt), OpenedAt: utcPtr(r.OpenedAt)}
	copy(s.Hash[:], r.Hash)
	if err := json.Unmarshal([]byte(r.AllowedOrigins), &s.AllowedOrigins); err != nil {
		return importsession.Session{}, fmt.Errorf("import session %s: read its allowed_origins column: %w", r.ID, err)
	}
	var theme themeJSON
	if err := json.Unmarshal([]byte(r.Theme), &theme); err != nil {
		return importsession.Session{}, fmt.Errorf("import session %s: read its theme column: %w", r.ID, err)
	}
	s.Theme = toThemeDomain(theme)
	if r.Texts != "" && r.Texts != "{}" {
		if err := json.Unmarshal([]byte(r.Texts), &s.Texts); err != nil {
			return importsession.Session{}, fmt.Errorf("import session %s: read its texts column: %w", r.ID, err)
		}
	}
	if r.SubmitPolicy != "" && r.SubmitPolicy != "{}" {
		var p submitPolicyJSON
		if err := json.Unmarshal([]byte(r.SubmitPolicy), &p); err != nil {
			return importsession.Session{}, fmt.Errorf("import session %s: read its submit_policy column: %w", r.ID, err)
		}
		s.SubmitPolicy = importsession.SubmitPolicy(p)
	}
	return s, nil
}

// submitPolicyJSON is the submit_policy column's document.
type submitPolicyJSON struct {
	InvalidRows  string `json:"invalid_rows,omitempty"`
	MinValidRows int64  `json:"min_valid_rows,omitempty"`
}

// ImportSessions implements ports.ImportSessions.
type ImportSessions struct{ db *DB }

var _ ports.ImportSessions = (*ImportSessions)(nil)

// NewImportSessions returns the import sessions repository.
func NewImportSessions(db *DB) *ImportSessions { return &ImportSessions{db: db} }

const importSessionWhat = "import session"

// Create stores a session (its secret's hash, never the secret).
func (s *ImportSessions) Create(ctx context.Context, ses importsession.Session) error {
	row := toImportSessionRow(ses)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, importSessionWhat)
}

// Get returns an organization's session.
func (s *ImportSessions) Get(ctx context.Context, orgID, id string) (importsession.Session, error) {
	var row importSessionRow
	if err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID).Scan(ctx); err != nil {
		return importsession.Session{}, translate(err, importSessionWhat)
	}
	return toImportSessionDomain(row)
}

// List returns an organization's sessions, newest first.
func (s *ImportSessions) List(ctx context.Context, orgID string, page ports.Page) ([]importsession.Session, string, error) {
	var rows []importSessionRow
	next, err := listPage(ctx, s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID), page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, importSessionWhat)
	}
	out := make([]importsession.Session, len(rows))
	for i, r := range rows {
		if out[i], err = toImportSessionDomain(r); err != nil {
			return nil, "", err
		}
	}
	return out, next, nil
}

// Update is a read-modify-write of one session in a transaction, the row
// locked on PostgreSQL.
func (s *ImportSessions) Update(ctx context.Context, orgID, id string, fn func(*importsession.Session) error) (importsession.Session, error) {
	var out importsession.Session
	err := NewTransactor(s.db).InTx(ctx, func(ctx context.Context) error {
		var row importSessionRow
		q := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID)
		if s.db.Dialect == Postgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); err != nil {
			return translate(err, importSessionWhat)
		}
		ses, err := toImportSessionDomain(row)
		if err != nil {
			return err
		}
		if err := fn(&ses); err != nil {
			return err
		}
		updated := toImportSessionRow(ses)
		if _, err := s.db.conn(ctx).NewUpdate().Model(&updated).WherePK().Exec(ctx); err != nil {
			return translate(err, importSessionWhat)
		}
		out = ses
		return nil
	})
	return out, err
}

// ByHash implements ports.ImportSessions in one joined query; the
// organization's current grants come back as extra rows.
func (s *ImportSessions) ByHash(ctx context.Context, h importsession.Hash) (importsession.Session, []entitlement.Entitlement, error) {
	rows, err := s.db.conn(ctx).QueryContext(ctx, `
		SELECT s.id, s.org_id, s.schema_id, s.schema, s.options, s.allowed_origins, s.metadata, s.max_jobs, s.locale, s.theme, s.texts, s.submit_policy,
		       s.created_by, s.created_at, s.expires_at, s.revoked_at, s.submitted_at, s.opened_at, `+grantColumns+`
		FROM import_sessions s LEFT JOIN entitlements e ON e.org_id = s.org_id AND e.revoked_at IS NULL
		WHERE s.hash = ?`, h[:])
	if err != nil {
		return importsession.Session{}, nil, translate(err, importSessionWhat)
	}
	defer func() { _ = rows.Close() }()
	var r importSessionRow
	var grants []entitlement.Entitlement
	found := false
	for rows.Next() {
		var g grantCols
		if err := rows.Scan(append([]any{&r.ID, &r.OrgID, &r.SchemaID, &r.Schema, &r.Options, &r.AllowedOrigins, &r.Metadata, &r.MaxJobs, &r.Locale, &r.Theme, &r.Texts, &r.SubmitPolicy,
			&r.CreatedBy, &r.CreatedAt, &r.ExpiresAt, &r.RevokedAt, &r.SubmittedAt, &r.OpenedAt}, g.dest()...)...); err != nil {
			return importsession.Session{}, nil, translate(err, importSessionWhat)
		}
		found = true
		grants = g.appendTo(grants)
	}
	if err := rows.Err(); err != nil {
		return importsession.Session{}, nil, translate(err, importSessionWhat)
	}
	if !found {
		return importsession.Session{}, nil, translate(sql.ErrNoRows, importSessionWhat)
	}
	r.Hash = h[:]
	ses, err := toImportSessionDomain(r)
	return ses, grants, err
}

// JobCount counts the session's jobs.
func (s *ImportSessions) JobCount(ctx context.Context, orgID, id string) (int, error) {
	n, err := s.db.conn(ctx).NewSelect().Model((*jobRow)(nil)).Where("org_id = ? AND import_session_id = ?", orgID, id).Count(ctx)
	return int(n), translate(err, "job")
}

// Hold implements ports.ImportSessions: the row is locked on PostgreSQL
// (FOR NO KEY UPDATE, which a submit's FOR UPDATE waits for, and the
// foreign key of a job's insert does not); SQLite's immediate
// transactions already serialize writers. The count runs after the lock
// is held, so it sees every job committed before.
func (s *ImportSessions) Hold(ctx context.Context, orgID, id string) (importsession.Session, int, error) {
	if _, ok := TxFrom(ctx); !ok {
		return importsession.Session{}, 0, fmt.Errorf("hold import session %s: no transaction", id)
	}
	var row importSessionRow
	q := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ? AND org_id = ?", id, orgID)
	if s.db.Dialect == Postgres {
		q = q.For("NO KEY UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		return importsession.Session{}, 0, translate(err, importSessionWhat)
	}
	ses, err := toImportSessionDomain(row)
	if err != nil {
		return importsession.Session{}, 0, err
	}
	n, err := s.JobCount(ctx, orgID, id)
	return ses, n, err
}

// Framing returns a session by id, whatever its organization.
func (s *ImportSessions) Framing(ctx context.Context, id string) (importsession.Session, error) {
	var row importSessionRow
	if err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return importsession.Session{}, translate(err, importSessionWhat)
	}
	return toImportSessionDomain(row)
}

// likeEscaper escapes LIKE's wildcards and its escape character.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// OriginInUse looks for the origin, quoted as the JSON list stores it, in
// the open sessions' origins, then checks the candidates exactly.
func (s *ImportSessions) OriginInUse(ctx context.Context, origin string, now time.Time) (bool, error) {
	quoted, err := json.Marshal(origin)
	if err != nil {
		return false, err
	}
	var rows []importSessionRow
	err = s.db.conn(ctx).NewSelect().Model(&rows).Column("id", "allowed_origins").
		Where("revoked_at IS NULL AND submitted_at IS NULL AND expires_at > ?", now.UTC()).
		Where(`allowed_origins LIKE ? ESCAPE '\'`, "%"+likeEscaper.Replace(string(quoted))+"%").Limit(20).Scan(ctx)
	if err != nil {
		return false, translate(err, importSessionWhat)
	}
	for _, r := range rows {
		var origins []string
		if json.Unmarshal([]byte(r.AllowedOrigins), &origins) == nil && slices.Contains(origins, origin) {
			return true, nil
		}
	}
	return false, nil
}

// funnelRow is a session's facts for its funnel, its jobs counted by
// subqueries on their session's index.
type funnelRow struct {
	CreatedAt   time.Time  `bun:"created_at"`
	OpenedAt    *time.Time `bun:"opened_at"`
	SubmittedAt *time.Time `bun:"submitted_at"`
	RevokedAt   *time.Time `bun:"revoked_at"`
	ExpiresAt   time.Time  `bun:"expires_at"`
	Jobs        int        `bun:"jobs"`
	Confirmed   int        `bun:"confirmed"`
	Fixed       int        `bun:"fixed"`
}

// maxFunnelSessions bounds what one funnel reads.
const maxFunnelSessions = 200_000

// Funnel implements ports.ImportSessions.
func (s *ImportSessions) Funnel(ctx context.Context, orgID string, since time.Time) ([]importsession.Facts, error) {
	var rows []funnelRow
	q := s.db.conn(ctx).NewSelect().TableExpr("import_sessions AS s").
		ColumnExpr("s.created_at, s.opened_at, s.submitted_at, s.revoked_at, s.expires_at").
		ColumnExpr("(SELECT COUNT(*) FROM jobs j WHERE j.import_session_id = s.id) AS jobs").
		ColumnExpr("(SELECT COUNT(*) FROM jobs j WHERE j.import_session_id = s.id AND j.reviewed_at IS NOT NULL) AS confirmed").
		ColumnExpr("(SELECT COUNT(*) FROM jobs j WHERE j.import_session_id = s.id AND j.rerun_of <> '') AS fixed").
		Where("s.created_at >= ?", since.UTC()).OrderExpr("s.created_at").Limit(maxFunnelSessions)
	if orgID != "" {
		q = q.Where("s.org_id = ?", orgID)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, translate(err, importSessionWhat)
	}
	out := make([]importsession.Facts, len(rows))
	for i, r := range rows {
		out[i] = importsession.Facts{CreatedAt: r.CreatedAt.UTC(), OpenedAt: utcPtr(r.OpenedAt), SubmittedAt: utcPtr(r.SubmittedAt),
			RevokedAt: utcPtr(r.RevokedAt), ExpiresAt: r.ExpiresAt.UTC(), Jobs: r.Jobs, Confirmed: r.Confirmed > 0, Fixed: r.Fixed > 0}
	}
	return out, nil
}
