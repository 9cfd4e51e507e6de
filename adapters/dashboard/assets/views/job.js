// One job: its facts, a progress bar fed by the job's event stream (SSE),
// cancel and delete, and once it has succeeded the column mapping, the
// rows and issues a page at a time, and the downloads.
import * as api from '../api.js';
import { busy, confirm, count, h, notice, problem, show, size, slot, status, table, when } from '../ui.js';
import { ACTIVE, jobTitle } from './jobs.js';
import { reviewPanel, why } from './review.js';
import { fixPanel } from './fix.js';
import { spreadsheetPanel } from './spreadsheet.js';

const PAGE = 25;

// follow calls progress for each event of a running job and done with the
// final job. A broken stream (network, restart, expired session) is
// replaced by reading the job, and followed again while it runs.
function follow(path, progress, done, failed) {
  const events = new EventSource(api.url(`${path}/events`), { withCredentials: true });
  for (const kind of ['job.queued', 'job.started', 'job.progress']) {
    events.addEventListener(kind, (e) => progress(JSON.parse(e.data)));
  }
  for (const kind of ['job.succeeded', 'job.failed', 'job.canceled']) {
    events.addEventListener(kind, (e) => {
      events.close();
      done(JSON.parse(e.data).job);
    });
  }
  // A job stopped for its review (review.js). The stream replays a job's
  // whole history, so the stop of a review already confirmed comes by too:
  // only a job that still awaits it is shown as such.
  events.addEventListener('job.awaiting_review', () => api.get(path).then((j) => {
    if (j.status !== 'awaiting_review') return;
    events.close();
    done(j);
  }, failed));
  events.addEventListener('error', () => {
    events.close();
    api.get(path).then((j) => {
      if (ACTIVE.includes(j.status)) setTimeout(() => follow(path, progress, done, failed), 2000);
      else done(j);
    }, failed);
  });
}

// pager shows one result (rows or issues) a page at a time; the API's
// cursors make any page as cheap as the first.
function pager(path, caption, columns) {
  const box = slot({ id: `${caption.toLowerCase()}-table` });
  const cursors = [null];
  let at = 0;
  // load draws page at; after a turn, focus stays on the button that
  // turned (or the table, when that button is now disabled).
  const load = async (turned) => {
    const c = cursors[at];
    const page = await api.get(`${path}?format=json&limit=${PAGE}${c ? `&cursor=${encodeURIComponent(c)}` : ''}`);
    cursors[at + 1] = page.next_cursor;
    const buttons = {
      prev: h('button', { type: 'button', disabled: at === 0 }, '← Previous'),
      next: h('button', { type: 'button', disabled: !page.next_cursor }, 'Next →'),
    };
    const turn = (step, which) => {
      at += step;
      load(which).catch((err) => box.set(problem(err)));
    };
    buttons.prev.addEventListener('click', () => turn(-1, 'prev'));
    buttons.next.addEventListener('click', () => turn(1, 'next'));
    const cols = typeof columns === 'function' ? columns(page.data) : columns;
    const paged = at > 0 || page.next_cursor;
    box.set(table(caption, cols, page.data, `No ${caption.toLowerCase()}.`),
      paged ? h('p', { class: 'pager' }, h('span', { class: 'muted' }, `Page ${at + 1}`), ' ', buttons.prev, ' ', buttons.next) : null);
    const focus = buttons[turned];
    if (focus) (focus.disabled ? box.querySelector('.table-wrap') : focus).focus();
  };
  return { el: box, load };
}

