// Profiles: cards with icon and colour; create, edit, delete in a sheet with the icon, the colour,
// and pickers of the installed apps, app categories, the catalog's services and categories,
// domains and imported lists.
import {del, enc, get, patch, post} from './api.js';
import {act, badge, count, failureText, h, replace, toast} from './dom.js';

let grid;

export async function render(view, app) {
  grid = h('div', {class: 'grid'});
  const create = h('button', {id: 'new-profile', class: 'primary', onclick: () => editor(null)}, 'New profile');
  replace(view, h('div', {class: 'toolbar'}, h('p', {class: 'muted'}, 'System profiles come with SimplyLock; yours can be edited.'), create), grid);
  await refresh();
}

export async function onEvent(event) {
  if (event.type === 'profiles.changed' || event.type === 'hello') await refresh();
}

async function refresh() {
  try {
    const list = await get('/v1/profiles');
    replace(grid, list.profiles.map(profileCard), list.problems.map((p) => h('p', {class: 'error'}, p)));
  } catch (error) {
    replace(grid, h('p', {class: 'error', role: 'alert'}, failureText(error)));
  }
}

function profileCard(profile) {
  const name = profile.displayName ?? profile.name;
  const parts = [];
  if (profile.domainCount) parts.push(count(profile.domainCount, 'domain'));
  if (profile.appCount) parts.push(count(profile.appCount, 'app'));
  if (profile.lists.length) parts.push(count(profile.lists.length, 'list'));
  const problem = h('div', {class: 'problem'});
  const actions = h('div', {class: 'actions'},
    h('button', {class: 'secondary', id: `edit-${profile.name}`, 'aria-label': `${profile.kind === 'custom' ? 'Edit' : 'View'} ${name}`, onclick: () => editor(profile.name)},
      profile.kind === 'custom' ? 'Edit' : 'View'));
  if (profile.kind === 'custom') {
    const remove = h('button', {class: 'secondary danger-text', id: `delete-${profile.name}`, 'aria-label': `Delete ${name}`, onclick: () => {
      if (!confirm(`Delete the profile ${name}?`)) return;
      act(remove, problem, () => del(`/v1/profiles/${enc(profile.name)}`), `${name}: deleted`);
    }}, 'Delete');
    actions.append(remove);
  }
  return h('article', {class: 'card profile', style: {'--tint': profile.color ?? ''}, 'aria-labelledby': `profile-${profile.name}`},
    h('div', {class: 'session-head'}, badge(profile),
      h('div', {class: 'session-title'}, h('h2', {id: `profile-${profile.name}`}, name),
        h('p', {class: 'muted small'}, profile.kind === 'system' ? 'System' : 'Yours', profile.strict ? h('span', {class: 'tag strict'}, 'Strict') : null))),
    profile.description ? h('p', {class: 'small'}, profile.description) : null,
    h('p', {class: 'muted small'}, parts.join(' · ') || 'blocks nothing yet'),
    actions, problem);
}

const icons = [['brain.head.profile', 'Brain'], ['gamecontroller', 'Game controller'], ['newspaper', 'Newspaper'], ['cart', 'Cart'],
  ['person.2', 'People'], ['play.rectangle', 'Video'], ['lock', 'Lock']];
const colors = [['#FF3B30', 'Red'], ['#FF9500', 'Orange'], ['#34C759', 'Green'], ['#007AFF', 'Blue'], ['#5856D6', 'Indigo'], ['#AF52DE', 'Purple'], ['#FF2D55', 'Pink']];

