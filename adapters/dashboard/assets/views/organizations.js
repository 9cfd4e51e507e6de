// Staff: every organization, and acting as one (impersonation). While
// acting, the banner on every page offers to stop.
import * as api from '../api.js';
import { busy, h, notice, problem, show, slot, table, when } from '../ui.js';

export default async function organizations(main, { me }) {
  if (!me.user.is_staff) {
    return show(main, 'Organizations', notice('info', h('p', {}, 'Only service staff see every organization.')));
  }
  if (me.impersonating) {
    return show(main, 'Organizations', notice('info', h('p', {},
      `You are acting as ${me.impersonating.organization_name}. Stop in the banner above to see every organization.`)));
  }
  const message = slot();
  const list = slot({ id: 'organizations-list' });
  const rows = [];
  const more = h('button', { type: 'button', id: 'more-organizations' }, 'Show more');
  let cursor = null;
  const load = async () => {
    const page = await api.get(`/v1/admin/organizations?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    rows.push(...page.data);
    cursor = page.next_cursor;
    list.set(table('Organizations', [
      ['Name', (o) => o.name],
      ['ID', (o) => h('code', {}, o.id)],
      ['Products', (o) => o.products.join(', ') || '—'],
      ['Created', (o) => when(o.created_at)],
      ['', (o) => {
        const act = h('button', { type: 'button', id: `impersonate-${o.id}`, 'aria-label': `Impersonate ${o.name}` }, 'Impersonate');
        act.addEventListener('click', () => busy(act, () => api.impersonate(o.id)
          .then(() => location.assign('/jobs'), (err) => message.set(problem(err)))));
        return act;
      }],
    ], rows, 'No organizations.'), cursor ? more : null);
  };
  more.addEventListener('click', () => busy(more, () => load().catch((err) => message.set(problem(err)))));
  show(main, 'Organizations', h('p', { class: 'muted' },
    'Impersonating acts as an admin of the organization, with its products only. Both are audit-logged.'), message, list);
  await load();
}
