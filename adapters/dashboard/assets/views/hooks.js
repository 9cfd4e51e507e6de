// Validation hooks (/hooks). Admins register hooks (the secret is shown
// once), try one with a sample batch, rotate its secret, disable or delete
// it; members read the list. Each hook shows its recent batches (the
// jobs'); the schemas page reuses recentBatches and sampleForm for the
// hooks a schema names.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, revealOnce, show, slot, status, table } from '../ui.js';
import { parseJSON } from '../forms.js';

// recentBatches sums up a hook's last batches: how many went well, how
// many failed, their latency, and the last failure's reason.
export function recentBatches(hook) {
  const list = hook.recent_batches ?? [];
  if (!list.length) return h('span', { class: 'muted' }, 'No batches yet');
  const ok = list.filter((b) => b.status === 'succeeded').length;
  const latencies = list.filter((b) => b.status !== 'not_sent').map((b) => b.latency_ms).sort((a, b) => a - b);
  const median = latencies.length ? latencies[Math.floor(latencies.length / 2)] : null;
  const failed = list.find((b) => b.error);
  return h('div', { class: 'hook-recent' },
    h('span', { class: 'hook-strip', 'aria-hidden': 'true' },
      [...list].reverse().map((b) => h('span', { class: `hook-dot hook-dot-${b.status === 'succeeded' ? 'ok' : 'bad'}`, title: `${b.status}, ${b.latency_ms} ms` }))),
    h('span', {}, `Last ${list.length}: ${ok} ok, ${list.length - ok} failed`,
      median == null ? '' : ` · median ${median} ms`),
    failed ? h('span', { class: 'muted hook-error' }, `Last failure: ${failed.error}`) : null);
}

// sampleFor is a typed sample row for a schema's fields: a plausible value
// of each field's type and format.
export function sampleFor(fields) {
  const value = (f) => {
    switch (f.type) {
      case 'integer': return 1;
      case 'number': return 1.5;
      case 'boolean': return true;
      case 'date': return '2026-01-31';
      case 'datetime': return '2026-01-31T12:00:00Z';
      default:
        if (f.format === 'email') return 'ann@example.com';
        if (f.format === 'country') return 'FR';
        if (f.format === 'phone') return '+33123456789';
        return 'sample';
    }
  };
  return [{ row: 1, values: Object.fromEntries(fields.map((f) => [f.name, value(f)])) }];
}

// answer shows what a hook made of a sample: its status and latency, then
// each row's issues and corrections, or why a job's batch would fail.
function answer(hook, r) {
  const head = `${hook.name}: ${r.status}${r.status_code ? ` (${r.status_code})` : ''} in ${r.duration_ms} ms`;
  if (r.status !== 'succeeded') {
    return notice('error', h('p', {}, h('strong', {}, head)), h('p', {}, `A job's batch would fail: ${r.error}`));
  }
  const rows = r.rows.length ? table(`Answer of ${hook.name}`, [
    ['Row', (a) => String(a.row)],
    ['Issues', (a) => (a.issues.length ? h('ul', {}, a.issues.map((i) =>
      h('li', {}, h('span', { class: `status status-${i.severity === 'error' ? 'failed' : 'failing'}` }, i.severity), ' ',
        h('code', {}, i.code), i.field ? ` (${i.field})` : '', `: ${i.message}`))) : '—')],
    ['Corrected values', (a) => {
      const entries = Object.entries(a.values);
      return entries.length ? h('ul', {}, entries.map(([f, v]) => h('li', {}, h('code', {}, f), ' → ', v === null ? h('em', {}, 'empty') : h('code', {}, v)))) : '—';
    }],
  ], r.rows) : h('p', {}, 'The hook had nothing to say about these rows: they pass.');
  return notice('ok', h('p', {}, h('strong', {}, head)), rows);
}

// sampleForm is the "Test with a sample" form for one hook: the sample
// rows as JSON (prefilled), a button, and the hook's answer below.
export function sampleForm(hook, rows, idPrefix = 'sample') {
  const result = slot({ id: `${idPrefix}-result`, 'aria-live': 'polite' });
  const text = h('textarea', { id: `${idPrefix}-rows`, rows: '6', spellcheck: 'false', class: 'mono' });
  text.value = JSON.stringify(rows, null, 2);
  const send = h('button', { type: 'submit', id: `${idPrefix}-send` }, 'Send sample');
  const form = h('form', { class: 'hook-sample', 'aria-label': `Test ${hook.name} with a sample` },
    h('p', {}, h('label', { for: `${idPrefix}-rows` }, `Sample rows for ${hook.name} (JSON: row numbers and values, as a job sends them)`), text),
    h('p', {}, send), result);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(send, async () => {
      try {
        result.set(answer(hook, await api.post(`/v1/hooks/${hook.id}/test`, { rows: parseJSON(text.value, 'sample rows') })));
      } catch (err) {
        result.set(problem(err));
      }
    });
  });
  return form;
}

