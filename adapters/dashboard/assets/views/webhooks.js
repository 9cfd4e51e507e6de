// Webhooks (/webhooks). Admins add endpoints (the secret is shown once, as
// a new API key is), choose events, send a test, rotate the secret,
// disable or delete, and see and retry deliveries; members only read.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, revealOnce, show, slot, status, table, when } from '../ui.js';

const EVENTS = ['job.succeeded', 'job.failed', 'job.canceled', 'job.started', 'job.awaiting_review'];

export default async function webhooks(main, { me }) {
  const admin = me.user.role === 'admin';
  const secret = slot({ id: 'webhook-secret' });
  const message = slot({ id: 'webhook-message' });
  const list = slot({ id: 'webhooks-list' });
  const deliveries = slot({ id: 'deliveries' });
  addEventListener('pagehide', () => secret.set());
  let open = null; // the endpoint whose deliveries are shown

  const act = (button, fn) => busy(button, async () => {
    try {
      await fn();
    } catch (err) {
      message.set(problem(err));
    }
  });

  const showDeliveries = async (w) => {
    open = w;
    const page = await api.get(`/v1/webhooks/${w.id}/deliveries?limit=50`);
    deliveries.set(h('section', { 'aria-labelledby': 'deliveries-h' },
      h('h2', { id: 'deliveries-h' }, `Deliveries to ${w.url}`),
      table('Deliveries', [
        ['Event', (d) => h('code', {}, d.type)],
        ['Status', (d) => status(d.status)],
        ['Attempts', (d) => String(d.attempt)],
        ['Answer', (d) => (d.status_code ? String(d.status_code) : (d.error || '—'))],
        ['Latency', (d) => (d.latency_ms == null ? '—' : `${d.latency_ms} ms`)],
        ['Last attempt', (d) => when(d.attempted_at)],
        ['Next attempt', (d) => when(d.next_attempt_at)],
        ['Response', (d) => (d.response_body ? h('code', { class: 'clip' }, d.response_body) : '')],
        ['', (d) => {
          if (!admin || d.status === 'pending') return null;
          const retry = h('button', { type: 'button', id: `retry-${d.id}`, 'aria-label': `Retry delivery ${d.id}` }, 'Retry');
          retry.addEventListener('click', () => act(retry, async () => {
            await api.post(`/v1/webhooks/${w.id}/deliveries/${d.id}/retry`);
            message.set(notice('ok', h('p', {}, 'Retry queued.')));
            await showDeliveries(w);
          }));
          return retry;
        }],
      ], page.data, 'No deliveries yet.')));
  };

  const load = async () => {
    const page = await api.get('/v1/webhooks?limit=200');
    list.set(table('Webhooks', [
      ['URL', (w) => h('code', {}, w.url)],
      ['Events', (w) => w.events.join(', ')],
      ['Status', (w) => webhookState(w)],
      ['Description', (w) => w.description],
      ['', (w) => {
        const buttons = [];
        const see = h('button', { type: 'button', id: `deliveries-${w.id}`, class: 'link' }, 'Deliveries');
        see.addEventListener('click', () => act(see, () => showDeliveries(w)));
        buttons.push(see);
        if (!admin) return h('div', { class: 'actions' }, buttons);
        const test = h('button', { type: 'button', id: `test-${w.id}`, disabled: w.enabled ? null : true }, 'Send test');
        test.addEventListener('click', () => act(test, async () => {
          await api.post(`/v1/webhooks/${w.id}/test`);
          message.set(notice('ok', h('p', {}, 'Test event queued.')));
          await showDeliveries(w);
        }));
        const toggle = h('button', { type: 'button', id: `toggle-${w.id}` }, w.enabled ? 'Disable' : 'Enable');
        toggle.addEventListener('click', () => act(toggle, async () => {
          await api.patch(`/v1/webhooks/${w.id}`, { enabled: !w.enabled });
          message.set(notice('ok', h('p', {}, `${w.enabled ? 'Disabled' : 'Enabled'} ${w.url}.`)));
          await load();
        }));
        if (w.paused) {
          const resume = h('button', { type: 'button', id: `resume-${w.id}` }, 'Resume');
          resume.addEventListener('click', () => act(resume, async () => {
            await api.patch(`/v1/webhooks/${w.id}`, { paused: false });
            message.set(notice('ok', h('p', {}, `Resumed ${w.url}; the deliveries that waited are on their way.`)));
            await load();
          }));
          buttons.push(resume);
        }
        const rotate = h('button', { type: 'button', id: `rotate-${w.id}` }, 'Rotate secret');
        rotate.addEventListener('click', async () => {
          const sure = await confirm('Rotate the signing secret?',
            'The new secret signs from now on; the old one keeps signing alongside it for 24 hours.', 'Rotate secret');
          if (sure) act(rotate, async () => reveal(secret, await api.post(`/v1/webhooks/${w.id}/rotate-secret`), 'New secret'));
        });
        const remove = h('button', { type: 'button', class: 'danger', id: `delete-${w.id}` }, 'Delete');
        remove.addEventListener('click', async () => {
          const sure = await confirm(`Delete the webhook to ${w.url}?`, 'Its deliveries go with it. This cannot be undone.', 'Delete webhook');
          if (sure) act(remove, async () => {
            await api.del(`/v1/webhooks/${w.id}`);
            if (open && open.id === w.id) deliveries.set();
            await load();
          });
        });
        return h('div', { class: 'actions' }, buttons, test, toggle, rotate, remove);
      }],
    ], page.data, 'No webhooks yet.'));
  };

  const sections = [];
  if (admin) {
    const url = h('input', { type: 'url', id: 'webhook-url', required: true, maxlength: '2000', autocomplete: 'off' });
    const description = h('input', { type: 'text', id: 'webhook-description', maxlength: '200', autocomplete: 'off' });
    const boxes = EVENTS.map((ev) => {
      const b = h('input', { type: 'checkbox', id: `event-${ev}`, value: ev });
      b.defaultChecked = ev !== 'job.started'; // what the form's reset comes back to
      b.checked = b.defaultChecked;
      return b;
    });
    const submit = h('button', { type: 'submit', id: 'create-webhook' }, 'Add webhook');
    const form = h('form', { id: 'new-webhook-form' },
      h('p', {}, h('label', { for: 'webhook-url' }, 'URL'), url),
      h('fieldset', {}, h('legend', {}, 'Events'),
        boxes.map((b) => h('label', { class: 'choice' }, b, ' ', b.value))),
      h('p', {}, h('label', { for: 'webhook-description' }, 'Description'), description),
      h('p', {}, submit));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      act(submit, async () => {
        const events = boxes.filter((b) => b.checked).map((b) => b.value);
        reveal(secret, await api.post('/v1/webhooks', { url: url.value, events, description: description.value }), 'Signing secret');
        message.set();
        form.reset();
        await load();
      });
    });
    sections.push(h('section', { 'aria-labelledby': 'add-webhook-h' }, h('h2', { id: 'add-webhook-h' }, 'Add a webhook'), form));
  } else {
    sections.push(notice('info', h('p', { id: 'webhooks-read-only' }, 'Only organization admins change webhooks; you can see them and their deliveries.')));
  }
  show(main, 'Webhooks', secret, message, ...sections,
    h('section', { 'aria-labelledby': 'webhooks-h' }, h('h2', { id: 'webhooks-h' }, 'Webhooks'), list), deliveries);
  await load();
}

// reveal shows a signing secret, the one time the server sends it.
function reveal(where, w, title) {
  revealOnce(where, { id: 'new-secret', copyId: 'copy-secret', label: 'Secret', value: w.secret, heading: `${title} for ${w.url}`,
    warning: 'Copy this secret now: it will not be shown again.', about: ' Verify each delivery\'s webhook-signature with it (Standard Webhooks).' });
}

// webhookState shows an endpoint's state: a failing one with its count and
// when the next attempt may go, a paused or disabled one with the reason.
function webhookState(w) {
  const state = w.state || (w.enabled ? 'active' : 'disabled');
  let detail = '';
  if (state === 'disabled' && w.disabled_reason) detail = w.disabled_reason;
  if (state === 'paused') detail = w.paused_reason || 'Paused: its deliveries wait until it is resumed.';
  if (state === 'failing') {
    detail = `${w.consecutive_failures} failed attempts in a row` +
      (w.next_attempt_at ? `; next attempt after ${new Date(w.next_attempt_at).toLocaleString()}` : '');
  }
  return [status(state), detail ? h('p', { class: 'muted', id: `reason-${w.id}` }, detail) : ''];
}
