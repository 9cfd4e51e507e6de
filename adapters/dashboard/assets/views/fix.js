// "Fix values", on the page of a job that succeeded with rejected rows:
// per field, the values that were refused with how many cells each (GET
// …/invalid-values); the person picks or types a replacement, or leaves a
// value invalid, sees how many cells the replacements fix, and reruns the
// job on the same file with them (options.value_map, POST …/rerun).
import * as api from '../api.js';
import { busy, count, h, problem, slot, table } from '../ui.js';

const SHOWN = 50; // values listed per field, the most frequent first

// replacementControl is the choice for one refused value: a select where
// the field's values are few (booleans, enums), else a text box; empty
// leaves the value invalid.
function replacementControl(id, field, value) {
  const label = `Replacement for “${value}”`;
  const choices = field.type === 'boolean' ? ['true', 'false'] : field.constraints?.enum;
  if (choices) {
    return h('select', { id, 'aria-label': label },
      h('option', { value: '' }, 'Leave invalid'),
      choices.map((c) => h('option', { value: String(c) }, String(c))));
  }
  const hint = { date: 'YYYY-MM-DD', datetime: 'YYYY-MM-DDThh:mm:ssZ', integer: 'a whole number', number: 'a number' }[field.type];
  return h('input', { type: 'text', id, 'aria-label': label, autocomplete: 'off', placeholder: hint ? `leave invalid, or ${hint}` : 'leave invalid' });
}

export function fixPanel(path, job) {
  const fields = (job.schema?.fields ?? []).filter((f) => f.name);
  if (!fields.length || !job.result?.rejected_count) return null;
  // fixes[field][raw] = replacement; the job's own value_map is kept, so
  // a rerun of a rerun loses no earlier fix.
  const fixes = {};
  for (const [f, m] of Object.entries(job.options?.value_map ?? {})) fixes[f] = { ...m };
  const counted = {}; // fixes made here: field → raw → cells it fixes
  const message = slot();
  const values = slot({ id: 'fix-values' });
  const total = h('p', { id: 'fix-total', role: 'status' });
  const rerun = h('button', { type: 'button', id: 'rerun-fixes', disabled: true }, 'Rerun with these fixes');
  const select = h('select', { id: 'fix-field' }, fields.map((f) => h('option', { value: f.name }, f.name)));

  const tally = () => {
    let n = 0;
    let cells = 0;
    for (const m of Object.values(counted)) {
      for (const c of Object.values(m)) {
        n++;
        cells += c;
      }
    }
    total.textContent = n ? `${n} replacement${n === 1 ? '' : 's'}, fixing up to ${count(cells)} cell${cells === 1 ? '' : 's'}.` : 'No replacements yet.';
    rerun.disabled = n === 0;
  };

  const load = async () => {
    const field = fields.find((f) => f.name === select.value);
    values.set(h('p', { class: 'muted' }, 'Loading…'));
    const page = await api.get(`${path}/invalid-values?field=${encodeURIComponent(field.name)}&limit=${SHOWN}`);
    const rows = page.data.map((v, i) => ({ ...v, i }));
    values.set(
      table(`Refused values of ${field.name}`, [
        ['Value', (v) => h('code', {}, v.value)],
        ['Cells', (v) => count(v.count)],
        ['Problem', (v) => h('code', {}, v.code)],
        ['Replacement', (v) => {
          const control = replacementControl(`fix-${v.i}`, field, v.value);
          control.value = fixes[field.name]?.[v.value] ?? '';
          const update = () => {
            const repl = control.value.trim();
            fixes[field.name] ??= {};
            counted[field.name] ??= {};
            if (repl === '') {
              delete fixes[field.name][v.value];
              delete counted[field.name][v.value];
            } else {
              fixes[field.name][v.value] = repl;
              counted[field.name][v.value] = v.count;
            }
            tally();
          };
          control.addEventListener(control.tagName === 'SELECT' ? 'change' : 'input', update);
          return control;
        }],
      ], rows, `No values of ${field.name} were refused.`),
      page.next_cursor || page.capped ? h('p', { class: 'muted' }, `The ${SHOWN} most frequent of ${count(page.distinct_count)} refused values.`) : null);
  };
  select.addEventListener('change', () => load().catch((err) => values.set(problem(err))));
  rerun.addEventListener('click', () => busy(rerun, async () => {
    try {
      const value_map = Object.fromEntries(Object.entries(fixes).filter(([, m]) => Object.keys(m).length));
      const next = await api.post(`${path}/rerun`, { options: { value_map } });
      location.assign(`/jobs/${next.id}`);
    } catch (err) {
      message.set(problem(err));
    }
  }));
  tally();
  // Start on the field of the first refused value in the issues.
  api.get(`${path}/errors?limit=50`).then((page) => {
    const first = page.data.find((i) => i.severity === 'error' && i.field && i.value != null && fields.some((f) => f.name === i.field));
    if (first) select.value = first.field;
  }, () => {}).finally(() => load().catch((err) => values.set(problem(err))));
  return h('section', { 'aria-labelledby': 'fix-h', class: 'fix' },
    h('h2', { id: 'fix-h' }, 'Fix values'),
    h('p', {}, `${count(job.result.rejected_count)} rows were rejected. Pick a field to see the values it refused, give replacements, and rerun the job on the same file — no upload again.`),
    h('p', {}, 'Or fix them in a spreadsheet: ',
      h('a', { href: api.url(`${path}/errors?format=xlsx&rows=rejected`), download: '', id: 'fix-download-errors-xlsx' }, 'Download errors as Excel'),
      ' (the rejected rows, the cells at fault marked, their messages as comments) and upload the fixed workbook as a new job.'),
    h('p', {}, h('label', { for: 'fix-field' }, 'Field'), select),
    message, values, total, h('p', { class: 'actions' }, rerun));
}
