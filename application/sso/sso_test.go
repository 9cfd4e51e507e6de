package sso_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/tabnorm/tabnorm/application/sso"
	"github.com/tabnorm/tabnorm/domain"
	"github.com/tabnorm/tabnorm/domain/identity"
	domainsso "github.com/tabnorm/tabnorm/domain/sso"
	"github.com/tabnorm/tabnorm/test/mocks"
)

var now = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

type fixture struct {
	svc   *sso.Service
	flows *mocks.SSOFlows
	rp    *mocks.SignInProvider
	cfgs  *mocks.SSOConfigs
	audit *mocks.AuditLog
}

func newFixture(t *testing.T) fixture {
	clock := mocks.NewClock(t)
	clock.EXPECT().Now().Return(now).Maybe()
	f := fixture{flows: mocks.NewSSOFlows(t), rp: mocks.NewSignInProvider(t), cfgs: mocks.NewSSOConfigs(t), audit: mocks.NewAuditLog(t)}
	f.svc = sso.NewService(sso.Config{}, f.cfgs, f.flows, f.rp, mocks.NewSealer(t), mocks.NewUsers(t), nil, f.audit, mocks.NewTransactor(t), clock,
		slog.New(slog.DiscardHandler))
	return f
}

func reasonOf(t *testing.T, err error) string {
	t.Helper()
	var coded *domain.Error
	if !errors.As(err, &coded) || coded.Code != domain.CodeSSOFailed {
		t.Fatalf("err = %v; want sso_failed", err)
	}
	return coded.Reason
}

// TestService_Finish: a state is checked before the provider is asked
// anything: an unknown (or spent) one, one from another browser, and an
// old one are refused, the last two audited in the flow's organization;
// the provider's Exchange is never called (the mock fails on any call).
func TestService_Finish(t *testing.T) {
	t.Parallel()
	flow := domainsso.Flow{StateHash: hashOf("state"), BrowserHash: hashOf("browser"), OrgID: "org_1", Nonce: "n", Verifier: "v", CreatedAt: now}
	for _, tc := range []struct {
		name    string
		answer  sso.Answer
		flow    *domainsso.Flow
		reason  string
		audited bool
	}{
		{"unknown_state", sso.Answer{State: "state", Code: "c", Browser: "browser"}, nil, domainsso.ReasonStateInvalid, false},
		{"another_browser", sso.Answer{State: "state", Code: "c", Browser: "other"}, &flow, domainsso.ReasonStateInvalid, true},
		{"too_old", sso.Answer{State: "state", Code: "c", Browser: "browser"}, &domainsso.Flow{StateHash: flow.StateHash, BrowserHash: flow.BrowserHash,
			OrgID: "org_1", CreatedAt: now.Add(-domainsso.FlowLifetime - time.Second)}, domainsso.ReasonStateInvalid, true},
		{"provider_error", sso.Answer{State: "state", Error: "access_denied", Browser: "browser"}, &flow, domainsso.ReasonProviderError, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tc.flow == nil {
				f.flows.EXPECT().Take(mock.Anything, hashOf("state")).Return(domainsso.Flow{}, domain.NotFound("sign-in"))
			} else {
				f.flows.EXPECT().Take(mock.Anything, hashOf("state")).Return(*tc.flow, nil)
			}
			if tc.audited {
				f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool {
					return e.OrgID == "org_1" && e.Action == "login.sso_failed" && e.TargetID == tc.reason
				})).Return(nil)
			}
			_, _, err := f.svc.Finish(context.Background(), tc.answer)
			if got := reasonOf(t, err); got != tc.reason {
				t.Fatalf("reason %q, want %q", got, tc.reason)
			}
		})
	}
}

// TestService_Start: an unknown domain is sso_not_configured without a
// flow stored; a provider that cannot be reached stores no flow either,
// and the failure is audited.
func TestService_Start(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.cfgs.EXPECT().ByDomain(mock.Anything, "nowhere.test").Return(domainsso.Config{}, domain.NotFound("sso"))
	if _, err := f.svc.Start(context.Background(), "Someone@Nowhere.test", "https://t.example/auth/sso/callback"); !errors.Is(err, domainsso.ErrNotConfigured) {
		t.Fatalf("unknown domain: %v", err)
	}
	cfg := domainsso.Config{OrgID: "org_1", Issuer: "https://idp.example"}
	f.cfgs.EXPECT().ByDomain(mock.Anything, "acme.test").Return(cfg, nil)
	f.rp.EXPECT().AuthURL(mock.Anything, cfg, "", mock.Anything, mock.Anything).
		Return("", domainsso.Failed(domainsso.ReasonProviderUnreachable, "down"))
	f.audit.EXPECT().Record(mock.Anything, mock.MatchedBy(func(e identity.AuditEntry) bool { return e.TargetID == domainsso.ReasonProviderUnreachable })).Return(nil)
	_, err := f.svc.Start(context.Background(), "acme.test", "https://t.example/auth/sso/callback")
	if got := reasonOf(t, err); got != domainsso.ReasonProviderUnreachable || !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("provider down: %v", err)
	}
}
