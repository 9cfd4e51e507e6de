// "All rows", on the page of a job that succeeded: the spreadsheet of
// every record (../sheet.js, the importer's own, in the importer's English
// words from ../sheet-en.json). A change there is the job's edit; "Back to
// columns" reruns the job to its review (POST …/rerun {"review":true}) and
// opens the rerun, whose page shows the column matching.
import * as api from '../api.js';
import { h, problem, slot } from '../ui.js';
import { formatter, sheet } from '../sheet.js';

let words = null; // the English messages, read once

export function spreadsheetPanel(path, job) {
  const fields = job.schema?.fields ?? [];
  if (!fields.length) return null;
  const box = slot({ id: 'spreadsheet' });
  const call = (method, p, body) => api.call(method, p, body === undefined ? {} : { json: body });
  (async () => {
    if (!words) {
      const res = await fetch('/assets/sheet-en.json');
      words = await res.json();
    }
    const grid = sheet({
      call, path, fields, t: formatter('en', words), issueText: (is) => is.message, id: 'sh',
      back: async () => {
        const rerun = await call('POST', `${path}/rerun`, { review: true });
        location.assign(`/jobs/${rerun.id}`);
      },
    });
    box.set(grid.node);
    await grid.start();
  })().catch((err) => box.set(problem(err)));
  return box;
}
