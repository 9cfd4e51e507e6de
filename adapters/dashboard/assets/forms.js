// Form parts the job pages share: a file field that also takes a dropped
// file, and the mode, schema and options of a job.
import { h } from './ui.js';

// fileField is a labelled file input inside a zone that files can be
// dropped on. The input stays the real control, for keyboards and screen
// readers; dropping only fills it.
export function fileField(id, label, { multiple = false } = {}) {
  const input = h('input', { type: 'file', id, required: true, multiple, 'aria-describedby': `${id}-chosen` });
  const chosen = h('p', { id: `${id}-chosen`, class: 'muted', 'aria-live': 'polite' }, 'No file chosen.');
  const zone = h('div', { class: 'dropzone' },
    h('label', { for: id }, label),
    h('p', { class: 'muted' }, 'Drop a file here, or choose one. CSV, TSV, JSON lines or XLSX.'),
    input, chosen);
  const update = () => {
    chosen.textContent = input.files.length ? `Chosen: ${[...input.files].map((f) => f.name).join(', ')}` : 'No file chosen.';
  };
  input.addEventListener('change', update);
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    if (e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;
      update();
    }
  });
  return { el: zone, input };
}

export function modeField() {
  const select = h('select', { id: 'mode', name: 'mode' },
    h('option', { value: 'normalize' }, 'normalize — clean and coerce every value'),
    h('option', { value: 'validate' }, 'validate — check values as they are'),
    h('option', { value: 'infer' }, 'infer — suggest a schema (no schema needed)'));
  return { el: h('p', {}, h('label', { for: 'mode' }, 'Mode'), select), select };
}

// schemaField picks the target schema: a saved one, one pasted as JSON, or
// none (infer mode). value() gives {schema_id}, {schema: text} or {}.
export function schemaField(saved) {
  const select = h('select', { id: 'schema-id' },
    saved.map((s) => h('option', { value: s.id }, `${s.name} (${s.schema.fields?.length ?? 0} fields)`)));
  const text = h('textarea', { id: 'schema-text', rows: '8', spellcheck: 'false',
    placeholder: '{"fields":[{"name":"email","type":"string","format":"email"}]}' });
  const parts = {
    saved: h('p', {}, h('label', { for: 'schema-id' }, 'Saved schema'), select),
    pasted: h('p', {}, h('label', { for: 'schema-text' }, 'Schema (JSON)'), text),
  };
  const radio = (value, label, checked, disabled) => h('label', { class: 'choice' },
    h('input', { type: 'radio', name: 'schema-source', id: `schema-source-${value}`, value, checked, disabled }), ' ', label);
  const first = saved.length ? 'saved' : 'pasted';
  const fieldset = h('fieldset', {},
    h('legend', {}, 'Target schema'),
    radio('saved', saved.length ? 'A saved schema' : 'A saved schema (none saved yet)', first === 'saved', !saved.length),
    radio('pasted', 'Paste a schema', first === 'pasted'),
    radio('none', 'No schema (infer mode)', false),
    parts.saved, parts.pasted);
  const source = () => fieldset.querySelector('input[name="schema-source"]:checked').value;
  const toggle = () => {
    parts.saved.hidden = source() !== 'saved';
    parts.pasted.hidden = source() !== 'pasted';
  };
  fieldset.addEventListener('change', toggle);
  toggle();
  return {
    el: fieldset,
    value() {
      switch (source()) {
        case 'saved': return { schema_id: select.value };
        case 'pasted': return { schema: text.value };
        default: return {};
      }
    },
  };
}

export function optionsField() {
  const text = h('textarea', { id: 'options', rows: '3', spellcheck: 'false', placeholder: '{"date_order":"DMY","phone_region":"GB"}' });
  return { el: h('p', {}, h('label', { for: 'options' }, 'Options (JSON, optional)'), text), text };
}

// reviewField is "Review columns before running" (options.review), on by
// default; infer mode has no schema to review against, so it is off there.
// withReview(options) adds it to an options document.
export function reviewField(modeSelect) {
  const box = h('input', { type: 'checkbox', id: 'review-first', checked: true, 'aria-describedby': 'review-first-hint' });
  const el = h('p', { class: 'check' },
    h('label', { class: 'choice', for: 'review-first' }, box, ' Review columns before running'),
    h('span', { id: 'review-first-hint', class: 'muted' },
      'The job reads the first rows, shows how the columns map to the schema and what the rows would look like, and waits for you to confirm.'));
  const sync = () => { box.disabled = modeSelect.value === 'infer'; };
  modeSelect.addEventListener('change', sync);
  sync();
  return {
    el,
    withReview(options) {
      if (box.disabled || !box.checked || 'review' in options) return options;
      return { ...options, review: true };
    },
  };
}

export function nameField() {
  const input = h('input', { type: 'text', id: 'job-name', maxlength: '200', autocomplete: 'off' });
  return { el: h('p', {}, h('label', { for: 'job-name' }, 'Name (optional)'), input), input };
}

// parseJSON reads a pasted document, or throws a message naming it.
export function parseJSON(text, what) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`The ${what} is not valid JSON: ${err.message}`);
  }
}
