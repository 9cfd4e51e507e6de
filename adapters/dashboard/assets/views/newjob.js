// Starting a job: a file (chosen or dropped), a mode, a target schema
// (saved or pasted) and options, sent as the multipart POST /v1/jobs.
import * as api from '../api.js';
import { busy, h, problem, show, slot } from '../ui.js';
import { fileField, modeField, nameField, optionsField, parseJSON, reviewField, schemaField } from '../forms.js';

export default async function newJob(main) {
  const saved = await api.get('/v1/schemas?limit=200');
  const file = fileField('file', 'File');
  const mode = modeField();
  const schema = schemaField(saved.data);
  const options = optionsField();
  const review = reviewField(mode.select);
  const name = nameField();
  const submit = h('button', { type: 'submit', id: 'start-job' }, 'Start job');
  const failure = slot();
  const form = h('form', { id: 'new-job' }, file.el, mode.el, schema.el, review.el, options.el, name.el, failure, h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      // Fields first, then the file, so the server knows them before the
      // upload streams in.
      const body = new FormData();
      body.append('mode', mode.select.value);
      for (const [k, v] of Object.entries(schema.value())) body.append(k, v);
      try {
        const opts = review.withReview(options.text.value.trim() ? parseJSON(options.text.value, 'options') : {});
        if (Object.keys(opts).length) body.append('options', JSON.stringify(opts));
        if (name.input.value.trim()) body.append('name', name.input.value.trim());
        body.append('file', file.input.files[0]);
        const j = await api.call('POST', '/v1/jobs', { form: body });
        location.assign(`/jobs/${j.id}`);
      } catch (err) {
        failure.set(problem(err));
      }
    });
  });
  show(main, 'New job', form);
}
