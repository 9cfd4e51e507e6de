package httpapi

import (
	"bufio"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// AuditEventJSON is an audit log entry as the API shows it.
type AuditEventJSON struct {
	ID           string         `json:"id"`
	Object       string         `json:"object"`
	Action       string         `json:"action"`
	Actor        AuditActorJSON `json:"actor"`
	Organization string         `json:"organization_id"`
	TargetID     *string        `json:"target_id"`
	IP           *string        `json:"ip"`
	UserAgent    *string        `json:"user_agent"`
	RequestID    *string        `json:"request_id"`
	At           string         `json:"at"`
}

// AuditActorJSON is who acted: a user (a staff member when impersonating),
// an API key (and the user who made it), an import session's end user, or
// the operator's command line (type "operator").
type AuditActorJSON struct {
	Type            string  `json:"type"` // user, api_key, import_session, operator
	UserID          *string `json:"user_id"`
	KeyID           *string `json:"key_id"`
	ImportSessionID *string `json:"import_session_id"`
	Impersonating   bool    `json:"impersonating"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// NewAuditEventJSON converts an entry for output.
func NewAuditEventJSON(e identity.AuditEntry) AuditEventJSON {
	actor := AuditActorJSON{UserID: optional(e.ActorUserID), KeyID: optional(e.ActorKeyID), ImportSessionID: optional(e.ActorImportSessionID),
		Impersonating: e.Impersonating}
	switch {
	case e.ActorKeyID != "":
		actor.Type = "api_key"
	case e.ActorImportSessionID != "":
		actor.Type = "import_session"
	case e.ActorUserID != "":
		actor.Type = "user"
	default:
		actor.Type = "operator"
	}
	return AuditEventJSON{ID: e.ID, Object: "audit_event", Action: e.Action, Actor: actor, Organization: e.OrgID,
		TargetID: optional(e.TargetID), IP: optional(e.IP), UserAgent: optional(e.UserAgent), RequestID: optional(e.RequestID), At: formatTime(e.At)}
}

// auditFilter reads the filters of the query: actor, action, target,
// since and until (RFC 3339).
func auditFilter(c *gin.Context) (identity.AuditFilter, error) {
	f := identity.AuditFilter{Actor: c.Query("actor"), Action: c.Query("action"), Target: c.Query("target")}
	for _, v := range []string{f.Actor, f.Action, f.Target} {
		if len(v) > 200 {
			return f, domain.Invalid("actor, action and target are at most 200 characters.")
		}
	}
	for name, dst := range map[string]**time.Time{"since": &f.Since, "until": &f.Until} {
		s := c.Query(name)
		if s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			e := domain.Errorf(domain.ErrInvalid, domain.CodeInvalidRequest, "%s must be an RFC 3339 time, e.g. 2026-11-30T00:00:00Z.", name)
			e.Fields = []domain.FieldError{{Field: name, Message: "must be an RFC 3339 time"}}
			return f, e
		}
		*dst = &t
	}
	return f, nil
}

func (a *API) listAuditEvents(c *gin.Context) {
	page, err := pageOf(c)
	if err != nil {
		fail(c, err)
		return
	}
	f, err := auditFilter(c)
	if err != nil {
		fail(c, err)
		return
	}
	entries, next, err := a.deps.Audit.List(c.Request.Context(), principal(c), f, page)
	if err != nil {
		fail(c, err)
		return
	}
	out := make([]AuditEventJSON, len(entries))
	for i, e := range entries {
		out[i] = NewAuditEventJSON(e)
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, newList(out, next))
}

// exportAuditEvents streams every matching entry as JSON lines, newest
// first. Errors found before the first line are problems; a failure after
// it cuts the stream (the client sees a short body without a final
// newline).
func (a *API) exportAuditEvents(c *gin.Context) {
	f, err := auditFilter(c)
	if err != nil {
		fail(c, err)
		return
	}
	p := principal(c)
	if err := p.CanReadAudit(); err != nil {
		fail(c, err)
		return
	}
	w := bufio.NewWriterSize(c.Writer, 32<<10)
	started := false
	// The log changes as it is read (this export is recorded in it), so
	// the answer is streamed without a length: a HEAD cannot promise one.
	begin := func() {
		c.Header("Content-Type", "application/x-ndjson")
		c.Header("Cache-Control", "no-store")
		c.Header("Content-Disposition", `attachment; filename="audit-events.jsonl"`)
		c.Status(http.StatusOK)
		c.Writer.WriteHeaderNow()
		c.Writer.Flush()
	}
	err = a.deps.Audit.Export(c.Request.Context(), p, f, client(c), c.Request.Method == http.MethodHead, func(e identity.AuditEntry) error {
		if !started {
			started = true
			begin()
		}
		line, err := json.Marshal(NewAuditEventJSON(e))
		if err != nil {
			return err
		}
		_, _ = w.Write(line)
		return w.WriteByte('\n')
	})
	if err != nil && !started {
		fail(c, err)
		return
	}
	if err != nil {
		a.log.WarnContext(c.Request.Context(), "audit export cut off", "request_id", requestID(c), "error", err)
		return
	}
	if !started { // nothing matched: an empty document
		begin()
	}
	_ = w.Flush()
}
