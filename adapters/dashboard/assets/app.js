// The dashboard's entry point. Every page is a full page load of the same
// HTML shell; this module finds the view for the path, checks the session
// with /auth/me (an expired one goes back to the login page), draws the
// header and the impersonation banner, and hands <main> to the view.
import * as api from './api.js';
import { h, notice, problem, show } from './ui.js';
import login from './views/login.js';
import jobs from './views/jobs.js';
import newJob from './views/newjob.js';
import job from './views/job.js';
import schemas from './views/schemas.js';
import connect from './views/connect.js';
import keys from './views/keys.js';
import audit from './views/audit.js';
import webhooks from './views/webhooks.js';
import hooks from './views/hooks.js';
import importSessions from './views/importsessions.js';
import destinations from './views/destinations.js';
import organizations from './views/organizations.js';
import sso from './views/sso.js';

// The same pages as dashboard.IsPage on the server.
const routes = [
  [/^\/(?:jobs)?$/, jobs],
  [/^\/jobs\/new$/, newJob],
  [/^\/jobs\/([A-Za-z0-9_]+)$/, job],
  [/^\/schemas$/, schemas],
  [/^\/connect$/, connect],
  [/^\/admin\/keys$/, keys],
  [/^\/admin\/audit$/, audit],
  [/^\/admin\/sso$/, sso],
  [/^\/webhooks$/, webhooks],
  [/^\/hooks$/, hooks],
  [/^\/import-sessions(?:\/(imp_[A-Za-z0-9]+))?$/, importSessions],
  [/^\/destinations$/, destinations],
  [/^\/staff\/organizations$/, organizations],
];

const main = document.getElementById('main');
const top = document.getElementById('top');

// report shows a failure of a header action above the page.
const report = (err) => main.prepend(problem(err));

function header(me) {
  // Uploads and saved schemas belong to normalize; connect explains itself
  // when the organization lacks it.
  const links = api.entitled(me, 'normalize')
    ? [['/jobs', 'Jobs'], ['/jobs/new', 'New job'], ['/schemas', 'Schemas'], ['/connect', 'Connect']]
    : [['/jobs', 'Jobs'], ['/connect', 'Connect']];
  links.push(['/webhooks', 'Webhooks']);
  if (api.entitled(me, 'normalize')) links.push(['/hooks', 'Hooks']);
  if (me.user.role === 'admin' && api.entitled(me, 'normalize')) links.push(['/import-sessions', 'Import sessions']);
  if (me.user.role === 'admin') links.push(['/destinations', 'Destinations'], ['/admin/keys', 'API keys'], ['/admin/audit', 'Audit log'], ['/admin/sso', 'Single sign-on']);
  if (me.user.is_staff && !me.impersonating) links.push(['/staff/organizations', 'Organizations']);
  const here = location.pathname === '/' ? '/jobs' : location.pathname;
  const current = (href) => here === href || (href === '/import-sessions' && here.startsWith('/import-sessions/')) || (href === '/jobs' && here.startsWith('/jobs/') && here !== '/jobs/new');
  const signOut = h('button', { type: 'button', id: 'sign-out', class: 'link' }, 'Sign out');
  signOut.addEventListener('click', () => api.logout()
    .then(() => location.assign('/login?signedout=1'), report));
  top.replaceChildren(
    h('a', { href: '/jobs', class: 'brand' }, 'tabnorm'),
    h('nav', { 'aria-label': 'Main' }, h('ul', {}, links.map(([href, label]) =>
      h('li', {}, h('a', { href, 'aria-current': current(href) ? 'page' : null }, label))))),
    h('div', { class: 'who' }, h('span', { id: 'who' }, `${me.user.email} · ${me.organization.name} · ${me.user.role}`), ' ', signOut));
}

// banner shows on every page while staff act as a customer.
function banner(me) {
  if (!me.impersonating) return;
  const stop = h('button', { type: 'button', id: 'stop-impersonating' }, 'Stop');
  stop.addEventListener('click', () => api.stopImpersonating()
    .then(() => location.assign('/staff/organizations'), report));
  document.getElementById('banner').replaceChildren(
    h('div', { class: 'impersonating', role: 'region', 'aria-label': 'Impersonation' },
      h('p', {}, 'You are acting as ', h('strong', {}, me.impersonating.organization_name), ' — ', stop)));
}

async function start() {
  if (location.pathname === '/login') {
    top.replaceChildren(h('span', { class: 'brand' }, 'tabnorm'));
    return login(main);
  }
  const me = await api.me();
  header(me);
  banner(me);
  const route = routes.find(([re]) => re.test(location.pathname));
  if (!route) return show(main, 'Not found', notice('info', h('p', {}, 'There is no such page. ', h('a', { href: '/jobs' }, 'Go to your jobs.'))));
  const params = location.pathname.match(route[0]).slice(1);
  return route[1](main, { me, params });
}

start().catch((err) => main.replaceChildren(problem(err)));