export default async function hooks(main, { me }) {
  const admin = me.user.role === 'admin';
  const secret = slot({ id: 'hook-secret' });
  const message = slot({ id: 'hook-message' });
  const list = slot({ id: 'hooks-list' });
  const tester = slot({ id: 'hook-test' });
  addEventListener('pagehide', () => secret.set());

  const act = (button, fn) => busy(button, async () => {
    try {
      await fn();
    } catch (err) {
      message.set(problem(err));
    }
  });

  const openTest = (hk) => {
    tester.set(h('section', { 'aria-labelledby': 'hook-test-h' },
      h('h2', { id: 'hook-test-h', tabindex: '-1' }, `Test ${hk.name} with a sample`),
      h('p', { class: 'muted' }, 'The rows go to the hook signed, as a job sends them; its answer is not applied to any job.'),
      sampleForm(hk, [{ row: 1, values: { customer_id: 'C-1001', email: 'ann@example.com' } }])));
    document.getElementById('hook-test-h').focus();
  };

  const load = async () => {
    const page = await api.get('/v1/hooks?limit=100');
    list.set(table('Hooks', [
      ['Name', (hk) => h('strong', {}, hk.name)],
      ['URL', (hk) => h('code', { class: 'clip' }, hk.url)],
      ['Status', (hk) => status(hk.enabled ? 'active' : 'disabled')],
      ['Limits', (hk) => `${hk.timeout_ms} ms, ${hk.concurrency} in flight`],
      ['Recent batches', (hk) => recentBatches(hk)],
      ['', (hk) => {
        if (!admin) return null;
        const test = h('button', { type: 'button', id: `test-${hk.id}` }, 'Test with a sample');
        test.addEventListener('click', () => openTest(hk));
        const toggle = h('button', { type: 'button', id: `toggle-${hk.id}` }, hk.enabled ? 'Disable' : 'Enable');
        toggle.addEventListener('click', () => act(toggle, async () => {
          await api.patch(`/v1/hooks/${hk.id}`, { enabled: !hk.enabled });
          message.set(notice('ok', h('p', {}, `${hk.enabled ? 'Disabled' : 'Enabled'} ${hk.name}.`)));
          await load();
        }));
        const rotate = h('button', { type: 'button', id: `rotate-${hk.id}` }, 'Rotate secret');
        rotate.addEventListener('click', async () => {
          const sure = await confirm('Rotate the signing secret?',
            'The new secret signs from now on; the old one keeps signing alongside it for 24 hours.', 'Rotate secret');
          if (sure) act(rotate, async () => reveal(secret, await api.post(`/v1/hooks/${hk.id}/rotate-secret`), 'New secret'));
        });
        const remove = h('button', { type: 'button', class: 'danger', id: `delete-${hk.id}` }, 'Delete');
        remove.addEventListener('click', async () => {
          const sure = await confirm(`Delete the hook ${hk.name}?`, 'Jobs whose schema names it are refused until a hook of that name is registered again.', 'Delete hook');
          if (sure) act(remove, async () => {
            await api.del(`/v1/hooks/${hk.id}`);
            tester.set();
            await load();
          });
        });
        return h('div', { class: 'actions' }, test, toggle, rotate, remove);
      }],
    ], page.data, 'No hooks yet.'));
  };

  const sections = [];
  if (admin) {
    const name = h('input', { type: 'text', id: 'hook-name', required: true, maxlength: '63', pattern: '[a-z][a-z0-9_\\-]{0,62}', autocomplete: 'off', 'aria-describedby': 'hook-name-help' });
    const url = h('input', { type: 'url', id: 'hook-url', required: true, maxlength: '2000', autocomplete: 'off' });
    const timeout = h('input', { type: 'number', id: 'hook-timeout', min: '100', max: '30000', step: '100', placeholder: '5000', inputmode: 'numeric' });
    const concurrency = h('input', { type: 'number', id: 'hook-concurrency', min: '1', max: '16', placeholder: '4', inputmode: 'numeric' });
    const submit = h('button', { type: 'submit', id: 'create-hook' }, 'Add hook');
    const form = h('form', { id: 'new-hook-form' },
      h('p', {}, h('label', { for: 'hook-name' }, 'Name'), name,
        h('span', { id: 'hook-name-help', class: 'muted' }, 'How a schema names it in "hooks": lower-case letters, digits, _ and -.')),
      h('p', {}, h('label', { for: 'hook-url' }, 'URL'), url),
      h('p', {}, h('label', { for: 'hook-timeout' }, 'Timeout per batch (ms)'), timeout),
      h('p', {}, h('label', { for: 'hook-concurrency' }, 'Batches in flight'), concurrency),
      h('p', {}, submit));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      act(submit, async () => {
        const body = { name: name.value, url: url.value };
        if (timeout.value) body.timeout_ms = Number(timeout.value);
        if (concurrency.value) body.concurrency = Number(concurrency.value);
        reveal(secret, await api.post('/v1/hooks', body), 'Signing secret');
        message.set();
        form.reset();
        await load();
      });
    });
    sections.push(h('section', { 'aria-labelledby': 'add-hook-h' }, h('h2', { id: 'add-hook-h' }, 'Add a hook'), form));
  } else {
    sections.push(notice('info', h('p', { id: 'hooks-read-only' }, 'Only organization admins change or test hooks; you can see them and how their last batches went.')));
  }
  show(main, 'Validation hooks', h('p', { class: 'muted' }, 'Your own services that check, and may correct, a job\'s rows while it runs; a schema names them in "hooks". See docs/hooks.md.'),
    secret, message, ...sections,
    h('section', { 'aria-labelledby': 'hooks-h' }, h('h2', { id: 'hooks-h' }, 'Hooks'), list), tester);
  await load();
}

// reveal shows a hook's signing secret, the one time the server sends it.
function reveal(where, hk, title) {
  revealOnce(where, { id: 'new-secret', copyId: 'copy-secret', label: 'Secret', value: hk.secret, heading: `${title} for ${hk.name}`,
    warning: 'Copy this secret now: it will not be shown again.', about: ' Verify each batch\'s webhook-signature with it (Standard Webhooks).' });
}
