// Import sessions (/import-sessions, admins: the API lets API keys and
// admins manage them). The funnel of the last 14 days, the sessions
// filtered by status, a session's details with its jobs and the summary
// a submit would report, revoke, and a session created for a test (its
// client secret shown once, its allowed origin prefilled).
import * as api from '../api.js';
import { busy, confirm, count, h, notice, problem, show, slot, status, table, when } from '../ui.js';

const STATUSES = ['open', 'submitted', 'expired', 'revoked'];
const LOCALES = ['auto', 'en', 'de', 'fr', 'es', 'it', 'pt', 'nl'];
const STEPS = [['created', 'Created'], ['opened', 'Opened'], ['uploaded', 'File uploaded'], ['columns_confirmed', 'Columns confirmed'],
  ['fixes_applied', 'Fixes applied'], ['submitted', 'Submitted'], ['expired_unused', 'Expired unused']];

const seconds = (s) => (s == null ? '—' : s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);

export default async function importSessions(main, { me, params }) {
  if (me.user.role !== 'admin') {
    return show(main, 'Import sessions', notice('info', h('p', { id: 'sessions-forbidden' },
      `Only organization admins manage import sessions. Ask an admin of ${me.organization.name}.`)));
  }
  if (params[0]) return details(main, params[0]);
  const created = slot({ id: 'session-created' });
  const message = slot({ id: 'session-message' });
  const funnel = slot({ id: 'funnel' });
  const list = slot({ id: 'sessions-list' });
  addEventListener('pagehide', () => created.set());
  const filter = h('select', { id: 'session-status' },
    h('option', { value: '' }, 'All'), STATUSES.map((s) => h('option', { value: s }, s)));

  const loadFunnel = async () => {
    const f = await api.get('/v1/import-sessions/funnel?days=14');
    const rows = [...f.days].reverse().concat([{ ...f.total, day: 'Last 14 days' }]);
    funnel.set(table('Funnel by day', [
      ['Day', (d) => h('span', { class: 'nowrap' }, d.day)],
      ...STEPS.map(([k, label]) => [label, (d) => count(d[k])]),
      ['Median time to submit', (d) => seconds(d.median_seconds_to_submit)],
    ], rows));
  };

  const load = async () => {
    const page = await api.get('/v1/import-sessions?limit=200');
    const shown = page.data.filter((s) => !filter.value || s.status === filter.value);
    list.set(table('Import sessions', [
      ['Session', (s) => h('a', { href: `/import-sessions/${s.id}` }, h('code', {}, s.id))],
      ['Status', (s) => status(s.status)],
      ['Language', (s) => s.locale],
      ['Allowed origins', (s) => s.allowed_origins.join(', ')],
      ['Created', (s) => when(s.created_at)],
      ['Expires', (s) => when(s.expires_at)],
      ['', (s) => revokeButton(s, message, load)],
    ], shown, filter.value ? `No ${filter.value} sessions.` : 'No import sessions yet.'));
  };
  filter.addEventListener('change', () => load().catch((err) => message.set(problem(err))));

  show(main, 'Import sessions', created, message,
    h('section', { 'aria-labelledby': 'funnel-h' }, h('h2', { id: 'funnel-h' }, 'Funnel'),
      h('p', { class: 'muted' }, 'Of the sessions created each day: how many end users opened the importer, uploaded a file, confirmed its columns, applied fixes and submitted.'),
      funnel),
    h('section', { 'aria-labelledby': 'sessions-h' }, h('h2', { id: 'sessions-h' }, 'Sessions'),
      h('p', {}, h('label', { for: 'session-status' }, 'Status'), ' ', filter), list),
    createForm(created, message, load));
  await Promise.all([loadFunnel(), load()]);
}

function revokeButton(s, message, after) {
  if (s.status !== 'open') return null;
  const revoke = h('button', { type: 'button', class: 'danger', id: `revoke-${s.id}`, 'aria-label': `Revoke session ${s.id}` }, 'Revoke');
  revoke.addEventListener('click', async () => {
    const sure = await confirm(`Revoke session ${s.id}?`, 'Its importer is refused from its next request. This cannot be undone.', 'Revoke session');
    if (!sure) return;
    busy(revoke, async () => {
      try {
        await api.del(`/v1/import-sessions/${s.id}`);
        message.set(notice('ok', h('p', {}, `Revoked session ${s.id}.`)));
        await after();
      } catch (err) {
        message.set(problem(err));
      }
    });
  });
  return revoke;
}

