// Saved target schemas: the list, saving a new one, deleting one.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, show, slot, table, when } from '../ui.js';
import { parseJSON } from '../forms.js';
import { recentBatches, sampleFor, sampleForm } from './hooks.js';

// logic lists a schema's rules and computed fields (CEL expressions), and
// the fields that check a reference list.
function logic(schema) {
  const rules = schema.rules ?? [];
  const computed = (schema.fields ?? []).filter((f) => f.compute);
  const lists = (schema.fields ?? []).filter((f) => f.constraints?.inList);
  if (!rules.length && !computed.length && !lists.length) return 'none';
  const summary = [
    rules.length && `${rules.length} rule${rules.length > 1 ? 's' : ''}`,
    computed.length && `${computed.length} computed`,
    lists.length && `${lists.length} list check${lists.length > 1 ? 's' : ''}`,
  ].filter(Boolean).join(', ');
  return h('details', { class: 'schema-logic' }, h('summary', {}, summary),
    h('ul', {},
      ...rules.map((r) => h('li', { class: 'rule' }, h('strong', {}, r.name), ` (${r.severity ?? 'error'}`,
        r.fields?.length ? `, ${r.fields[0]}` : '', '): ', h('code', {}, r.expression), r.message ? ` — ${r.message}` : '')),
      ...computed.map((f) => h('li', { class: 'computed' }, h('strong', {}, f.name), ' = ', h('code', {}, f.compute))),
      ...lists.map((f) => h('li', { class: 'in-list' }, h('strong', {}, f.name), ' in list ', h('code', {}, f.constraints.inList)))));
}

// schemaHooks lists the validation hooks a schema names, each with its
// recent batches and, for admins, a button that tries it with a typed
// sample of the fields it is sent.
function schemaHooks(s, registered, admin, openTest) {
  const uses = s.schema.hooks ?? [];
  if (!uses.length) return 'none';
  return h('ul', { class: 'schema-hooks' }, uses.map((u, i) => {
    const hook = registered.find((hk) => hk.name === u.hook);
    const listed = u.fields?.length ? (s.schema.fields ?? []).filter((f) => u.fields.includes(f.name)) : (s.schema.fields ?? []);
    const test = hook && admin ? h('button', { type: 'button', class: 'link', id: `schema-hook-test-${s.id}-${i}` }, `Test ${u.hook} with a sample`) : null;
    test?.addEventListener('click', () => openTest(s, hook, listed));
    return h('li', {}, h('strong', {}, u.hook), ` (${u.fields?.length ? u.fields.join(', ') : 'every field'}; on error ${u.on_error ?? 'fail_job'})`,
      hook ? recentBatches(hook) : h('span', { class: 'muted' }, ' — no hook of this name is registered'), test);
  }));
}

export default async function schemas(main, { me } = {}) {
  const admin = me?.user.role === 'admin';
  const list = slot({ id: 'schemas-list' });
  const message = slot();
  const tester = slot({ id: 'schema-hook-test' });
  const openTest = (s, hook, fields) => {
    tester.set(h('section', { 'aria-labelledby': 'schema-hook-test-h' },
      h('h2', { id: 'schema-hook-test-h', tabindex: '-1' }, `Test ${hook.name} with a sample of ${s.name}`),
      h('p', { class: 'muted' }, 'A typed sample of the fields the schema sends this hook; change it as you like. Its answer is not applied to any job.'),
      sampleForm(hook, sampleFor(fields), 'schema-sample')));
    document.getElementById('schema-hook-test-h').focus();
  };
  const load = async () => {
    const [page, registered] = await Promise.all([api.get('/v1/schemas?limit=200'),
      api.get('/v1/hooks?limit=100').then((p) => p.data, () => [])]);
    list.set(table('Saved schemas', [
      ['Name', (s) => s.name],
      ['ID', (s) => h('code', {}, s.id)],
      ['Fields', (s) => h('details', {}, h('summary', {}, `${s.schema.fields?.length ?? 0} fields`),
        h('pre', { class: 'code' }, JSON.stringify(s.schema, null, 2)))],
      ['Rules', (s) => logic(s.schema)],
      ['Hooks', (s) => schemaHooks(s, registered, admin, openTest)],
      ['Created', (s) => when(s.created_at)],
      ['', (s) => {
        const del = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete schema ${s.name}` }, 'Delete');
        del.addEventListener('click', async () => {
          if (!await confirm(`Delete schema "${s.name}"?`, 'Jobs that used it keep their own copy.', 'Delete schema')) return;
          busy(del, () => api.del(`/v1/schemas/${s.id}`).then(load).catch((err) => message.set(problem(err))));
        });
        return del;
      }],
    ], page.data, 'No saved schemas yet.'));
  };

  const name = h('input', { type: 'text', id: 'schema-name', required: true, maxlength: '200' });
  const doc = h('textarea', { id: 'schema-json', rows: '10', required: true, spellcheck: 'false',
    placeholder: '{"fields":[{"name":"email","type":"string","format":"email","constraints":{"required":true}}]}' });
  const submit = h('button', { type: 'submit', id: 'save-schema' }, 'Save schema');
  const form = h('form', { id: 'new-schema' },
    h('p', {}, h('label', { for: 'schema-name' }, 'Name'), name),
    h('p', {}, h('label', { for: 'schema-json' }, 'Schema (JSON, a Table Schema)'), doc),
    h('p', {}, submit));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(submit, async () => {
      try {
        const s = await api.post('/v1/schemas', { name: name.value, schema: parseJSON(doc.value, 'schema') });
        message.set(notice('ok', h('p', {}, `Saved schema "${s.name}".`)));
        form.reset();
        await load();
      } catch (err) {
        message.set(problem(err));
      }
    });
  });

  show(main, 'Schemas', message, list, tester,
    h('section', { 'aria-labelledby': 'new-schema-h' }, h('h2', { id: 'new-schema-h' }, 'Save a schema'), form));
  await load();
}