/** The editor sheet; `name` null creates a profile. */
async function editor(name) {
  const dialog = document.getElementById('sheet');
  const body = h('div', {class: 'sheet-body'}, h('p', {class: 'muted'}, 'Loading…'));
  replace(dialog, body);
  dialog.setAttribute('aria-labelledby', 'sheet-title');
  dialog.showModal();
  let profile, services, apps, lists;
  try {
    [profile, services, apps, lists] = await Promise.all([
      name ? get(`/v1/profiles/${enc(name)}`) : null, get('/v1/services'), get('/v1/apps'), get('/v1/lists')]);
  } catch (error) {
    replace(body, h('p', {class: 'error', role: 'alert'}, failureText(error)),
      h('div', {class: 'actions'}, h('button', {class: 'secondary', onclick: () => dialog.close()}, 'Close')));
    return;
  }
  const readOnly = profile?.kind === 'system';
  const field = (id, label, input, note) => h('div', {class: 'field'}, h('label', {for: id}, label), input, note ? h('p', {class: 'muted small', id: id + '-note'}, note) : null);
  const idInput = h('input', {id: 'pf-name', required: true, pattern: '[a-z0-9][a-z0-9\\-]*', value: profile?.name ?? '', disabled: !!profile, autocomplete: 'off', 'aria-describedby': 'pf-name-note'});
  const display = h('input', {id: 'pf-display', value: profile?.displayName ?? '', disabled: readOnly});
  const description = h('input', {id: 'pf-description', value: profile?.description ?? '', disabled: readOnly});
  const iconSelect = h('select', {id: 'pf-icon', disabled: readOnly}, choices(icons, profile, profile?.icon).map(([i, label]) => h('option', {value: i, selected: (profile?.icon ?? '') === i}, label)));
  const colorSelect = h('select', {id: 'pf-color', disabled: readOnly}, choices(colors, profile, profile?.color).map(([c, label]) => h('option', {value: c, selected: (profile?.color ?? '') === c}, label)));
  const domains = h('textarea', {id: 'pf-domains', rows: 4, disabled: readOnly, 'aria-describedby': 'pf-domains-note'}, (profile?.domains ?? []).join('\n'));
  const strict = h('input', {type: 'checkbox', id: 'pf-strict', checked: profile?.strict ?? false, disabled: readOnly});
  const picked = {
    services: new Set(profile?.services ?? []),
    categories: new Set(profile?.categories ?? []),
    apps: new Set(profile?.apps ?? []),
    appCategories: new Set(profile?.appCategories ?? []),
    lists: new Set(profile?.lists ?? []),
  };
  const checks = (key, items, legend) => h('fieldset', {class: 'checks'}, h('legend', {}, legend),
    items.length ? items.map(([value, label, note]) => {
      const id = `pf-${key}-${value}`.replace(/[^A-Za-z0-9_-]/g, '_');
      return h('div', {class: 'check'},
        h('input', {type: 'checkbox', id, value, checked: picked[key].has(value), disabled: readOnly,
          onchange: (e) => (e.target.checked ? picked[key].add(value) : picked[key].delete(value))}),
        h('label', {for: id}, label, note ? h('span', {class: 'muted small'}, ' ' + note) : null));
    }) : h('p', {class: 'muted small'}, 'none available'));
  const appFilter = h('input', {id: 'pf-app-filter', type: 'search', placeholder: 'Filter apps', 'aria-label': 'Filter apps'});
  const appList = h('div', {class: 'app-picker'});
  const visibleApps = apps.apps.filter((a) => !a.hidden);
  const drawApps = () => {
    const term = appFilter.value.toLowerCase();
    const shown = visibleApps.filter((a) => !term || a.name.toLowerCase().includes(term) || a.id.includes(term) || a.categories.join(' ').toLowerCase().includes(term));
    replace(appList, checks('apps', shown.map((a) => [a.id, h('span', {class: 'app-row'}, appBadge(a), a.name), a.categories.filter(notGeneric).join(', ')]), 'Apps'));
  };
  appFilter.addEventListener('input', drawApps);
  drawApps();
  // The profile's own app categories are offered too, so one without an installed app can be taken out.
  const appCategories = [...new Set([...visibleApps.flatMap((a) => a.categories).filter(notGeneric), ...(profile?.appCategories ?? [])])].sort();
  const problem = h('div', {class: 'problem'});
  const save = h('button', {type: 'submit', class: 'primary', id: 'pf-save', hidden: readOnly}, profile ? 'Save' : 'Create');
  const form = h('form', {class: 'editor', onsubmit: (e) => {
    e.preventDefault();
    const list = domains.value.split(/[\s,]+/).map((d) => d.trim()).filter(Boolean);
    if (!profile) {
      const request = {name: idInput.value.trim(), displayName: display.value.trim() || undefined, description: description.value.trim() || undefined,
        icon: iconSelect.value, color: colorSelect.value, domains: list, services: [...picked.services], categories: [...picked.categories], allow: [],
        apps: [...picked.apps], appCategories: [...picked.appCategories], lists: [...picked.lists], strict: strict.checked};
      act(save, problem, () => post('/v1/profiles', request), `${request.displayName ?? request.name}: created`).then((r) => r && dialog.close());
      return;
    }
    const request = {...diff('Domains', profile.domains, list), ...diff('Services', profile.services, [...picked.services]),
      ...diff('Apps', profile.apps, [...picked.apps]), ...diff('AppCategories', profile.appCategories, [...picked.appCategories]),
      ...diff('Lists', profile.lists, [...picked.lists]), ...diff('Categories', profile.categories, [...picked.categories])};
    if (iconSelect.value !== (profile.icon ?? '')) request.icon = iconSelect.value;
    if (colorSelect.value !== (profile.color ?? '')) request.color = colorSelect.value;
    if (display.value.trim() !== (profile.displayName ?? '')) request.displayName = display.value.trim();
    if (description.value.trim() !== (profile.description ?? '')) request.description = description.value.trim();
    if (strict.checked !== profile.strict) request.strict = strict.checked;
    act(save, problem, () => patch(`/v1/profiles/${enc(profile.name)}`, request), `${profile.displayName ?? profile.name}: saved`).then((r) => r && dialog.close());
  }},
    h('h2', {id: 'sheet-title'}, profile ? `${readOnly ? '' : 'Edit '}${profile.displayName ?? profile.name}` : 'New profile'),
    readOnly ? h('p', {class: 'muted'}, 'A system profile: it can be started, not changed. Create your own to change what it blocks.') : null,
    h('div', {class: 'row'},
      field('pf-name', 'Name (id)', idInput, 'lowercase letters, digits and dashes'),
      field('pf-display', 'Display name', display)),
    field('pf-description', 'Description', description),
    h('div', {class: 'row'}, field('pf-icon', 'Icon', iconSelect), field('pf-color', 'Colour', colorSelect)),
    field('pf-domains', 'Domains', domains, 'one per line; a domain blocks itself and every name under it'),
    checks('services', services.services.map((sv) => [sv.name, sv.displayName, sv.categories.join(', ')]), 'Services'),
    checks('categories', services.categories.map((c) => [c.name, c.name, c.description]), 'Catalog categories'),
    h('div', {class: 'field'}, appFilter), appList,
    checks('appCategories', appCategories.map((c) => [c, c]), 'App categories'),
    checks('lists', lists.lists.map((l) => [l.name, l.name, `${l.names} names`]), 'Imported lists'),
    h('div', {class: 'field inline'}, strict, h('label', {for: 'pf-strict'}, 'Strict by default')),
    problem,
    h('div', {class: 'actions sticky'}, save, h('button', {type: 'button', class: 'secondary', onclick: () => dialog.close()}, readOnly ? 'Close' : 'Cancel')));
  replace(body, form);
  (profile ? display : idInput).focus();
}