// createForm mints a session for a test: the dashboard's origin is
// prefilled, so a page served beside it may frame the importer.
function createForm(created, message, after) {
  const origin = h('input', { type: 'text', id: 'session-origin', required: true, value: location.origin, autocomplete: 'off' });
  const schema = h('textarea', { id: 'session-schema', required: true, rows: '4', spellcheck: 'false' },
    '{"fields":[{"name":"email","type":"string","format":"email","constraints":{"required":true}},{"name":"name","type":"string"}]}');
  const locale = h('select', { id: 'session-locale' }, LOCALES.map((l) => h('option', { value: l }, l)));
  const submit = h('button', { type: 'submit', id: 'create-session' }, 'Create session');
  const form = h('form', { id: 'new-session-form' },
    h('p', {}, h('label', { for: 'session-origin' }, 'Allowed origin'), origin),
    h('p', {}, h('label', { for: 'session-schema' }, 'Schema (JSON)'), schema),
    h('p', {}, h('label', { for: 'session-locale' }, 'Language'), locale),
    h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        let doc;
        try {
          doc = JSON.parse(schema.value);
        } catch {
          throw Object.assign(new Error('The schema is not valid JSON.'), { fields: [] });
        }
        const s = await api.post('/v1/import-sessions', { schema: doc, allowed_origins: [origin.value.trim()], locale: locale.value });
        reveal(created, s);
        message.set();
        await after();
      } catch (err) {
        message.set(problem(err));
      }
    });
  });
  return h('section', { 'aria-labelledby': 'create-session-h' }, h('h2', { id: 'create-session-h' }, 'Create a session for a test'), form);
}

// reveal shows a new session's url and client secret, the one time the
// secret exists.
function reveal(where, s) {
  const field = h('input', { type: 'text', id: 'new-session-secret', readonly: true, value: s.client_secret, class: 'mono',
    spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'new-session-warning' });
  where.set(notice('ok',
    h('h2', {}, `Session ${s.id}`),
    h('p', { id: 'new-session-warning', class: 'warning' }, h('strong', {}, 'Copy the client secret now: it will not be shown again.'),
      ' Hand it and the URL to TabnormImporter.open on a page of the allowed origin.'),
    h('p', {}, 'URL ', h('code', { id: 'new-session-url' }, s.url)),
    h('p', { class: 'copy' }, h('label', { for: 'new-session-secret' }, 'Client secret'), field)));
  field.focus();
  field.select();
}

async function details(main, id) {
  const message = slot({ id: 'session-message' });
  const s = await api.get(`/v1/import-sessions/${encodeURIComponent(id)}`);
  const sum = s.summary;
  const facts = [
    ['Status', status(s.status)], ['Language', s.locale], ['Allowed origins', s.allowed_origins.join(', ')],
    ['Jobs', `${s.job_count} of at most ${s.max_jobs}`], ['Created', when(s.created_at)], ['Expires', when(s.expires_at)],
    ['Submitted', when(s.submitted_at)], ['Revoked', when(s.revoked_at)], ['Metadata', h('code', {}, JSON.stringify(s.metadata))],
  ];
  const reload = () => location.reload();
  show(main, `Import session ${s.id}`, message,
    h('p', {}, h('a', { href: '/import-sessions' }, '← All import sessions')),
    h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    h('p', {}, revokeButton(s, message, reload)),
    h('section', { 'aria-labelledby': 'session-jobs-h' }, h('h2', { id: 'session-jobs-h' }, 'Jobs'),
      table('Jobs of the session', [
        ['Job', (j) => h('a', { href: `/jobs/${j.id}` }, h('code', {}, j.id))],
        ['Status', (j) => status(j.status)],
        ['Rows read', (j) => count(j.rows_read)],
        ['Valid', (j) => count(j.rows_valid)],
        ['Rejected', (j) => count(j.rows_rejected)],
        ['', (j) => (j.superseded ? 'replaced by its rerun' : 'final')],
      ], s.jobs, 'No file uploaded yet.')),
    h('section', { 'aria-labelledby': 'session-summary-h' }, h('h2', { id: 'session-summary-h' }, 'Summary'),
      h('p', { id: 'session-summary' }, `${sum.jobs.length} final jobs: ${count(sum.rows_valid)} rows valid, ${count(sum.rows_rejected)} rejected`,
        sum.superseded_job_ids.length ? `; ${sum.superseded_job_ids.length} replaced by reruns.` : '.')));
}
