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

export default function login(main) {
  const q = new URLSearchParams(location.search);
  const message = q.has('expired') ? notice('info', h('p', { id: 'login-message' }, 'Your session has expired, please sign in again.'))
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
        password.select();
      }
    });
  });
  show(main, 'Sign in', message, form);
  email.focus();
}