/** An app's icon from its desktop entry (served by the UI server), over its initial until it loads. */
function appBadge(app) {
  const el = badge({name: app.name, color: colorFor(app.id)});
  const img = h('img', {src: '/icons/app/' + encodeURIComponent(app.id), alt: '', width: 24, height: 24, loading: 'lazy'});
  img.addEventListener('load', () => el.classList.add('has-icon'));
  img.addEventListener('error', () => img.remove());
  el.append(img);
  return el;
}

/** The icon or colour choices for a profile: its own value first when it is not one of them, and "None" when it has none. */
function choices(options, profile, current) {
  if (!profile) return options;
  if (!current) return [['', 'None'], ...options];
  return options.some(([value]) => value === current) ? options : [[current, current], ...options];
}

function diff(key, before, after) {
  const add = after.filter((x) => !before.includes(x));
  const remove = before.filter((x) => !after.includes(x));
  const result = {};
  if (add.length) result['add' + key] = add;
  if (remove.length) result['remove' + key] = remove;
  return result;
}

function notGeneric(category) {
  return !['GTK', 'Qt', 'KDE', 'GNOME', 'X-GNOME-Utilities'].includes(category);
}

function colorFor(id) {
  let hash = 0;
  for (const c of id) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return colors[hash % colors.length][0];
}

export {toast};
