package httpapi

import (
	"encoding/hex"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
)

// RateLimit is a token bucket per API key or session, per node.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

type limiters struct {
	cfg    RateLimit
	policy string // the RateLimit-Policy field (policyField)
	mu     sync.Mutex
	by     map[string]*bucket
	swept  time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiters(cfg RateLimit) *limiters {
	if cfg.PerSecond <= 0 {
		cfg.PerSecond = 20
	}
	if cfg.Burst <= 0 {
		cfg.Burst = 100
	}
	return &limiters{cfg: cfg, policy: policyField(cfg), by: map[string]*bucket{}}
}

// policyField is the quota policy of a bucket in the RateLimit-Policy
// field of draft-ietf-httpapi-ratelimit-headers-06, the draft whose
// RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset fields every
// limited response carries: the quota (the burst) and its time window in
// seconds, the time the bucket takes to fill again from empty, so that
// the quota over the window is the sustained rate. 20/s with bursts of
// 100 is "100;w=5".
func policyField(cfg RateLimit) string {
	window := max(1, int(math.Round(float64(cfg.Burst)/cfg.PerSecond)))
	return strconv.Itoa(cfg.Burst) + ";w=" + strconv.Itoa(window)
}

// take spends a token of key's bucket and returns what is left, and how
// long until the bucket is full again or, when empty, until the next token.
func (l *limiters) take(key string, now time.Time) (ok bool, remaining int, reset time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute { // forget buckets idle long enough to be full again
		for k, b := range l.by {
			if now.Sub(b.seen) > 10*time.Minute {
				delete(l.by, k)
			}
		}
		l.swept = now
	}
	b := l.by[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.cfg.PerSecond), l.cfg.Burst)}
		l.by[key] = b
	}
	b.seen = now
	ok = b.lim.AllowN(now, 1)
	tokens := b.lim.TokensAt(now)
	remaining = int(math.Max(0, math.Floor(tokens)))
	if ok {
		reset = time.Duration((float64(l.cfg.Burst) - tokens) / l.cfg.PerSecond * float64(time.Second))
	} else {
		reset = time.Duration((1 - tokens) / l.cfg.PerSecond * float64(time.Second))
	}
	return ok, remaining, reset
}

// credentialKey names the credential a request came with: its API key,
// dashboard session or import session (apart from the organization's
// keys), for the per-credential limits.
func credentialKey(p identity.Principal) string {
	switch p.Method {
	case identity.BySession:
		return "ses:" + hex.EncodeToString(p.SessionHash[:8])
	case identity.ByImportSession:
		return "imp:" + p.ImportSessionID
	}
	return "key:" + p.KeyID
}

// rateLimit limits each authenticated principal and tells it where it
// stands in RateLimit-* headers on every response.
func (a *API) rateLimit(c *gin.Context) error {
	ok, remaining, reset := a.limits.take(credentialKey(principal(c)), time.Now())
	seconds := int(math.Ceil(reset.Seconds()))
	h := c.Writer.Header()
	h.Set("RateLimit-Limit", strconv.Itoa(a.limits.cfg.Burst))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(seconds))
	h.Set("RateLimit-Policy", a.limits.policy)
	if !ok {
		return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeRateLimited, RetryAfter: max(seconds, 1),
			Message: "Too many requests; slow down and retry after the number of seconds in Retry-After."}
	}
	return nil
}

// newLoginLimiters limits sign-in attempts per client address, perMinute a
// minute with bursts of as many: each attempt costs a 64 MiB password
// hash, so a flood is refused before it reaches one.
func newLoginLimiters(perMinute int) *limiters {
	if perMinute <= 0 {
		perMinute = 20
	}
	return newLimiters(RateLimit{PerSecond: float64(perMinute) / 60, Burst: perMinute})
}

// loginRateLimit spends a token of the client address's sign-in bucket.
func (a *API) loginRateLimit(c *gin.Context) error {
	ok, _, reset := a.logins.take("ip:"+clientIP(c), time.Now())
	if !ok {
		return &domain.Error{Kind: domain.ErrTooMany, Code: domain.CodeRateLimited, RetryAfter: max(int(math.Ceil(reset.Seconds())), 1),
			Message: "Too many sign-in attempts from this address; retry after the number of seconds in Retry-After."}
	}
	return nil
}
