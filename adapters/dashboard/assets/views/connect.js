// The connect product (API.md §8): a library of uploaded files, and jobs
// that read several of them in order as one table. Organizations without
// connect get an explanation instead.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, show, size, slot, table, when } from '../ui.js';
import { fileField, modeField, nameField, optionsField, parseJSON, reviewField, schemaField } from '../forms.js';

function unavailable(main) {
  show(main, 'Connect', notice('info', h('p', { id: 'connect-unavailable' },
    'Your organization does not have the connect product; ask your account team to enable it. ',
    'Connect keeps a library of your files and runs one job over several of them, read in order as one table.')));
}

export default async function connect(main, { me }) {
  if (!api.entitled(me, 'connect')) return unavailable(main);
  let files = { data: [] };
  // Saved schemas belong to normalize: without it, a schema is pasted.
  const saved = api.entitled(me, 'normalize') ? await api.get('/v1/schemas?limit=200') : { data: [] };
  const message = slot();
  const list = slot({ id: 'files-list' });
  // chosen keeps the order in which files were ticked: the job reads them
  // in that order.
  let chosen = [];
  const order = h('p', { id: 'chosen-files', 'aria-live': 'polite' });
  const showOrder = () => {
    const names = chosen.map((id) => files.data.find((f) => f.id === id)?.filename);
    order.textContent = names.length ? `Read in this order: ${names.join(', ')}` : 'Tick the files to read, in order.';
  };
  const load = async () => {
    files = await api.get('/v1/connect/files?limit=200');
    chosen = chosen.filter((id) => files.data.some((f) => f.id === id));
    list.set(table('Files', [
      ['Use', (f) => {
        const box = h('input', { type: 'checkbox', id: `pick-${f.id}`, checked: chosen.includes(f.id), 'aria-label': `Use ${f.filename}` });
        box.addEventListener('change', () => {
          chosen = box.checked ? [...chosen, f.id] : chosen.filter((id) => id !== f.id);
          showOrder();
        });
        return box;
      }],
      ['File', (f) => f.filename], ['Format', (f) => f.format], ['Size', (f) => size(f.size_bytes)],
      ['Uploaded', (f) => when(f.created_at)],
      ['', (f) => {
        const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${f.filename}` }, 'Delete');
        del.addEventListener('click', async () => {
          if (!await confirm(`Delete "${f.filename}"?`, 'Jobs already made from it keep their results.', 'Delete file')) return;
          busy(del, () => api.del(`/v1/connect/files/${f.id}`).then(load).catch((err) => message.set(problem(err))));
        });
        return del;
      }],
    ], files.data, 'No files yet. Upload some below.'));
    showOrder();
  };

  const upload = fileField('connect-file', 'Files to add', { multiple: true });
  const send = h('button', { type: 'submit', id: 'upload-files' }, 'Upload');
  const uploadForm = h('form', { id: 'upload-form' }, upload.el, h('p', {}, send));
  uploadForm.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(send, async () => {
      try {
        for (const file of upload.input.files) { // one file a request (§8)
          const body = new FormData();
          body.append('file', file);
          await api.call('POST', '/v1/connect/files', { form: body });
        }
        uploadForm.reset();
        upload.input.dispatchEvent(new Event('change'));
        await load();
      } catch (err) {
        message.set(problem(err));
      }
    });
  });

  const mode = modeField();
  const schema = schemaField(saved.data);
  const options = optionsField();
  const review = reviewField(mode.select);
  const name = nameField();
  const start = h('button', { type: 'submit', id: 'start-connect-job' }, 'Start connect job');
  const jobForm = h('form', { id: 'connect-job' }, order, mode.el, schema.el, review.el, options.el, name.el, h('p', {}, start));
  jobForm.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(start, async () => {
      try {
        const req = { file_ids: chosen, mode: mode.select.value };
        const s = schema.value();
        if (s.schema_id) req.schema_id = s.schema_id;
        if (s.schema !== undefined) req.schema = parseJSON(s.schema, 'schema');
        const opts = review.withReview(options.text.value.trim() ? parseJSON(options.text.value, 'options') : {});
        if (Object.keys(opts).length) req.options = opts;
        if (name.input.value.trim()) req.name = name.input.value.trim();
        const j = await api.post('/v1/connect/jobs', req);
        location.assign(`/jobs/${j.id}`);
      } catch (err) {
        message.set(problem(err));
      }
    });
  });

  try {
    await load();
  } catch (err) {
    // The API has the last word: entitlements can change under a page.
    if (err.code === 'forbidden_entitlement_missing') return unavailable(main);
    throw err;
  }
  show(main, 'Connect', message,
    h('section', { 'aria-labelledby': 'files-h' }, h('h2', { id: 'files-h' }, 'Your files'), list),
    h('section', { 'aria-labelledby': 'upload-h' }, h('h2', { id: 'upload-h' }, 'Add files'), uploadForm),
    h('section', { 'aria-labelledby': 'connect-job-h' }, h('h2', { id: 'connect-job-h' }, 'Start a job over several files'), jobForm));
}
