// Package webhook holds the rules of webhook endpoints and their
// deliveries: which events exist, how a delivery is signed (Standard
// Webhooks), when it is tried again, and when an endpoint is disabled.
// Every rule that depends on time takes it as an argument.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tabnorm/tabnorm/domain"
)

// Event types a webhook can carry.
const (
	JobStarted   = "job.started"
	JobSucceeded = "job.succeeded"
	JobFailed    = "job.failed"
	JobCanceled  = "job.canceled"
	// JobAwaitingReview: a job stopped for a person to review its mapping.
	JobAwaitingReview = "job.awaiting_review"
	// ImportSessionSubmitted: the end user of an import session finished.
	ImportSessionSubmitted = "import_session.submitted"
	// JobDelivered and JobDeliveryFailed: a job's rows reached one of its
	// destinations, or will not (every attempt failed).
	JobDelivered      = "job.delivered"
	JobDeliveryFailed = "job.delivery_failed"
	// Test is sent on request to one endpoint; nobody subscribes to it.
	Test = "webhook.test"
)

// Subscribable are the event types an endpoint may ask for.
var Subscribable = []string{JobStarted, JobSucceeded, JobFailed, JobCanceled, JobAwaitingReview, ImportSessionSubmitted, JobDelivered, JobDeliveryFailed}

// Schedule is the Standard Webhooks retry schedule: the delay before each
// attempt after the previous one failed. The first attempt is immediate;
// after the tenth fails, the delivery has failed.
var Schedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}

// FailingLimit is how long an endpoint may fail every attempt before it
// is disabled.
const FailingLimit = 5 * 24 * time.Hour

// The circuit breaker: after BreakerAfter failed attempts in a row, an
// endpoint gets no attempt until its RetryAt, BreakerBase after the last
// failure, doubling with each further failure up to BreakerMost; the
// deliveries due meanwhile wait for it without spending an attempt. Once
// it is due, one delivery probes the endpoint while the others wait.
const (
	BreakerAfter = 5
	BreakerBase  = 30 * time.Second
	BreakerMost  = time.Hour
)

// PauseAfter is how long an endpoint may fail every attempt before it is
// paused: its deliveries wait, without attempts, until the organization
// resumes it (they are not lost; the 5-day limit that disables an
// endpoint counts attempts, which a paused endpoint does not get).
const PauseAfter = 6 * time.Hour

// PausedRecheck is how often a paused endpoint's waiting delivery is
// looked at again, in case its queue entry was lost.
const PausedRecheck = time.Hour

// The states of an endpoint, as its API object shows them.
const (
	StateActive   = "active"   // its last attempt succeeded, or none was made
	StateFailing  = "failing"  // its attempts fail; the breaker may hold its deliveries
	StatePaused   = "paused"   // it failed for PauseAfter; its deliveries wait to be resumed
	StateDisabled = "disabled" // disabled by the organization or by the service
)

// RotationOverlap is how long a replaced secret keeps signing alongside
// the new one, so receivers can switch without losing a delivery.
const RotationOverlap = 24 * time.Hour

// Timeout bounds one attempt: connecting, sending and reading the answer.
const Timeout = 15 * time.Second

// ClaimFor is how long an attempt in progress keeps other workers off its
// delivery: twice the attempt's time limit.
const ClaimFor = 2 * Timeout

// MaxResponseBody is how much of a receiver's answer is kept.
const MaxResponseBody = 1024

// Endpoint is where an organization wants events sent.
type Endpoint struct {
	ID          string
	OrgID       string
	URL         string
	Description string
	Events      []string
	Enabled     bool
	// DisabledReason says why the service disabled the endpoint ("" when
	// enabled, or disabled by a person).
	DisabledReason string
	Secret         string
	// PreviousSecret signs alongside Secret until PreviousUntil.
	PreviousSecret string
	PreviousUntil  *time.Time
	// FailingSince is the first failed attempt since the last success.
	FailingSince *time.Time
	// Failures counts the failed attempts since the last success.
	Failures int
	// RetryAt is when the breaker lets an attempt through again (nil:
	// closed).
	RetryAt *time.Time
	// Paused holds the endpoint's deliveries until it is resumed, with
	// the reason.
	Paused       bool
	PausedReason string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// NewSecret makes a signing secret: whsec_ and 32 random bytes in base64,
// the form the Standard Webhooks libraries read.
func NewSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // never happens on supported platforms
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}

