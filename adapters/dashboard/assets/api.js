// The dashboard's one way to the server. It is an ordinary API client: it
// sends the session cookie (credentials: 'include'), adds X-CSRF-Token,
// read from /auth/me, to every unsafe request, turns problem+json answers
// into ApiError, and sends the browser back to the login page when the
// session has ended.

// The API's origin when the dashboard is served from another one (the
// server writes it into the page), else '' for the same origin.
const base = document.querySelector('meta[name="tabnorm-api"]')?.content ?? '';

// Whether this browser had a session, so that a 401 can tell "your session
// expired" from "you have not signed in". It holds no secret.
const SIGNED_IN = 'tabnorm.signedIn';

let csrfToken = '';

// ApiError is a problem+json answer (or a network failure, status 0).
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || `The server answered ${status}.`);
    this.status = status;
    this.code = problem.code || '';
    this.fields = problem.errors || [];
    this.requestId = problem.request_id || '';
  }
}

// url is the address of an API path, for links and EventSource.
export function url(path) {
  return base + path;
}

// call sends one request. json is sent as a JSON body, form as multipart;
// the answer's JSON (or text) is returned, or an ApiError thrown.
export async function call(method, path, { json, form } = {}) {
  const init = { method, headers: {}, credentials: 'include' };
  if (json !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(json);
  } else if (form) {
    init.body = form;
  }
  if (method !== 'GET' && method !== 'HEAD') init.headers['X-CSRF-Token'] = csrfToken;
  let res;
  try {
    res = await fetch(url(path), init);
  } catch {
    throw new ApiError(0, { detail: 'The server cannot be reached. Check your connection and try again.' });
  }
  if (res.status === 204) return null;
  const isJSON = (res.headers.get('Content-Type') || '').includes('json');
  const body = isJSON ? await res.json() : await res.text();
  if (res.ok) return body;
  const err = new ApiError(res.status, isJSON ? body : {});
  if (err.status === 401 && err.code === 'unauthenticated') return sessionEnded();
  throw err;
}

export const get = (path) => call('GET', path);
export const post = (path, json) => call('POST', path, { json });
export const patch = (path, json) => call('PATCH', path, { json });
export const del = (path) => call('DELETE', path);

// adopt takes the CSRF token from an answer with the /auth/me shape
// (/auth/me itself, login, impersonation).
function adopt(m) {
  csrfToken = m.csrf_token;
  localStorage.setItem(SIGNED_IN, '1');
  return m;
}

// me reads the signed-in user, their organization and the CSRF token.
export async function me() {
  return adopt(await get('/auth/me'));
}

export async function login(email, password) {
  return adopt(await post('/auth/login', { email, password }));
}

export async function logout() {
  await post('/auth/logout');
  localStorage.removeItem(SIGNED_IN);
}

export async function impersonate(organizationId) {
  return adopt(await post('/auth/impersonate', { organization_id: organizationId }));
}

export async function stopImpersonating() {
  return adopt(await del('/auth/impersonate'));
}

// sessionEnded leaves for the login page, which comes back here after
// signing in. It returns a promise that never settles, so the page that
// made the call shows no error while the browser leaves.
function sessionEnded() {
  const q = new URLSearchParams({ next: location.pathname + location.search });
  if (localStorage.getItem(SIGNED_IN)) q.set('expired', '1');
  localStorage.removeItem(SIGNED_IN);
  location.assign('/login?' + q);
  return new Promise(() => {});
}

// entitled mirrors the API's product rule (API.md §3): the organization
// has the product, or a staff member acts as staff, not as a customer.
export function entitled(m, product) {
  return m.organization.products.includes(product) || (m.user.is_staff && !m.impersonating);
}

// jobsPath is where the organization's jobs are read: /v1/jobs belongs to
// normalize; an organization with connect alone reads its jobs under
// /v1/connect/jobs (API.md §8).
export function jobsPath(m) {
  return entitled(m, 'normalize') || !entitled(m, 'connect') ? '/v1/jobs' : '/v1/connect/jobs';
}
