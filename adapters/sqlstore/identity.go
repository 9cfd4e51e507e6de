package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/id"
	"github.com/tabnorm/tabnorm/domain/identity"
	"github.com/tabnorm/tabnorm/ports"
)

type orgRow struct {
	bun.BaseModel `bun:"table:organizations"`
	ID            string    `bun:"id,pk"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
}

type userRow struct {
	bun.BaseModel `bun:"table:users"`
	ID            string     `bun:"id,pk"`
	OrgID         string     `bun:"org_id"`
	Email         string     `bun:"email"`
	Name          string     `bun:"name"`
	Role          string     `bun:"role"`
	IsStaff       bool       `bun:"is_staff"`
	PasswordHash  string     `bun:"password_hash"`
	CreatedAt     time.Time  `bun:"created_at"`
	DisabledAt    *time.Time `bun:"disabled_at"`
}

func toOrgDomain(r orgRow) identity.Organization {
	return identity.Organization{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

func toUserRow(u identity.User) userRow {
	return userRow{ID: u.ID, OrgID: u.OrgID, Email: u.Email, Name: u.Name, Role: string(u.Role),
		IsStaff: u.IsStaff, PasswordHash: u.PasswordHash, CreatedAt: u.CreatedAt.UTC(), DisabledAt: utcPtr(u.DisabledAt)}
}

func toUserDomain(r userRow) identity.User {
	return identity.User{ID: r.ID, OrgID: r.OrgID, Email: r.Email, Name: r.Name, Role: identity.Role(r.Role),
		IsStaff: r.IsStaff, PasswordHash: r.PasswordHash, CreatedAt: r.CreatedAt.UTC(), DisabledAt: utcPtr(r.DisabledAt)}
}

// Organizations implements ports.Organizations.
type Organizations struct{ db *DB }

var _ ports.Organizations = (*Organizations)(nil)

// NewOrganizations returns the organizations repository.
func NewOrganizations(db *DB) *Organizations { return &Organizations{db: db} }

// Create inserts the organization; its products are granted through
// ports.Entitlements.
func (s *Organizations) Create(ctx context.Context, org identity.Organization) error {
	row := orgRow{ID: org.ID, Name: org.Name, CreatedAt: org.CreatedAt.UTC()}
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	return translate(err, "organization")
}

// Get returns one organization, without its products (see ports.Entitlements).
func (s *Organizations) Get(ctx context.Context, id string) (identity.Organization, error) {
	var row orgRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	return toOrgDomain(row), translate(err, "organization")
}

// List returns organizations newest first, without their products.
func (s *Organizations) List(ctx context.Context, page ports.Page) ([]identity.Organization, string, error) {
	var rows []orgRow
	next, err := listPage(ctx, s.db.conn(ctx).NewSelect().Model(&rows), page,
		func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "organization")
	}
	orgs := make([]identity.Organization, len(rows))
	for i, r := range rows {
		orgs[i] = toOrgDomain(r)
	}
	return orgs, next, nil
}

// Count returns how many organizations exist.
func (s *Organizations) Count(ctx context.Context) (int, error) {
	n, err := s.db.conn(ctx).NewSelect().Model((*orgRow)(nil)).Count(ctx)
	return int(n), translate(err, "organization")
}

// Users implements ports.Users.
type Users struct{ db *DB }

var _ ports.Users = (*Users)(nil)

// NewUsers returns the users repository.
func NewUsers(db *DB) *Users { return &Users{db: db} }

// Create inserts a user; a taken email is a conflict.
func (s *Users) Create(ctx context.Context, u identity.User) error {
	row := toUserRow(u)
	_, err := s.db.conn(ctx).NewInsert().Model(&row).Exec(ctx)
	if isUniqueViolation(err) {
		return &domain.Error{Kind: domain.ErrConflict, Code: domain.CodeConflict, Message: "A user with this email already exists."}
	}
	return translate(err, "user")
}

// Get returns a user by id.
func (s *Users) Get(ctx context.Context, id string) (identity.User, error) {
	var row userRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	return toUserDomain(row), translate(err, "user")
}

// GetByEmail returns a user by normalized email.
func (s *Users) GetByEmail(ctx context.Context, email string) (identity.User, error) {
	var row userRow
	err := s.db.conn(ctx).NewSelect().Model(&row).Where("email = ?", email).Scan(ctx)
	return toUserDomain(row), translate(err, "user")
}

// List returns an organization's users, newest first.
func (s *Users) List(ctx context.Context, orgID string, page ports.Page) ([]identity.User, string, error) {
	var rows []userRow
	q := s.db.conn(ctx).NewSelect().Model(&rows).Where("org_id = ?", orgID)
	next, err := listPage(ctx, q, page, func() int { return len(rows) }, func(i int) string { return rows[i].ID }, func(n int) { rows = rows[:n] })
	if err != nil {
		return nil, "", translate(err, "user")
	}
	out := make([]identity.User, len(rows))
	for i, r := range rows {
		out[i] = toUserDomain(r)
	}
	return out, next, nil
}

// SetPassword replaces a user's password hash.
func (s *Users) SetPassword(ctx context.Context, id, passwordHash string) error {
	res, err := s.db.conn(ctx).NewUpdate().Model((*userRow)(nil)).Set("password_hash = ?", passwordHash).
		Where("id = ?", id).Exec(ctx)
	return affectedOne(res, err, "user")
}

// Disable sets disabled_at if unset and returns the user.
func (s *Users) Disable(ctx context.Context, id string, at time.Time) (identity.User, error) {
	res, err := s.db.conn(ctx).NewUpdate().Model((*userRow)(nil)).Set("disabled_at = COALESCE(disabled_at, ?)", at.UTC()).
		Where("id = ?", id).Exec(ctx)
	if err := affectedOne(res, err, "user"); err != nil {
		return identity.User{}, err
	}
	return s.Get(ctx, id)
}

func clampLimit(n int) int {
	switch {
	case n <= 0:
		return 50
	case n > 200:
		return 200
	}
	return n
}

// errInvalidCursor answers a cursor this list did not hand out.
var errInvalidCursor = domain.Errorf(domain.ErrInvalid, domain.CodeInvalidCursor, "The cursor is not one this list handed out; start again without it.")

// Cursors are opaque to clients: the list's table and the last id of the
// page, base64url. A cursor that is not such a pair, or that belongs to
// another list, is refused, where it used to read as page 1 or nothing.
func encodeCursor(table, lastID string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(table + " " + lastID))
}

func decodeCursor(table, c string) (string, error) {
	if c == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) > 128 {
		return "", errInvalidCursor
	}
	t, last, ok := strings.Cut(string(b), " ")
	prefix, _, _ := strings.Cut(last, "_")
	if !ok || t != table || !id.HasPrefix(last, prefix) {
		return "", errInvalidCursor
	}
	return last, nil
}

// affectedOne is the error of an update of one row by id: its own error,
// or not found when it changed no row.
func affectedOne(res sql.Result, err error, what string) error {
	if err != nil {
		return translate(err, what)
	}
	if n, err := res.RowsAffected(); err != nil {
		return translate(err, what)
	} else if n == 0 {
		return domain.NotFound(what)
	}
	return nil
}
