// The review of a job's columns (options.review), on the page of a job
// awaiting it: each source column with some of its values, the field it
// maps to with the mapping's confidence and evidence, what to check of it
// (its warnings: a mapping by likeness, values or a contested synonym, a
// field several columns name equally well), a select of the
// alternatives (each with its own),
// every other field and "ignore", required fields still unmapped shown as
// blocking, and what the first rows would come out as. Every change is
// saved at once (PATCH …/mapping) and the preview drawn again; Confirm
// runs the job with the mapping shown. A workbook with several sheets of
// data offers its sheets: another is read again (PATCH …/review).
import * as api from '../api.js';
import { busy, count, h, notice, problem, slot, table, when } from '../ui.js';

const IGNORE = '';

// SETTLE is how long a select's choice must stay before it is saved: typing
// "email" on a closed select passes through other choices first.
const SETTLE = 400;

function cell(v) {
  if (v == null) return h('span', { class: 'muted' }, '—');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function percent(c) {
  return c == null ? '—' : `${Math.round(c * 100)}%`;
}

// why says briefly what a mapping rests on (its evidence): how strongly
// the header names the field, and the share of values that fit it.
export function why(e) {
  if (!e) return '';
  const parts = [];
  if (e.header > 0) parts.push(`header ${percent(e.header)}`);
  if (e.matched !== 'any' && e.matched !== 'empty') parts.push(`${percent(e.values)} of values ${e.matched}`);
  return parts.join(', ');
}

// WARNED names what a column's warning asks a person to check.
const WARNED = {
  fuzzy_mapping: 'Check: mapped by a likeness of names',
  content_mapping: 'Check: mapped by its values',
  synonym_mapping: 'Check: another column names this field too',
  ambiguous_mapping: 'Choose: several columns name this field equally well',
};

// warnings lists what the run would warn of a column's mapping, each with
// the engine's message; null when there is nothing to check.
function warnings(column) {
  const ws = column.warnings ?? [];
  if (!ws.length) return null;
  return h('ul', { class: 'plain mapping-warnings' }, ws.map((w) =>
    h('li', { class: 'warning', 'data-code': w.code }, h('strong', {}, WARNED[w.code] ?? w.code), h('br'), w.message)));
}

function note(method, confidence, evidence) {
  const because = why(evidence);
  return `${method}, ${percent(confidence)}${because ? `; ${because}` : ''}`;
}

// fieldSelect is the choice of one column's field: the current one and the
// alternatives first, then the schema's other fields, then ignore.
function fieldSelect(id, column, fields) {
  const suggested = [];
  if (column.field) suggested.push({ field: column.field, note: note(column.method, column.confidence, column.evidence) });
  for (const a of column.alternatives) suggested.push({ field: a.field, note: note(a.method, a.confidence, a.evidence) });
  const named = new Set(suggested.map((s) => s.field));
  const label = (f) => `${f.name}${f.constraints?.required ? ' (required)' : ''}`;
  const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
  const select = h('select', { id, 'aria-label': `Field for column ${column.source_column}` },
    suggested.length ? h('optgroup', { label: 'Suggested' },
      suggested.map((s) => h('option', { value: s.field }, `${label(byName[s.field] ?? { name: s.field })} — ${s.note}`))) : null,
    h('optgroup', { label: 'Other fields' },
      fields.filter((f) => !named.has(f.name)).map((f) => h('option', { value: f.name }, label(f)))),
    h('option', { value: IGNORE }, column.field ? 'Ignore this column' : 'Not mapped (ignore this column)'));
  select.value = column.field ?? IGNORE;
  return select;
}

// sheetChoice offers the sheets of a review's workbooks that hold data
// (the one read among them), each with its rows and first row; null when
// there is nothing to choose.
function sheetChoice(r, onChoose) {
  const offered = r.sheets.filter((s) => s.selected || !(s.complete && s.rows === 0));
  const names = [...new Set(offered.map((s) => s.name))];
  if (names.length < 2) return null;
  const select = h('select', { id: 'review-sheet' }, names.map((n) => {
    const s = offered.find((x) => x.name === n);
    const first = s.first_row.filter((c) => c !== '').join(', ');
    return h('option', { value: n }, `${n} — ${s.complete ? '' : 'at least '}${count(s.rows)} rows${first ? `: ${first}` : ''}`);
  }));
  select.value = r.sheets.find((s) => s.selected)?.name ?? names[0];
  const button = h('button', { type: 'button', id: 'read-sheet' }, 'Read this sheet');
  button.addEventListener('click', () => busy(button, () => onChoose(select.value)));
  return h('p', { class: 'actions' }, h('label', { for: 'review-sheet' }, 'Sheet of the workbook '), select, ' ', button);
}

// headerChoice offers the file's first rows as the header row (or none),
// where the review lists them (first_rows); said first when the engine
// was not sure (header_unsure). null on a server whose review lacks them.
function headerChoice(r, onChoose) {
  if (!r.first_rows?.length) return null;
  const select = h('select', { id: 'review-header' },
    r.first_rows.map((cells, i) => h('option', { value: String(i + 1) }, `Row ${i + 1}: ${cells.filter((c) => c !== '').join(' · ') || '(empty)'}`)),
    h('option', { value: '0' }, 'None: the file has no header row'));
  select.value = String(r.header_row ?? 1);
  const button = h('button', { type: 'button', id: 'read-header' }, 'Use this header row');
  button.addEventListener('click', () => busy(button, () => onChoose(Number(select.value))));
  return h('div', { class: r.header_unsure ? 'warning' : null, id: 'review-header-row' },
    r.header_unsure ? h('p', {}, h('strong', {}, 'The header row is not certain: check which row holds the column names.')) : null,
    h('p', { class: 'actions' }, h('label', { for: 'review-header' }, 'Header row '), select, ' ', button));
}

// reviewPanel draws a job's review under path; onQueued gets the job once
// the review is confirmed.
export function reviewPanel(path, job, onQueued) {
  const fields = job.schema?.fields ?? [];
  const files = Object.fromEntries(job.source.files.map((f) => [f.id, f.filename]));
  const several = job.source.files.length > 1;
  const message = slot();
  const said = h('p', { id: 'review-said', class: 'visually-hidden', role: 'status' });
  const box = slot({ id: 'review' });

  // change saves one column's field and draws the review it gives; the
  // focus stays where it is (on the same control, drawn anew).
  const change = async (select, column) => {
    const field = select.value;
    box.setAttribute('aria-busy', 'true');
    message.set();
    try {
      const r = await api.patch(`${path}/mapping`, { mapping: { [column.source_column]: field === IGNORE ? null : field } });
      draw(r, document.activeElement?.id);
      said.textContent = `${column.source_column}: ${field === IGNORE ? 'ignored' : `mapped to ${field}`}. ` +
        `${count(r.sample.rows_valid)} of ${count(r.sample.records)} sample rows would be kept.`;
    } catch (err) {
      message.set(problem(err));
      select.focus();
    } finally {
      box.removeAttribute('aria-busy');
    }
  };

  // chooseSheet reads the sample again from another sheet and draws its review.
  const chooseSheet = async (sheet) => {
    box.setAttribute('aria-busy', 'true');
    message.set();
    try {
      const r = await api.patch(`${path}/review`, { sheet });
      draw(r, 'review-sheet');
      said.textContent = `Sheet ${sheet}: ${count(r.sample.rows_valid)} of ${count(r.sample.records)} sample rows would be kept.`;
    } catch (err) {
      message.set(problem(err));
    } finally {
      box.removeAttribute('aria-busy');
    }
  };

  // chooseHeader reads the sample again with another header row (PATCH
  // …/review {"header_row":N}, 0 for none) and draws its review.
  const chooseHeader = async (row) => {
    box.setAttribute('aria-busy', 'true');
    message.set();
    try {
      const r = await api.patch(`${path}/review`, { header_row: row });
      draw(r, 'review-header');
      said.textContent = `${row ? `Row ${row}` : 'No row'} as the header: ${count(r.sample.rows_valid)} of ${count(r.sample.records)} sample rows would be kept.`;
    } catch (err) {
      message.set(problem(err));
    } finally {
      box.removeAttribute('aria-busy');
    }
  };

  function draw(r, focus) {
    const confirmButton = h('button', { type: 'button', id: 'confirm-review', disabled: r.blocking.length > 0,
      'aria-describedby': r.blocking.length ? 'review-blocking' : null }, 'Confirm and run');
    confirmButton.addEventListener('click', () => busy(confirmButton, async () => {
      try {
        onQueued(await api.post(`${path}/confirm`));
      } catch (err) {
        message.set(problem(err));
      }
    }));
    const columns = table('Columns', [
      several ? ['File', (c) => files[c.source_file] ?? cell(c.source_file)] : null,
      ['Source column', (c) => h('strong', {}, c.source_column)],
      ['Sample values', (c) => (c.values.length ? h('span', { class: 'values' }, c.values.join(' · ')) : h('span', { class: 'muted' }, 'empty'))],
      ['Maps to', (c) => {
        const select = fieldSelect(`map-${r.columns.indexOf(c)}`, c, fields);
        let settling;
        select.addEventListener('change', () => {
          clearTimeout(settling);
          settling = setTimeout(() => change(select, c), SETTLE);
        });
        return select;
      }],
      ['Confidence', (c) => [c.field ? [`${percent(c.confidence)} (${c.method})`,
        c.evidence ? h('span', { class: 'muted evidence' }, ` ${why(c.evidence)}`) : null] : h('span', { class: 'muted' }, '—'), warnings(c)]],
    ].filter(Boolean), r.columns);
    const names = fields.map((f) => f.name);
    const preview = table('Preview', [
      ['Row', (p) => String(p.row)],
      several ? ['File', (p) => files[p.source_file] ?? cell(p.source_file)] : null,
      ['Kept', (p) => (p.valid ? 'yes' : h('strong', { class: 'rejected' }, 'rejected'))],
      ...names.map((n) => [n, (p) => cell(p.values?.[n])]),
      ['Issues', (p) => (p.issues.length ? h('ul', { class: 'plain' }, p.issues.map((i) =>
        h('li', {}, h('code', {}, i.code), i.value != null ? ` “${i.value}”` : ''))) : '')],
    ].filter(Boolean), r.preview, 'No rows to preview.');
    const counts = table('Issues in the sample', [
      ['Field', (c) => cell(c.field)], ['Severity', (c) => c.severity], ['Code', (c) => h('code', {}, c.code)], ['Count', (c) => count(c.count)],
    ], r.issue_counts, 'No issues in the sample.');
    const s = r.sample;
    const sheet = sheetChoice(r, chooseSheet);
    const read = r.sheets.find((x) => x.selected);
    box.set(
      sheet,
      headerChoice(r, chooseHeader),
      h('p', { id: 'review-summary' },
        `Read ${count(s.records)} records${s.complete ? ' (all of the file)' : ' from the start of the file'}${sheet && read ? ` of the sheet ${read.name}` : ''}: `,
        `${count(s.rows_valid)} would be kept, ${count(s.rows_rejected)} rejected. `,
        r.expires_at ? ['The job waits for you until ', when(r.expires_at), '.'] : null),
      r.blocking.length ? notice('error', h('div', { id: 'review-blocking' },
        h('p', {}, h('strong', {}, 'Before the job can run:')),
        h('ul', {}, r.blocking.map((b) => h('li', {}, b.message))))) : null,
      columns,
      r.unmapped_fields.length ? h('p', { id: 'unmapped-fields', class: 'muted' }, `Fields no column maps to: ${r.unmapped_fields.join(', ')}.`) : null,
      h('p', { class: 'actions' }, confirmButton),
      h('h3', {}, 'Preview of the first rows'), preview,
      h('h3', {}, 'Issues in the sample'), counts);
    if (focus) document.getElementById(focus)?.focus();
  }

  api.get(`${path}/review`).then((r) => draw(r), (err) => box.set(problem(err)));
  return h('section', { 'aria-labelledby': 'review-h', class: 'review' },
    h('h2', { id: 'review-h' }, 'Review columns'),
    h('p', {}, 'Check how the columns of the file map to the fields of the schema. Changes are saved as you make them; the job runs on the whole file when you confirm.'),
    message, said, box);
}
