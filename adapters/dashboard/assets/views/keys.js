// API keys (/admin/keys, admins only). A new key's plaintext is in the
// creation answer and nowhere else: it is shown once, in a read-only
// field with a copy button, kept in no variable, storage or URL, and taken
// out of the page when the page is left.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, show, slot, table, when } from '../ui.js';

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
      ['Created', (k) => when(k.created_at)],
      ['Last used', (k) => when(k.last_used_at)],
      ['Status', (k) => (k.revoked_at ? ['Revoked ', when(k.revoked_at)] : 'Active')],
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
  const submit = h('button', { type: 'submit', id: 'create-key' }, 'Create key');
  const form = h('form', { id: 'new-key-form' },
    h('p', {}, h('label', { for: 'key-name' }, 'Name'), name,
      h('span', { id: 'key-name-hint', class: 'muted' }, 'Where the key is used, e.g. "ci" or "billing sync".')),
    h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        reveal(created, await api.post('/v1/admin/keys', { name: name.value }));
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

// reveal shows a new key's plaintext, the one time it exists.
function reveal(where, k) {
  const field = h('input', { type: 'text', id: 'new-key', readonly: true, value: k.key, class: 'mono',
    spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'new-key-warning' });
  const copied = h('span', { id: 'copy-status', role: 'status' });
  const copy = h('button', { type: 'button', id: 'copy-key' }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      copied.textContent = 'Copied.';
    } catch {
      // No clipboard access (plain http, or denied): select it for Ctrl+C.
      field.select();
      copied.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
  where.set(notice('ok',
    h('h2', {}, `Your new key "${k.name}"`),
    h('p', { id: 'new-key-warning', class: 'warning' },
      h('strong', {}, 'Copy this key now: it will not be shown again.'),
      ' tabnorm keeps only a hash of it. If you lose it, revoke it and create another.'),
    h('p', { class: 'copy' }, h('label', { for: 'new-key' }, 'Key'), field, copy, copied)));
  field.focus();
  field.select();
}
