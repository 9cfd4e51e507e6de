// Small DOM helpers the pages share. Pages are built with DOM calls, never
// by parsing markup, so nothing the server returns can inject any; and
// handlers are attached with addEventListener, never inline, so the
// Content-Security-Policy can forbid inline script.

// h makes an element: h('a', { href: '/jobs', onclick: fn }, 'Jobs').
// A function prop is an event listener; true makes an empty attribute.
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v == null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value' || k === 'checked') el[k] = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  el.append(...children.flat(Infinity).filter((c) => c != null && c !== false));
  return el;
}

// show replaces the page's content under its heading.
export function show(main, title, ...children) {
  document.title = `${title} · tabnorm`;
  main.replaceChildren(h('h1', {}, title), ...children);
}

// notice is a message for everyone, read out by screen readers: kind is
// 'info', 'ok' or 'error' (errors interrupt, the others wait their turn).
export function notice(kind, ...content) {
  const role = kind === 'error' ? 'alert' : 'status';
  return h('div', { class: `notice notice-${kind}`, role }, ...content);
}

// problem shows an ApiError: its detail, each field's message and the
// request id to quote to support.
export function problem(err) {
  return notice('error',
    h('p', {}, err.message),
    err.fields?.length ? h('ul', {}, err.fields.map((f) => h('li', {}, h('code', {}, f.field), ': ', f.message))) : null,
    err.requestId ? h('p', { class: 'muted' }, `Request id: ${err.requestId}`) : null);
}

// slot is a place on a page whose content a later answer replaces.
export function slot(props = {}) {
  const el = h('div', props);
  el.set = (...content) => el.replaceChildren(...content.flat().filter((c) => c != null));
  return el;
}

export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return h('time', { datetime: iso }, d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }));
}

export function size(n) {
  if (n == null) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${i ? n.toFixed(1) : n} ${units[i]}`;
}

export function count(n) {
  return (n ?? 0).toLocaleString();
}

export function status(s) {
  return h('span', { class: `status status-${s}` }, s);
}

// table builds a captioned table in a scrollable region (narrow screens
// scroll tables sideways, not the page). columns: [[heading, row => cell]].
export function table(caption, columns, rows, empty) {
  if (!rows.length && empty) return h('p', { class: 'muted' }, empty);
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: '0' },
    h('table', {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map(([head]) => h('th', { scope: 'col' }, head)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(r))))))));
}

// busy disables a button while its action runs, so a double click does
// not send twice.
export async function busy(button, action) {
  button.disabled = true;
  try {
    return await action();
  } finally {
    button.disabled = false;
  }
}

// confirm asks in a modal <dialog> (focus stays inside it, Escape cancels)
// and resolves true when the person confirms.
export function confirm(title, text, confirmLabel) {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'button', class: 'danger', value: 'yes' }, confirmLabel);
    const no = h('button', { type: 'button', value: 'no' }, 'Cancel');
    const dialog = h('dialog', { 'aria-labelledby': 'confirm-title', id: 'confirm' },
      h('h2', { id: 'confirm-title' }, title), h('p', {}, text), h('div', { class: 'actions' }, yes, no));
    yes.addEventListener('click', () => dialog.close('yes'));
    no.addEventListener('click', () => dialog.close('no'));
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'yes');
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });
}

// revealOnce shows a secret the server sends once (an API key, a signing
// secret): read only and selected, with a Copy button that selects it for
// Ctrl+C where the clipboard is refused (plain http, or denied). id names
// the field (its warning is id-warning), copyId the button.
export function revealOnce(where, { id, copyId, label, value, heading, warning, about }) {
  const field = h('input', { type: 'text', id, readonly: true, value, class: 'mono',
    spellcheck: 'false', autocomplete: 'off', 'aria-describedby': `${id}-warning` });
  const copied = h('span', { id: 'copy-status', role: 'status' });
  const copy = h('button', { type: 'button', id: copyId }, 'Copy');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      copied.textContent = 'Copied.';
    } catch {
      field.select();
      copied.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
    }
  });
  where.set(notice('ok',
    h('h2', {}, heading),
    h('p', { id: `${id}-warning`, class: 'warning' }, h('strong', {}, warning), about),
    h('p', { class: 'copy' }, h('label', { for: id }, label), field, copy, copied)));
  field.focus();
  field.select();
}
