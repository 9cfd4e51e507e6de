// "Fix rejected rows", on the page of a job that succeeded with rejected
// rows: the rows it rejected as a grid, a page at a time (GET
// …/rejected-rows), each bad cell with its issue. A person moves with the
// arrow keys, presses Enter on a cell to edit it and Enter again to save
// (Escape cancels); the edit is checked at once (POST …/edits) and the
// row shows whether it is now valid. "Rerun with fixes" reruns the job on
// the same file with its edits (POST …/rerun).
import * as api from '../api.js';
import { busy, count, h, problem, slot } from '../ui.js';

const PAGE = 20; // rows a page

export function cellsPanel(path, job) {
  const fields = (job.schema?.fields ?? []).filter((f) => f.name && !f.compute);
  if (!fields.length || !job.result?.rejected_count) return null;
  const total = job.result.rejected_count;
  const message = slot();
  const grid = slot({ id: 'cells-grid' });
  const state = h('p', { id: 'cells-status', role: 'status' });
  const where = h('span', { id: 'cells-page' });
  const prev = h('button', { type: 'button', id: 'cells-prev', disabled: true }, 'Previous rows');
  const next = h('button', { type: 'button', id: 'cells-next', disabled: true }, 'Next rows');
  const rerun = h('button', { type: 'button', id: 'rerun-cells', disabled: true }, 'Rerun with fixes');
  const cursors = ['']; // the cursor of each page seen, the first page's ''
  let pageAt = 0;
  let rows = [];
  let at = { r: 0, c: 1 }; // the cell that takes the focus (c 0 is the row's header)
  let editing = null;

  const issuesOf = (row, field) => row.issues.filter((is) => (field ? is.field === field : !is.field || !fields.some((f) => f.name === is.field)));
  const cellId = (r, c) => `cell-${r}-${c}`;

  // draw builds the grid from rows; the cell at `at` is the one Tab reaches.
  const draw = () => {
    if (!rows.length) {
      grid.set(h('p', { class: 'muted' }, 'No rejected rows on this page.'));
      return;
    }
    const first = pageAt * PAGE;
    const table = h('table', {
      role: 'grid', id: 'cells-table', 'aria-label': 'Rejected rows', 'aria-describedby': 'cells-help',
      'aria-rowcount': String(total + 1), 'aria-colcount': String(fields.length + 1),
    },
    h('thead', {}, h('tr', { role: 'row', 'aria-rowindex': '1' },
      h('th', { role: 'columnheader', scope: 'col', 'aria-colindex': '1' }, 'Row'),
      fields.map((f, i) => h('th', { role: 'columnheader', scope: 'col', 'aria-colindex': String(i + 2) }, f.name)))),
    h('tbody', {}, rows.map((row, r) => h('tr', { role: 'row', 'aria-rowindex': String(first + r + 2), class: row.valid ? 'fixed' : null },
      h('th', { role: 'rowheader', scope: 'row', id: cellId(r, 0), tabindex: '-1', 'aria-colindex': '1' },
        String(row.row), row.source_file ? h('span', { class: 'muted file' }, ` ${row.source_file}`) : null,
        h('span', { class: row.valid ? 'row-state ok' : 'row-state rejected' }, row.valid ? ' fixed' : ' rejected'),
        issuesOf(row, null).map((is) => h('span', { class: 'cell-issue' }, `${is.code}: ${is.message}`))),
      fields.map((f, i) => {
        const text = row.cells[f.name];
        const issues = issuesOf(row, f.name);
        const edited = row.edited.includes(f.name);
        return h('td', {
          role: 'gridcell', id: cellId(r, i + 1), tabindex: '-1', 'aria-colindex': String(i + 2),
          'aria-invalid': issues.length ? 'true' : null, class: [issues.length ? 'bad' : '', edited ? 'edited' : ''].join(' ').trim() || null,
        },
        text == null ? h('span', { class: 'muted' }, '(empty)') : h('span', { class: 'value' }, text),
        edited ? h('span', { class: 'edit-mark' }, ' edited') : null,
        issues.map((is) => h('span', { class: 'cell-issue' }, `${is.code}: ${is.message}`)));
      })))));
    table.addEventListener('keydown', onKey);
    table.addEventListener('click', (e) => {
      const cell = e.target.closest('[role=gridcell], [role=rowheader]');
      if (cell && !editing) place(cell);
    });
    grid.set(h('div', { class: 'table-wrap grid-wrap' }, table));
    document.getElementById(cellId(at.r, at.c))?.setAttribute('tabindex', '0');
  };

  // place moves the grid's focus to a cell (element, or its position).
  const place = (cell) => {
    const [, r, c] = cell.id.split('-').map(Number);
    document.getElementById(cellId(at.r, at.c))?.setAttribute('tabindex', '-1');
    at = { r, c };
    cell.setAttribute('tabindex', '0');
    cell.focus();
  };
  const move = (r, c) => {
    const cell = document.getElementById(cellId(Math.max(0, Math.min(rows.length - 1, r)), Math.max(0, Math.min(fields.length, c))));
    if (cell) place(cell);
  };

  function onKey(e) {
    if (editing) return; // the input handles its keys
    const moves = {
      ArrowUp: [at.r - 1, at.c], ArrowDown: [at.r + 1, at.c], ArrowLeft: [at.r, at.c - 1], ArrowRight: [at.r, at.c + 1],
      Home: e.ctrlKey ? [0, 0] : [at.r, 0], End: e.ctrlKey ? [rows.length - 1, fields.length] : [at.r, fields.length],
    };
    if (moves[e.key]) {
      e.preventDefault();
      move(...moves[e.key]);
    } else if ((e.key === 'Enter' || e.key === 'F2') && at.c > 0) {
      e.preventDefault();
      edit(at.r, at.c);
    }
  }

  // edit turns a cell into a text box: Enter saves (empty clears the
  // cell), Escape cancels; the focus comes back to the cell.
  const edit = (r, c) => {
    const row = rows[r];
    const field = fields[c - 1].name;
    const cell = document.getElementById(cellId(r, c));
    const input = h('input', { type: 'text', id: 'cell-editor', autocomplete: 'off', value: row.cells[field] ?? '',
      'aria-label': `${field} of row ${row.row} (empty clears the cell)` });
    editing = { r, c };
    cell.replaceChildren(input);
    input.focus();
    input.select();
    let saving = false;
    const back = () => { // the grid drawn again, the focus on the cell
      editing = null;
      draw();
      move(r, c);
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        state.textContent = `Row ${row.row}: ${field} left as it was.`;
        back();
      } else if (e.key === 'Enter' && !saving) {
        e.preventDefault();
        e.stopPropagation();
        saving = true;
        save(row, field, input.value === '' ? null : input.value).finally(back);
      }
    });
    input.addEventListener('blur', () => { // focus moved elsewhere: the edit is dropped
      if (!saving && editing?.r === r && editing?.c === c) {
        editing = null;
        draw();
      }
    });
  };

  // save stores one edit and shows the row as it now comes out.
  const save = async (row, field, value) => {
    message.set();
    try {
      const ans = await api.post(`${path}/edits`, { edits: [{ row: row.row, source_file: row.source_file, field, value }] });
      const d = ans.data[0];
      row.cells[field] = d.value;
      if (!row.edited.includes(field)) row.edited.push(field);
      row.issues = d.row_issues;
      row.valid = d.row_valid;
      const left = d.row_issues.filter((is) => is.severity === 'error');
      state.textContent = `Row ${row.row}: ${field} saved. ` + (d.row_valid ? 'The row is now valid.'
        : `The row still has ${left.length} issue${left.length === 1 ? '' : 's'}: ${left.map((is) => `${is.field ?? 'row'} ${is.code}`).join(', ')}.`);
      rerun.disabled = false;
    } catch (err) {
      message.set(problem(err));
      state.textContent = `Row ${row.row}: ${field} was not saved.`;
    }
  };

  const load = async (i) => {
    grid.set(h('p', { class: 'muted' }, 'Loading…'));
    const page = await api.get(`${path}/rejected-rows?limit=${PAGE}${cursors[i] ? `&cursor=${encodeURIComponent(cursors[i])}` : ''}`);
    pageAt = i;
    rows = page.data;
    if (page.next_cursor) cursors[i + 1] = page.next_cursor;
    at = { r: 0, c: 1 };
    draw();
    const first = i * PAGE;
    where.textContent = rows.length ? `Rows ${count(first + 1)}–${count(first + rows.length)} of ${count(total)} rejected` : '';
    prev.disabled = i === 0;
    next.disabled = !page.next_cursor;
  };
  const failed = (err) => grid.set(problem(err));
  prev.addEventListener('click', () => load(pageAt - 1).catch(failed));
  next.addEventListener('click', () => load(pageAt + 1).catch(failed));
  rerun.addEventListener('click', () => busy(rerun, async () => {
    try {
      const nextJob = await api.post(`${path}/rerun`, {});
      location.assign(`/jobs/${nextJob.id}`);
    } catch (err) {
      message.set(problem(err));
    }
  }));
  load(0).catch(failed);
  api.get(`${path}/edits?limit=1`).then((page) => { rerun.disabled = !page.data.length; }, () => {});
  return h('section', { 'aria-labelledby': 'cells-h', class: 'cells' },
    h('h2', { id: 'cells-h' }, 'Fix rejected rows'),
    h('p', { id: 'cells-help' }, 'Each rejected row as the file has it, the issue under each bad cell. Move with the arrow keys, press Enter to edit a cell and Enter again to save it (Escape cancels; an empty cell is cleared). Each change is checked at once; "Rerun with fixes" runs the job again with them.'),
    message, grid, state,
    h('p', { class: 'pager' }, prev, where, next),
    h('p', { class: 'actions' }, rerun));
}
