// Destinations (/destinations). Admins add the places a job's rows are
// delivered to (an S3 bucket, a PostgreSQL table, an HTTP endpoint), test
// them, see their recent deliveries and delete them; secrets are typed in
// once and never shown again. Members are told to ask an admin: the API
// shows destinations to admins and API keys only.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, show, slot, status, table, when } from '../ui.js';

// The settings of each type: [key, label, input type, hint].
const SETTINGS = {
  postgres: [
    ['url', 'Connection URL', 'password', 'postgres://user:password@host:5432/database'],
    ['table', 'Table', 'text', 'a plain name: letters, digits and _'],
    ['schema', 'Schema (optional)', 'text', ''],
  ],
  s3: [
    ['bucket', 'Bucket', 'text', ''],
    ['prefix', 'Prefix (optional)', 'text', 'imports/contacts'],
    ['region', 'Region (optional)', 'text', 'us-east-1'],
    ['endpoint', 'Endpoint (optional)', 'url', 'for an S3-compatible service'],
    ['format', 'Format', 'select', 'parquet'],
    ['access_key_id', 'Access key ID (optional)', 'text', ''],
    ['secret_access_key', 'Secret access key (optional)', 'password', ''],
  ],
  http: [
    ['url', 'Endpoint URL', 'url', 'the address that takes the batches'],
  ],
};

export default async function destinations(main, { me }) {
  if (me.user.role !== 'admin') {
    return show(main, 'Destinations', notice('info', h('p', { id: 'destinations-admins-only' },
      'Only organization admins see and change destinations: their settings name your organization\'s systems.')));
  }
  const secret = slot({ id: 'destination-secret' });
  const message = slot({ id: 'destination-message' });
  const list = slot({ id: 'destinations-list' });
  const deliveries = slot({ id: 'destination-deliveries' });
  addEventListener('pagehide', () => secret.set());

  const act = (button, fn) => busy(button, async () => {
    try {
      await fn();
    } catch (err) {
      message.set(problem(err));
    }
  });

  const showDeliveries = async (d) => {
    const page = await api.get(`/v1/destinations/${d.id}/deliveries?limit=50`);
    deliveries.set(h('section', { 'aria-labelledby': 'destination-deliveries-h' },
      h('h2', { id: 'destination-deliveries-h' }, `Recent deliveries to ${d.name}`),
      table('Recent deliveries', [
        ['Job', (p) => h('a', { href: `/jobs/${p.job_id}` }, p.job_id)],
        ['Status', (p) => status(p.status)],
        ['Attempts', (p) => String(p.attempts)],
        ['Rows', (p) => String(p.rows)],
        ['Bytes', (p) => String(p.bytes)],
        ['Last error', (p) => p.last_error || '—'],
        ['Delivered', (p) => when(p.delivered_at)],
      ], page.data, 'No deliveries yet.')));
  };

  const load = async () => {
    const page = await api.get('/v1/destinations?limit=200');
    list.set(table('Destinations', [
      ['Name', (d) => d.name],
      ['Type', (d) => d.type],
      ['Settings', (d) => h('code', { class: 'clip' }, Object.entries(d.config).filter(([, v]) => v).map(([k, v]) => `${k}=${v}`).join(' '))],
      ['', (d) => {
        const see = h('button', { type: 'button', id: `deliveries-${d.id}`, class: 'link' }, 'Deliveries');
        see.addEventListener('click', () => act(see, () => showDeliveries(d)));
        const test = h('button', { type: 'button', id: `test-${d.id}` }, 'Test');
        test.addEventListener('click', () => act(test, async () => {
          const r = await api.post(`/v1/destinations/${d.id}/test`);
          message.set(r.ok ? notice('ok', h('p', { id: 'test-result' }, `${d.name} takes writes.`))
            : notice('error', h('p', { id: 'test-result' }, `${d.name} failed its test: ${r.error}`)));
        }));
        const remove = h('button', { type: 'button', class: 'danger', id: `delete-${d.id}` }, 'Delete');
        remove.addEventListener('click', async () => {
          const sure = await confirm(`Delete the destination ${d.name}?`, 'Its deliveries go with it; rows it received stay where they are.', 'Delete destination');
          if (sure) act(remove, async () => {
            await api.del(`/v1/destinations/${d.id}`);
            deliveries.set();
            await load();
          });
        });
        return h('div', { class: 'actions' }, see, test, remove);
      }],
    ], page.data, 'No destinations yet.'));
  };

  const name = h('input', { type: 'text', id: 'destination-name', required: true, maxlength: '100', autocomplete: 'off' });
  const type = h('select', { id: 'destination-type' }, Object.keys(SETTINGS).map((t) => h('option', { value: t }, t)));
  const groups = {};
  const inputs = {};
  for (const [t, settings] of Object.entries(SETTINGS)) {
    inputs[t] = {};
    groups[t] = h('fieldset', { id: `settings-${t}` }, h('legend', {}, `${t} settings`), settings.map(([key, label, kind, hint]) => {
      const id = `setting-${t}-${key}`;
      const input = kind === 'select'
        ? h('select', { id }, ['parquet', 'csv', 'jsonl'].map((f) => h('option', { value: f }, f)))
        : h('input', { type: kind, id, autocomplete: 'off', placeholder: hint || null, spellcheck: 'false' });
      inputs[t][key] = input;
      return h('p', {}, h('label', { for: id }, label), input);
    }));
  }
  const pick = () => {
    for (const [t, g] of Object.entries(groups)) g.hidden = t !== type.value;
  };
  type.addEventListener('change', pick);
  pick();
  const submit = h('button', { type: 'submit', id: 'create-destination' }, 'Add destination');
  const form = h('form', { id: 'new-destination-form' },
    h('p', {}, h('label', { for: 'destination-name' }, 'Name'), name),
    h('p', {}, h('label', { for: 'destination-type' }, 'Type'), type),
    Object.values(groups),
    h('p', { class: 'muted' }, 'Passwords and keys are stored encrypted and never shown again.'),
    h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    act(submit, async () => {
      const config = {};
      for (const [key, input] of Object.entries(inputs[type.value])) {
        if (input.value.trim()) config[key] = input.value.trim();
      }
      const d = await api.post('/v1/destinations', { name: name.value, type: type.value, config });
      secret.set(d.signing_secret ? notice('ok', h('h2', {}, `Signing secret for ${d.name}`),
        h('p', { class: 'warning' }, h('strong', {}, 'Copy this secret now: it will not be shown again.'),
          ' Verify each batch\'s webhook-signature with it (Standard Webhooks).'),
        h('p', { class: 'copy' }, h('label', { for: 'new-secret' }, 'Secret'),
          h('input', { type: 'text', id: 'new-secret', readonly: true, value: d.signing_secret, class: 'mono', autocomplete: 'off' }))) : undefined);
      message.set(notice('ok', h('p', {}, `Added ${d.name}. Name it in a job's options.destination_ids: ${d.id}`)));
      form.reset();
      pick();
      await load();
    });
  });
  show(main, 'Destinations', secret, message,
    h('section', { 'aria-labelledby': 'add-destination-h' }, h('h2', { id: 'add-destination-h' }, 'Add a destination'), form),
    h('section', { 'aria-labelledby': 'destinations-h' }, h('h2', { id: 'destinations-h' }, 'Destinations'), list), deliveries);
  await load();
}