function cellText(v) {
  if (v == null) return h('span', { class: 'muted' }, '—');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function rowColumns(j) {
  return (rows) => {
    const names = j.schema?.fields?.map((f) => f.name) ?? Object.keys(rows[0] ?? {});
    return names.map((n) => [n, (r) => cellText(r[n])]);
  };
}

// fileColumn names the file a row of a table belongs to, when the job
// read several (each with its own header and its own issues).
function fileColumn(j) {
  if (j.source.files.length < 2) return null;
  const names = Object.fromEntries(j.source.files.map((f) => [f.id, f.filename]));
  return ['File', (x) => names[x.source_file] ?? cellText(x.source_file)];
}

function issueColumns(j) {
  return [
    fileColumn(j),
    ['Row', (i) => i.row], ['Column', (i) => cellText(i.column)], ['Field', (i) => cellText(i.field)],
    ['Severity', (i) => i.severity], ['Code', (i) => h('code', {}, i.code)], ['Message', (i) => i.message],
    ['Value', (i) => cellText(i.value)],
  ].filter(Boolean);
}

function downloads(path) {
  const link = (what, format, label) => h('li', {}, h('a', {
    href: api.url(`${path}/${what}?format=${format}`), download: '', id: `download-${what}-${format}`,
  }, label));
  return h('section', { 'aria-labelledby': 'downloads-h' }, h('h2', { id: 'downloads-h' }, 'Downloads'),
    h('ul', { class: 'downloads' },
      link('rows', 'xlsx', 'Download as Excel'), link('errors', 'xlsx', 'Download errors as Excel'),
      link('rows', 'csv', 'Rows as CSV'), link('rows', 'jsonl', 'Rows as JSON lines'),
      link('rows', 'parquet', 'Rows as Parquet'),
      link('errors', 'csv', 'Issues as CSV'), link('errors', 'jsonl', 'Issues as JSON lines')));
}

function mapping(j) {
  if (!j.mapping?.length) return null;
  return h('section', { 'aria-labelledby': 'mapping-h' }, h('h2', { id: 'mapping-h' }, 'Column mapping'),
    table('Column mapping', [
      fileColumn(j), ['Source column', (m) => m.source_column], ['Field', (m) => cellText(m.field)],
      ['Method', (m) => m.method ?? '—'], ['Confidence', (m) => (m.confidence == null ? '—' : `${Math.round(m.confidence * 100)}%`)],
      ['Evidence', (m) => why(m.evidence) || '—'],
    ].filter(Boolean), j.mapping));
}

function facts(j) {
  const file = j.source.files.map((f) => `${f.filename} (${f.format}, ${size(f.size_bytes)})`).join(', ');
  const row = (term, value) => [h('dt', {}, term), h('dd', {}, value)];
  return h('dl', { class: 'facts' },
    row('ID', h('code', {}, j.id)), row('Mode', j.mode), row(j.source.type === 'connect' ? 'Files' : 'File', file || '—'),
    j.source.rerun_of ? row('Rerun of', h('a', { href: `/jobs/${j.source.rerun_of}`, id: 'rerun-of' }, j.source.rerun_of)) : null,
    row('Created', when(j.created_at)), row('Started', when(j.started_at)), row('Finished', when(j.finished_at)),
    row('Attempts', String(j.attempts)));
}

export default async function job(main, { me, params: [id] }) {
  const path = `${api.jobsPath(me)}/${id}`;
  const j = await api.get(path);
  const bar = h('div', { class: 'bar' });
  const meter = h('div', { class: 'progress', role: 'progressbar', id: 'progress', 'aria-labelledby': 'progress-h',
    'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0' }, bar);
  const line = h('p', { id: 'progress-text' });
  const state = h('p', { id: 'job-status', 'aria-live': 'polite' });
  const about = slot();
  const actions = slot({ class: 'actions' });
  const outcome = slot({ id: 'outcome' });
  const message = slot();
  show(main, jobTitle(j), message, about,
    h('section', { 'aria-labelledby': 'progress-h' }, h('h2', { id: 'progress-h' }, 'Progress'), state, meter, line),
    actions, outcome);

  let shown = '';
  const progress = (s, p) => {
    meter.setAttribute('aria-valuenow', String(p.percent));
    meter.setAttribute('aria-valuetext', `${p.percent}%, ${s}`);
    bar.style.width = `${p.percent}%`;
    line.textContent = `${count(p.rows_read)} rows read · ${count(p.rows_valid)} valid · ${count(p.rows_rejected)} rejected · ${p.percent}%`;
    if (s !== shown) { // only a change of status is read out, not every tick
      shown = s;
      state.replaceChildren('Status: ', status(s));
    }
  };
  const failed = (err) => message.set(problem(err));

  const cancel = h('button', { type: 'button', id: 'cancel-job' }, 'Cancel job');
  const remove = h('button', { type: 'button', id: 'delete-job', class: 'danger' }, 'Delete job');
  cancel.addEventListener('click', () => busy(cancel, async () => {
    try {
      render(await api.post(`${path}/cancel`));
    } catch (err) {
      failed(err);
    }
  }));
  remove.addEventListener('click', async () => {
    const sure = await confirm('Delete this job?', 'The uploaded file, the rows and the issues are deleted. This cannot be undone.', 'Delete job');
    if (!sure) return;
    busy(remove, async () => {
      try {
        await api.del(path);
        location.assign('/jobs');
      } catch (err) {
        failed(err);
      }
    });
  });

  function render(v) {
    progress(v.status, v.progress);
    about.set(facts(v));
    actions.set(ACTIVE.includes(v.status) || v.status === 'awaiting_review' ? cancel : null, remove);
    if (v.status === 'awaiting_review') { // review.js; once confirmed, the job runs and is followed again
      outcome.set(reviewPanel(path, v, (queued) => {
        render(queued);
        follow(path, (e) => progress(e.status, e.progress), render, failed);
      }));
    } else if (v.status === 'failed') {
      outcome.set(notice('error', h('p', {}, h('strong', {}, v.error.code), ': ', v.error.message)), mapping(v));
    } else if (v.status === 'succeeded') {
      const r = v.result;
      const rows = pager(`${path}/rows`, 'Rows', rowColumns(v));
      const issues = pager(`${path}/errors`, 'Issues', issueColumns(v));
      outcome.set(
        notice('ok', h('p', { id: 'result-summary' }, `${count(r.row_count)} valid rows, ${count(r.rejected_count)} rejected, ${count(r.issue_count)} issues.`),
          r.issues_truncated ? h('p', {}, 'The issue report stopped at max_errors; more rows had issues.') : null),
        spreadsheetPanel(path, v), downloads(path), fixPanel(path, v), mapping(v),
        h('section', { 'aria-labelledby': 'rows-h' }, h('h2', { id: 'rows-h' }, 'Rows'), rows.el),
        h('section', { 'aria-labelledby': 'issues-h' }, h('h2', { id: 'issues-h' }, 'Issues'), issues.el),
        r.inferred_schema ? h('section', { 'aria-labelledby': 'inferred-h' }, h('h2', { id: 'inferred-h' }, 'Inferred schema'),
          h('pre', { class: 'code', tabindex: '0' }, JSON.stringify(r.inferred_schema, null, 2))) : null);
      rows.load().catch(failed);
      issues.load().catch(failed);
    } else {
      outcome.set(mapping(v));
    }
  }

  render(j);
  if (ACTIVE.includes(j.status)) follow(path, (e) => progress(e.status, e.progress), render, failed);
}