// Subscribed reports whether the endpoint wants events of this type.
func (e Endpoint) Subscribed(eventType string) bool {
	return e.Enabled && slices.Contains(e.Events, eventType)
}

// Secrets are the secrets that sign a message sent at now: the current
// one, and the previous one during the rotation overlap.
func (e Endpoint) Secrets(now time.Time) []string {
	out := []string{e.Secret}
	if e.PreviousSecret != "" && e.PreviousUntil != nil && now.Before(*e.PreviousUntil) {
		out = append(out, e.PreviousSecret)
	}
	return out
}

// Rotate replaces the secret; the old one keeps signing for a day.
func (e *Endpoint) Rotate(secret string, now time.Time) {
	until := now.Add(RotationOverlap)
	e.PreviousSecret, e.PreviousUntil = e.Secret, &until
	e.Secret = secret
	e.UpdatedAt = now
}

// SetEnabled enables or disables the endpoint by a person's choice;
// enabling forgets past failures.
func (e *Endpoint) SetEnabled(on bool, now time.Time) {
	e.Enabled = on
	e.DisabledReason = ""
	if on {
		e.forgetFailures()
	}
	e.UpdatedAt = now
}

// Resume lifts a pause and forgets past failures, so the next delivery
// is attempted at once.
func (e *Endpoint) Resume(now time.Time) {
	e.forgetFailures()
	e.UpdatedAt = now
}

// Pause holds the endpoint's deliveries until it is resumed.
func (e *Endpoint) Pause(reason string, now time.Time) {
	e.Paused, e.PausedReason = true, reason
	e.UpdatedAt = now
}

func (e *Endpoint) forgetFailures() {
	e.FailingSince, e.Failures, e.RetryAt = nil, 0, nil
	e.Paused, e.PausedReason = false, ""
}

// State sums the endpoint up for its organization.
func (e Endpoint) State() string {
	switch {
	case !e.Enabled:
		return StateDisabled
	case e.Paused:
		return StatePaused
	case e.FailingSince != nil:
		return StateFailing
	}
	return StateActive
}

// Lapse disables a paused endpoint that has failed for FailingLimit: its
// waiting deliveries then end. It reports whether it did.
func (e *Endpoint) Lapse(now time.Time) bool {
	if !e.Enabled || !e.Paused || e.FailingSince == nil || now.Sub(*e.FailingSince) < FailingLimit {
		return false
	}
	e.Enabled = false
	e.DisabledReason = "Every delivery failed from " + e.FailingSince.UTC().Format(time.RFC3339) + " and it was not resumed by " +
		now.UTC().Format(time.RFC3339) + " (5 days)."
	e.UpdatedAt = now
	return true
}

// Held says until when a delivery due now must wait for the endpoint: it
// is paused, or its breaker is open.
func (e Endpoint) Held(now time.Time) (until time.Time, held bool) {
	switch {
	case e.Paused:
		return now.Add(PausedRecheck), true
	case e.RetryAt != nil && now.Before(*e.RetryAt):
		return *e.RetryAt, true
	}
	return time.Time{}, false
}

// Probe is called when a delivery is about to be attempted: past the
// breaker's threshold, that attempt is the probe, and the others wait
// until it is recorded (or its claim lapses).
func (e *Endpoint) Probe(now time.Time, claim time.Duration) {
	if e.Failures >= BreakerAfter {
		until := now.Add(claim)
		e.RetryAt = &until
	}
}

// Succeeded records a 2xx answer.
func (e *Endpoint) Succeeded(now time.Time) {
	e.FailingSince, e.Failures, e.RetryAt = nil, 0, nil
	e.UpdatedAt = now
}

// Failed records a failed attempt (any answer but 2xx, or none). A 410
// Gone disables the endpoint at once; so does failing for FailingLimit.
// It returns whether this call disabled the endpoint.
func (e *Endpoint) Failed(statusCode int, now time.Time) bool {
	e.UpdatedAt = now
	if e.FailingSince == nil {
		e.FailingSince = &now
	}
	e.Failures++
	e.RetryAt = nil
	if e.Failures >= BreakerAfter {
		wait := BreakerBase << min(e.Failures-BreakerAfter, 16)
		until := now.Add(min(wait, BreakerMost))
		e.RetryAt = &until
	}
	if !e.Enabled {
		return false
	}
	if !e.Paused && now.Sub(*e.FailingSince) >= PauseAfter {
		e.Pause("Every delivery failed from "+e.FailingSince.UTC().Format(time.RFC3339)+" to "+now.UTC().Format(time.RFC3339)+
			" (6 hours); resume the endpoint once it answers again.", now)
	}
	switch {
	case statusCode == 410:
		e.Enabled = false
		e.DisabledReason = "The endpoint answered 410 Gone on " + now.UTC().Format(time.RFC3339) + "."
		return true
	case now.Sub(*e.FailingSince) >= FailingLimit:
		e.Enabled = false
		e.DisabledReason = "Every delivery failed from " + e.FailingSince.UTC().Format(time.RFC3339) + " to " + now.UTC().Format(time.RFC3339) + " (5 days)."
		return true
	}
	return false
}

