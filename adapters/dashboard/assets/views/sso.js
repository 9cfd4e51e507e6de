// Single sign-on (/admin/sso). Admins set their organization's OpenID
// Connect provider: the issuer, the client (its secret typed in once and
// never shown again), the e-mail domains that may come in, the role of
// people on their first sign-in, and whether passwords are still allowed
// (with one break-glass admin). Members are told to ask an admin.
import * as api from '../api.js';
import { busy, confirm, h, notice, problem, show, slot, when } from '../ui.js';

const field = (id, label, input, hint) => h('p', {}, h('label', { for: id }, label), input,
  hint ? h('span', { class: 'muted', id: `${id}-hint` }, hint) : null);

export default async function sso(main, { me }) {
  if (me.user.role !== 'admin') {
    return show(main, 'Single sign-on', notice('info', h('p', { id: 'sso-admins-only' },
      'Only organization admins see and change single sign-on.')));
  }
  const message = slot({ id: 'sso-message' });
  const state = slot({ id: 'sso-state' });
  let current = null;
  try {
    current = await api.get('/v1/sso');
  } catch (err) {
    if (err.code !== 'sso_not_configured') throw err;
  }
  const issuer = h('input', { type: 'url', id: 'sso-issuer', required: true, 'aria-describedby': 'sso-issuer-hint' });
  const clientID = h('input', { type: 'text', id: 'sso-client-id', required: true, autocomplete: 'off' });
  const secret = h('input', { type: 'password', id: 'sso-client-secret', autocomplete: 'new-password', 'aria-describedby': 'sso-client-secret-hint' });
  const domains = h('input', { type: 'text', id: 'sso-domains', required: true, placeholder: 'example.com, example.org', 'aria-describedby': 'sso-domains-hint' });
  const role = h('select', { id: 'sso-role' }, h('option', { value: 'member' }, 'Member'), h('option', { value: 'admin' }, 'Admin'));
  const required = h('input', { type: 'checkbox', id: 'sso-required', 'aria-describedby': 'sso-required-hint' });
  const breakGlass = h('input', { type: 'email', id: 'sso-break-glass', autocomplete: 'off', 'aria-describedby': 'sso-break-glass-hint' });
  const save = h('button', { type: 'submit', id: 'sso-save' }, 'Save');
  const remove = h('button', { type: 'button', id: 'sso-delete', class: 'danger' }, 'Remove single sign-on');

  const fill = (c) => {
    current = c;
    issuer.value = c?.issuer ?? '';
    clientID.value = c?.client_id ?? '';
    secret.value = '';
    secret.required = !c;
    domains.value = (c?.allowed_domains ?? []).join(', ');
    role.value = c?.default_role ?? 'member';
    required.checked = !!c?.required;
    breakGlass.value = c?.break_glass_user ?? '';
    remove.hidden = !c;
    state.set(c
      ? notice('ok', h('p', {}, 'Single sign-on is on since ', when(c.created_at), '; ', c.required ? 'passwords are refused to members.' : 'passwords still work.'),
        h('p', {}, 'Redirect URI to register at your provider: ', h('code', { id: 'sso-redirect-uri' }, c.redirect_uri)))
      : notice('info', h('p', {}, 'Single sign-on is off: everyone signs in with a password.')));
  };
  fill(current);

  const form = h('form', { id: 'sso-form', class: 'narrow' },
    field('sso-issuer', 'Issuer URL', issuer, 'Your provider\'s OpenID Connect issuer; its /.well-known/openid-configuration is read.'),
    field('sso-client-id', 'Client ID', clientID),
    field('sso-client-secret', 'Client secret', secret, 'Stored encrypted and never shown again; leave empty to keep the stored one.'),
    field('sso-domains', 'Allowed e-mail domains', domains, 'Comma-separated; only verified addresses of these domains sign in.'),
    field('sso-role', 'Role on first sign-in', role),
    h('p', {}, h('label', { for: 'sso-required', class: 'inline' }, required, ' Require single sign-on'),
      h('span', { class: 'muted', id: 'sso-required-hint' }, 'Members can no longer sign in with a password; staff and the break-glass admin still can.')),
    field('sso-break-glass', 'Break-glass admin (optional)', breakGlass, 'An admin\'s address whose password keeps working; each such sign-in is in the audit log.'),
    h('p', {}, save));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(save, async () => {
      try {
        const body = {
          issuer: issuer.value, client_id: clientID.value, allowed_domains: domains.value.split(',').map((d) => d.trim()).filter(Boolean),
          default_role: role.value, required: required.checked, break_glass_user: breakGlass.value,
        };
        if (secret.value) body.client_secret = secret.value;
        fill(await api.call('PUT', '/v1/sso', { json: body }));
        message.set(notice('ok', h('p', {}, 'Saved.')));
      } catch (err) {
        message.set(problem(err));
      }
    });
  });
  remove.addEventListener('click', () => busy(remove, async () => {
    if (!await confirm('Remove single sign-on?', 'Everyone will sign in with a password again; people made by single sign-on have none until one is reset.', 'Remove')) return;
    try {
      await api.del('/v1/sso');
      fill(null);
      message.set(notice('ok', h('p', {}, 'Single sign-on removed.')));
    } catch (err) {
      message.set(problem(err));
    }
  }));
  show(main, 'Single sign-on', state, message, form, h('p', {}, remove));
}
