package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/application/auth"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/session"
	"github.com/tabnorm/tabnorm/ports"
)

type meUserJSON struct {
	ID      string `json:"id"`
	Email   string `json:"email"`
	Name    string `json:"name"`
	Role    string `json:"role"`
	IsStaff bool   `json:"is_staff"`
}

type meOrgJSON struct {
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Products []string `json:"products"`
}

type impersonatingJSON struct {
	OrganizationID   string `json:"organization_id"`
	OrganizationName string `json:"organization_name"`
	StartedAt        string `json:"started_at"`
}

type meJSON struct {
	User          meUserJSON         `json:"user"`
	Organization  meOrgJSON          `json:"organization"`
	CSRFToken     string             `json:"csrf_token"`
	Impersonating *impersonatingJSON `json:"impersonating"`
}

func newMeJSON(me auth.Me, sessionToken string) meJSON {
	org := NewOrganizationJSON(me.Organization)
	out := meJSON{
		User:         meUserJSON{ID: me.User.ID, Email: me.User.Email, Name: me.User.Name, Role: string(me.Principal.Role), IsStaff: me.User.IsStaff},
		Organization: meOrgJSON{ID: org.ID, Name: org.Name, Products: org.Products},
		CSRFToken:    session.CSRFToken(sessionToken),
	}
	if me.Principal.Impersonating {
		started := ""
		if me.Principal.ImpersonatedAt != nil {
			started = formatTime(*me.Principal.ImpersonatedAt)
		}
		out.Impersonating = &impersonatingJSON{OrganizationID: org.ID, OrganizationName: org.Name, StartedAt: started}
	}
	return out
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// login checks credentials and sets a new session cookie (a new id at
// every login, so a planted cookie is worthless).
func (a *API) login(c *gin.Context) {
	var req loginRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	if req.Email == "" || req.Password == "" {
		fail(c, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "email and password are required.",
			Fields: []domain.FieldError{{Field: "email", Message: "required"}, {Field: "password", Message: "required"}}})
		return
	}
	me, token, err := a.deps.Auth.Login(c.Request.Context(), req.Email, req.Password, client(c))
	if err != nil {
		fail(c, err)
		return
	}
	a.setSessionCookie(c, token, int(session.MaxLifetime.Seconds()))
	c.JSON(http.StatusOK, newMeJSON(me, token))
}

func (a *API) setSessionCookie(c *gin.Context, value string, maxAge int) {
	http.SetCookie(c.Writer, &http.Cookie{
		Name: SessionCookie, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: a.cfg.CookieSecure, SameSite: http.SameSiteLaxMode,
	})
}

func (a *API) me(c *gin.Context) {
	me, err := a.deps.Auth.Me(c.Request.Context(), principal(c))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newMeJSON(me, c.GetString(sessionTokenKey)))
}

func (a *API) logout(c *gin.Context) {
	if err := a.deps.Auth.Logout(c.Request.Context(), principal(c), client(c)); err != nil {
		fail(c, err)
		return
	}
	a.setSessionCookie(c, "", -1)
	c.Status(http.StatusNoContent)
}

type impersonateRequest struct {
	OrganizationID string `json:"organization_id"`
}

func (a *API) impersonate(c *gin.Context) {
	var req impersonateRequest
	if err := decodeJSON(c, &req); err != nil {
		fail(c, err)
		return
	}
	// Staff only, checked before the organization is looked up, so a
	// non-staff caller learns nothing about organization ids.
	if err := principal(c).CanImpersonate(); err != nil {
		fail(c, err)
		return
	}
	if req.OrganizationID == "" {
		fail(c, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "organization_id is required.",
			Fields: []domain.FieldError{{Field: "organization_id", Message: "required"}}})
		return
	}
	me, err := a.deps.Auth.Impersonate(c.Request.Context(), principal(c), req.OrganizationID, client(c))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newMeJSON(me, c.GetString(sessionTokenKey)))
}

func (a *API) stopImpersonating(c *gin.Context) {
	me, err := a.deps.Auth.StopImpersonating(c.Request.Context(), principal(c), client(c))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, newMeJSON(me, c.GetString(sessionTokenKey)))
}

func (a *API) listOrganizations(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	orgs, next, err := a.deps.Auth.ListOrganizations(c.Request.Context(), principal(c), page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]OrganizationJSON, len(orgs))
	for i, o := range orgs {
		out[i] = NewOrganizationJSON(o)
	}
	c.JSON(http.StatusOK, newList(out, next))
}

// pageOf reads limit (1–200, default 50) and cursor.
func pageOf(c *gin.Context) (ports.Page, error) {
	p := ports.Page{Limit: 50, Cursor: c.Query("cursor")}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 200 {
			return p, &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: "limit must be a whole number from 1 to 200.",
				Fields: []domain.FieldError{{Field: "limit", Message: "must be 1 to 200"}}}
		}
		p.Limit = n
	}
	if len(p.Cursor) > 200 {
		return p, errInvalidCursor
	}
	return p, nil
}