// ParseEvents validates a list of event types to subscribe to.
func ParseEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, fieldError("events", "must name at least one event", "An endpoint needs at least one event type.")
	}
	out := make([]string, 0, len(events))
	for _, ev := range events {
		if !slices.Contains(Subscribable, ev) {
			return nil, fieldError("events", "unknown event type "+strconv.Quote(ev),
				fmt.Sprintf("Unknown event type %q; one of %s.", ev, strings.Join(Subscribable, ", ")))
		}
		if !slices.Contains(out, ev) {
			out = append(out, ev)
		}
	}
	return out, nil
}

// ParseDescription validates a description.
func ParseDescription(s string) (string, error) {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > 200 {
		return "", fieldError("description", "must be at most 200 characters", "The description is longer than 200 characters.")
	}
	return s, nil
}

// ParseURL validates an endpoint address. https is required unless
// private addresses are allowed (a test or a closed network). An address
// that is literally a refused IP is refused here; names are checked when
// connecting, against the address they resolve to.
func ParseURL(raw string, allowPrivate bool) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > 2000 {
		return "", fieldError("url", "must be an absolute URL of at most 2000 characters", "The webhook URL must be an absolute URL of at most 2000 characters.")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return "", fieldError("url", "must be an absolute URL", "The webhook URL must be an absolute URL.")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return "", fieldError("url", "must use https", "The webhook URL must use https.")
	}
	if u.User != nil {
		return "", fieldError("url", "must not carry a user name or password", "The webhook URL must not carry credentials.")
	}
	if u.Fragment != "" {
		return "", fieldError("url", "must not have a fragment", "The webhook URL must not have a fragment.")
	}
	if p := u.Port(); strings.HasSuffix(u.Host, ":") || p != "" && !validPort(p) {
		return "", fieldError("url", "must have a port from 1 to 65535", "The webhook URL's port must be from 1 to 65535.")
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil && !allowPrivate && Refused(ip) {
		return "", fieldError("url", "is a private, loopback or link-local address", "The webhook URL points to a private, loopback or link-local address.")
	}
	if !allowPrivate && strings.EqualFold(strings.TrimSuffix(u.Hostname(), "."), "localhost") {
		return "", fieldError("url", "is a private, loopback or link-local address", "The webhook URL points to a private, loopback or link-local address.")
	}
	return u.String(), nil
}

// validPort reports whether p is a port number from 1 to 65535, written
// plainly.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

// Refused reports whether an address may not receive webhooks unless
// private addresses are allowed: loopback, private (RFC 1918, unique
// local), link-local (which holds cloud metadata at 169.254.169.254),
// multicast, unspecified, and the shared and reserved ranges.
func Refused(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() || !ip.IsValid() {
		return true
	}
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 can reach IPv4 private space
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2002::/16"),       // 6to4 embeds any IPv4 address
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
	netip.MustParsePrefix("::/128"),          // unspecified
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated): [::127.0.0.1] embeds any IPv4 address
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
}

// RefusedHostPort reports whether a dialed "ip:port" is refused.
func RefusedHostPort(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return true // a dialer control always sees an address, never a name
	}
	return Refused(ip)
}

func fieldError(field, msg, message string) error {
	return &domain.Error{Kind: domain.ErrInvalid, Code: domain.CodeInvalidRequest, Message: message,
		Fields: []domain.FieldError{{Field: field, Message: msg}}}
}

// Sign returns the webhook-signature header for a message: one "v1,"
// signature per secret, separated by spaces (Standard Webhooks: the
// HMAC-SHA256 of "id.timestamp.body", keyed by the base64 part of the
// secret).
func Sign(secrets []string, msgID string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
		if err != nil {
			return "", fmt.Errorf("webhook secret: %w", err)
		}
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msgID + "." + strconv.FormatInt(at.Unix(), 10) + "."))
		h.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(h.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}
