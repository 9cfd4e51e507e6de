// The audit log (/admin/audit, admins only): who did what, when and from
// where, newest first, narrowed by filters, a page at a time, and the
// same entries as a JSON lines download.
import * as api from '../api.js';
import { busy, h, notice, problem, show, slot, table, when } from '../ui.js';

// ACTIONS are the actions the log records (docs/API.md §4.8).
const ACTIONS = ['login', 'login_failed', 'logout', 'api_key.create', 'api_key.revoke', 'impersonation.start', 'impersonation.stop',
  'user.create', 'user.reset_password', 'user.disable', 'entitlement.grant', 'entitlement.revoke', 'sso.configured', 'sso.changed', 'sso.deleted',
  'login.sso', 'login.sso_failed', 'user.create_sso', 'login.password_refused', 'login.break_glass', 'webhook.create', 'webhook.update',
  'webhook.delete', 'webhook.rotate_secret', 'destination.create', 'destination.update', 'destination.delete', 'hook.create', 'hook.update', 'hook.delete', 'hook.rotate_secret', 'hook.test', 'import_session.create', 'import_session.revoke', 'rows.export', 'audit.export', 'quota.set'];

export default async function audit(main, { me }) {
  if (me.user.role !== 'admin') {
    return show(main, 'Audit log', notice('info', h('p', { id: 'audit-forbidden' },
      `Only organization admins read the audit log. Ask an admin of ${me.organization.name}.`)));
  }
  const message = slot();
  const list = slot({ id: 'audit-list' });
  const more = slot();
  const field = (id, label, input) => h('p', {}, h('label', { for: id }, label), input);
  const action = h('select', { id: 'audit-action' }, h('option', { value: '' }, 'Any action'),
    ACTIONS.map((a) => h('option', { value: a }, a)));
  const actor = h('input', { type: 'text', id: 'audit-actor', autocomplete: 'off', maxlength: '200' });
  const target = h('input', { type: 'text', id: 'audit-target', autocomplete: 'off', maxlength: '200' });
  const since = h('input', { type: 'datetime-local', id: 'audit-since' });
  const until = h('input', { type: 'datetime-local', id: 'audit-until' });
  const apply = h('button', { type: 'submit', id: 'audit-apply' }, 'Show');
  const download = h('a', { id: 'audit-export', class: 'button', download: 'audit-events.jsonl' }, 'Download as JSON lines');
  const form = h('form', { id: 'audit-filters', class: 'filters' },
    field('audit-action', 'Action', action), field('audit-actor', 'Actor (user, key or import session id)', actor),
    field('audit-target', 'Target id', target), field('audit-since', 'From', since), field('audit-until', 'Before', until),
    h('p', {}, apply));

  const query = () => {
    const q = new URLSearchParams();
    if (action.value) q.set('action', action.value);
    if (actor.value.trim()) q.set('actor', actor.value.trim());
    if (target.value.trim()) q.set('target', target.value.trim());
    if (since.value) q.set('since', new Date(since.value).toISOString());
    if (until.value) q.set('until', new Date(until.value).toISOString());
    return q;
  };
  let rows = [];
  const draw = () => list.set(table('Audit events', [
    ['When', (e) => when(e.at)],
    ['Action', (e) => h('code', {}, e.action)],
    ['Actor', (e) => actorOf(e.actor)],
    ['Target', (e) => (e.target_id ? h('code', {}, e.target_id) : '—')],
    ['From', (e) => [e.ip || '—', e.user_agent ? h('span', { class: 'muted small' }, ` ${e.user_agent}`) : null]],
    ['Request', (e) => (e.request_id ? h('code', { class: 'small' }, e.request_id) : '—')],
  ], rows, 'No entries match.'));
  const load = async (cursor) => {
    const q = query();
    q.set('limit', '50');
    if (cursor) q.set('cursor', cursor);
    const page = await api.get(`/v1/audit-events?${q}`);
    rows = cursor ? rows.concat(page.data) : page.data;
    draw();
    const exportQuery = query().toString();
    download.href = api.url(`/v1/audit-events.jsonl${exportQuery ? `?${exportQuery}` : ''}`);
    if (!page.next_cursor) return more.set();
    const next = h('button', { type: 'button', id: 'audit-more' }, 'Show older entries');
    next.addEventListener('click', () => busy(next, () => load(page.next_cursor).catch((err) => message.set(problem(err)))));
    more.set(next);
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(apply, async () => {
      try {
        message.set();
        await load();
      } catch (err) {
        message.set(problem(err));
      }
    });
  });

  show(main, 'Audit log', message,
    h('section', { 'aria-labelledby': 'audit-filters-h' }, h('h2', { id: 'audit-filters-h' }, 'Filters'), form),
    h('section', { 'aria-labelledby': 'audit-h' }, h('h2', { id: 'audit-h' }, 'Entries, newest first'), list, more,
      h('p', {}, download)));
  await load();
}

function actorOf(a) {
  const who = {
    user: () => a.user_id,
    api_key: () => `key ${a.key_id}`,
    import_session: () => `import session ${a.import_session_id}`,
    operator: () => 'operator (command line)',
  }[a.type]();
  return [h('code', {}, who), a.impersonating ? h('span', { class: 'muted' }, ' (staff, impersonating)') : null];
}
