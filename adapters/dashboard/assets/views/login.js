// The sign-in page: POST /auth/login sets the session cookie, then the
// browser goes back to the page that sent it here.
import * as api from '../api.js';
import { busy, h, notice, problem, show, slot } from '../ui.js';

// local is a path of this origin: one leading slash, never "//" or "/\",
// which a browser reads as another host.
const local = (s) => /^\/(?![/\\])/.test(s);

// back is where to go after signing in: a path of this dashboard only, so
// the login link cannot send anyone to another site. The link as given,
// decoded, and as the browser resolves it ("/.//x" becomes "//x") must
// each be such a path.
export function back(next) {
  try {
    const raw = next || '/jobs';
    const u = new URL(raw, location.origin);
    const path = u.pathname + u.search;
    if (local(raw) && local(decodeURIComponent(raw)) && local(path) && u.origin === location.origin && u.pathname !== '/login') {
      return path;
    }
  } catch {
    // not a URL, or badly escaped: go to the jobs
  }
  return '/jobs';
}

// SSO_FAILURES explain, by code and reason, why a single sign-on came
// back to this page (the server sends ?sso_error=&sso_reason=).
const SSO_FAILURES = {
  sso_not_configured: 'No organization signs in with single sign-on for that address or name. Check it, or sign in with your password.',
  sso_domain_not_allowed: 'Your identity provider signed you in with an address your organization does not allow here. Use your work address.',
  sso_required: 'Your organization signs in with its identity provider: use "Sign in with SSO".',
  invalid_request: 'Give your work e-mail address or your organization to sign in with SSO.',
  rate_limited: 'Too many sign-ins from this address; wait a minute and try again.',
  provider_unreachable: 'Your identity provider could not be reached. Try again in a few minutes; if it keeps failing, ask your administrator to check the issuer URL.',
  state_invalid: 'This sign-in link was already used, took too long, or was started in another browser. Start again below.',
  provider_error: 'Your identity provider did not sign you in. Start again below.',
  token_invalid: 'The answer of your identity provider did not pass our checks (signature, issuer, audience or expiry). Start again; if it keeps failing, ask your administrator.',
  nonce_mismatch: 'The answer of your identity provider was not for this sign-in. Start again below.',
  email_unverified: 'Your identity provider has not verified your e-mail address.',
  user_disabled: 'Your account is disabled.',
  other_organization: 'Your address belongs to an account of another organization; ask tabnorm\'s support.',
};

function ssoFailure(q) {
  const code = q.get('sso_error');
  const reason = q.get('sso_reason') || '';
  const text = SSO_FAILURES[reason] || SSO_FAILURES[code] || 'Single sign-on did not complete. Start again below.';
  return notice('error', h('p', { id: 'login-message' }, h('strong', {}, 'Single sign-on failed. '), text),
    h('p', { class: 'muted' }, 'Code: ', h('code', {}, code), reason ? [' · reason: ', h('code', {}, reason)] : null));
}

export default function login(main) {
  const q = new URLSearchParams(location.search);
  const message = q.has('sso_error') ? ssoFailure(q) : q.has('expired') ? notice('info', h('p', { id: 'login-message' }, 'Your session has expired, please sign in again.'))
    : q.has('signedout') ? notice('ok', h('p', { id: 'login-message' }, 'You have signed out.'))
      : null;
  const email = h('input', { type: 'email', id: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', id: 'password', autocomplete: 'current-password', required: true });
  const submit = h('button', { type: 'submit', id: 'sign-in' }, 'Sign in');
  const failure = slot();
  const form = h('form', { id: 'login-form', class: 'narrow' },
    h('p', {}, h('label', { for: 'email' }, 'Email'), email),
    h('p', {}, h('label', { for: 'password' }, 'Password'), password),
    failure, h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        await api.login(email.value, password.value);
        location.assign(back(q.get('next')));
      } catch (err) {
        failure.set(problem(err));
        if (err.code === 'sso_required') {
          org.value = email.value;
          org.focus();
        } else {
          password.select();
        }
      }
    });
  });
  // Sign in with SSO: a full navigation to the API, which sends the
  // browser to the organization's provider and back to the dashboard.
  const org = h('input', { type: 'text', id: 'sso-org', autocomplete: 'email', required: true, 'aria-describedby': 'sso-org-hint' });
  const ssoForm = h('form', { id: 'sso-form', class: 'narrow', 'aria-labelledby': 'sso-h' },
    h('h2', { id: 'sso-h' }, 'Single sign-on'),
    h('p', {}, h('label', { for: 'sso-org' }, 'Work e-mail or organization'), org,
      h('span', { class: 'muted', id: 'sso-org-hint' }, 'Your organization\'s identity provider signs you in.')),
    h('p', {}, h('button', { type: 'submit', id: 'sso-sign-in' }, 'Sign in with SSO')));
  ssoForm.addEventListener('submit', (e) => {
    e.preventDefault();
    location.assign(api.url(`/auth/sso/start?org=${encodeURIComponent(org.value.trim())}`));
  });
  show(main, 'Sign in', message, form, ssoForm);
  email.focus();
}
