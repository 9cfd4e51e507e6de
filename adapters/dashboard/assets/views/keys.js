// API keys (/admin/keys, admins only). A new key's plaintext is in the
// creation answer and nowhere else: it is shown once, in a read-only
// field with a copy button, kept in no variable, storage or URL, and taken
// out of the page when the page is left.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, revealOnce, show, slot, table, when } from '../ui.js';

export default async function keys(main, { me }) {
  if (me.user.role !== 'admin') {
    return show(main, 'API keys', notice('info', h('p', { id: 'keys-forbidden' },
      `Only organization admins manage API keys. Ask an admin of ${me.organization.name} for one.`)));
  }
  const created = slot({ id: 'key-created' });
  const message = slot();
  const list = slot({ id: 'keys-list' });
  // A page kept in the back/forward cache would show the key again.
  addEventListener('pagehide', () => created.set());

  const load = async () => {
    const page = await api.get('/v1/admin/keys?limit=200');
    list.set(table('API keys', [
      ['Name', (k) => k.name],
      ['Key', (k) => h('code', {}, `${k.prefix}…${k.last4}`)],
      ['Scopes', (k) => (k.scopes.includes('admin') ? 'all (admin)' : k.scopes.join(', '))],
      ['Created', (k) => when(k.created_at)],
      ['Last used', (k) => (k.last_used_at ? [when(k.last_used_at), k.last_used_ip ? h('span', { class: 'muted' }, ` from ${k.last_used_ip}`) : null] : '—')],
      ['Expires', (k) => (k.expires_at ? when(k.expires_at) : 'never')],
      ['Status', (k) => status(k)],
      ['', (k) => {
        if (k.revoked_at) return null;
        const revoke = h('button', { type: 'button', class: 'danger', id: `revoke-${k.id}`, 'aria-label': `Revoke key ${k.name}` }, 'Revoke');
        revoke.addEventListener('click', async () => {
          const sure = await confirm(`Revoke key "${k.name}"?`,
            'Programs using it are refused from their next request. This cannot be undone.', 'Revoke key');
          if (!sure) return;
          busy(revoke, async () => {
            try {
              await api.del(`/v1/admin/keys/${k.id}`);
              message.set(notice('ok', h('p', {}, `Revoked key "${k.name}".`)));
              await load();
            } catch (err) {
              message.set(problem(err));
            }
          });
        });
        return revoke;
      }],
    ], page.data, 'No keys yet.'));
  };

  const name = h('input', { type: 'text', id: 'key-name', required: true, maxlength: '100', autocomplete: 'off',
    'aria-describedby': 'key-name-hint' });
  const boxes = SCOPES.map(([scope]) => h('input', { type: 'checkbox', id: `scope-${scope.replace(':', '-')}`, value: scope }));
  const expiry = h('select', { id: 'key-expires' }, EXPIRIES.map(([days, label]) => h('option', { value: String(days) }, label)));
  const submit = h('button', { type: 'submit', id: 'create-key' }, 'Create key');
  const form = h('form', { id: 'new-key-form' },
    h('p', {}, h('label', { for: 'key-name' }, 'Name'), name,
      h('span', { id: 'key-name-hint', class: 'muted' }, 'Where the key is used, e.g. "ci" or "billing sync".')),
    h('fieldset', { id: 'key-scopes' }, h('legend', {}, 'Scopes (none ticked: every scope)'),
      SCOPES.map(([scope, hint], i) => h('label', { class: 'choice' }, boxes[i], ' ', h('code', {}, scope),
        h('span', { class: 'muted' }, ` — ${hint}`)))),
    h('p', {}, h('label', { for: 'key-expires' }, 'Expires'), expiry),
    h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        const body = { name: name.value };
        const ticked = boxes.filter((b) => b.checked).map((b) => b.value);
        if (ticked.length) body.scopes = ticked;
        const days = Number(expiry.value);
        if (days) body.expires_at = new Date(Date.now() + days * 86400000).toISOString();
        reveal(created, await api.post('/v1/admin/keys', body));
        message.set();
        form.reset();
        await load();
      } catch (err) {
        message.set(problem(err));
      }
    });
  });

  show(main, 'API keys', created, message,
    h('section', { 'aria-labelledby': 'create-key-h' }, h('h2', { id: 'create-key-h' }, 'Create a key'), form),
    h('section', { 'aria-labelledby': 'keys-h' }, h('h2', { id: 'keys-h' }, 'Keys'), list));
  await load();
}

// SCOPES are what a key may be limited to (docs/API.md §4.2).
const SCOPES = [
  ['jobs:read', 'read jobs, their results, schemas, lists and usage'],
  ['jobs:write', 'create, review, rerun, cancel and delete jobs and connect files'],
  ['schemas:write', 'create and delete schemas and reference lists'],
  ['webhooks:write', 'manage webhook endpoints and their deliveries'],
  ['import_sessions:write', 'mint and revoke import sessions'],
  ['destinations:write', 'manage destinations'],
  ['admin', 'everything, as a key without scopes'],
];

const EXPIRIES = [[0, 'Never'], [30, 'In 30 days'], [90, 'In 90 days'], [365, 'In a year']];

function status(k) {
  if (k.revoked_at) return ['Revoked ', when(k.revoked_at)];
  if (k.expires_at && new Date(k.expires_at) <= new Date()) return 'Expired';
  return 'Active';
}

// reveal shows a new key's plaintext, the one time it exists.
function reveal(where, k) {
  revealOnce(where, { id: 'new-key', copyId: 'copy-key', label: 'Key', value: k.key, heading: `Your new key "${k.name}"`,
    warning: 'Copy this key now: it will not be shown again.', about: ' tabnorm keeps only a hash of it. If you lose it, revoke it and create another.' });
}
