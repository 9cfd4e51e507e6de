// "All rows", on the page of a job that succeeded: the spreadsheet of
// every record (../sheet.js, the importer's own, in the importer's English
// words from ../sheet-en.json). A change there is the job's edit (or
// replacement); "Rerun with changes" runs the job again with them (POST
// …/rerun) and opens the rerun. "Back to columns" reruns the job to its
// review (POST …/rerun {"review":true}), whose page shows the matching.
import * as api from '../api.js';
import { busy, h, problem, slot } from '../ui.js';
import { formatter, sheet } from '../sheet.js';

let words = null; // the English messages, read once

export function spreadsheetPanel(path, job) {
  const fields = job.schema?.fields ?? [];
  if (!fields.length) return null;
  const box = slot({ id: 'spreadsheet' });
  const message = slot();
  const rerun = h('button', { type: 'button', id: 'sheet-rerun', disabled: true }, 'Rerun with changes');
  const call = (method, p, body) => api.call(method, p, body === undefined ? {} : { json: body });
  rerun.addEventListener('click', () => busy(rerun, async () => {
    try {
      const next = await call('POST', `${path}/rerun`, {});
      location.assign(`/jobs/${next.id}`);
    } catch (err) {
      message.set(problem(err));
    }
  }));
  (async () => {
    if (!words) {
      const res = await fetch('/assets/sheet-en.json');
      words = await res.json();
    }
    const grid = sheet({
      call, path, fields, t: formatter('en', words), issueText: (is) => is.message, id: 'sh',
      changed: () => { rerun.disabled = false; },
      back: async () => {
        const next = await call('POST', `${path}/rerun`, { review: true });
        location.assign(`/jobs/${next.id}`);
      },
    });
    box.set(grid.node, message, h('p', { class: 'actions' }, rerun));
    await grid.start();
    const edits = await call('GET', `${path}/edits?limit=1`);
    if (edits.data.length) rerun.disabled = false;
  })().catch((err) => box.set(problem(err)));
  return box;
}
