// The jobs list. It reads the list again every 2 seconds while a job on it
// is queued or running (every 10 seconds otherwise), so statuses stay
// live without holding one event stream per job.
import * as api from '../api.js';
import { count, h, problem, show, slot, status, table, when } from '../ui.js';

export const ACTIVE = ['queued', 'running'];

export function jobTitle(j) {
  return j.name || j.source.files.map((f) => f.filename).join(', ') || j.id;
}

function render(page, cursor) {
  const rows = table('Jobs', [
    ['Job', (j) => h('a', { href: `/jobs/${j.id}` }, jobTitle(j))],
    ['Mode', (j) => j.mode],
    ['Status', (j) => status(j.status)],
    ['Progress', (j) => `${j.progress.percent}%`],
    ['Valid rows', (j) => count(j.progress.rows_valid)],
    ['Rejected', (j) => count(j.progress.rows_rejected)],
    ['Created', (j) => when(j.created_at)],
  ], page.data, 'No jobs yet. Start one with New job.');
  const nav = h('p', { class: 'pager' },
    cursor ? h('a', { href: '/jobs' }, '← Newest jobs') : null,
    page.next_cursor ? h('a', { href: `/jobs?cursor=${encodeURIComponent(page.next_cursor)}` }, 'Older jobs →') : null);
  return [rows, nav];
}

export default async function jobs(main, { me }) {
  const cursor = new URLSearchParams(location.search).get('cursor');
  const path = `${api.jobsPath(me)}?limit=50` + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : '');
  const list = slot({ id: 'jobs-list' });
  show(main, 'Jobs', h('p', {}, h('a', { href: '/jobs/new', class: 'button' }, 'New job')), list);
  let last = '';
  const refresh = async () => {
    const page = await api.get(path);
    const seen = JSON.stringify(page);
    if (seen !== last) {
      last = seen;
      list.set(render(page, cursor));
    }
    return page.data.some((j) => ACTIVE.includes(j.status));
  };
  const again = (active) => setTimeout(() => refresh().then(again, (err) => {
    list.set(problem(err));
    again(false);
  }), active ? 2000 : 10000);
  again(await refresh());
}
