// Settings: schedules (add, edit, enable, next starts), allowances, goals, friction,
// notifications, theme.
import {del, enc, get, patch, post} from './api.js';
import {act, card, duration, failureText, h, replace, timeOfDay} from './dom.js';
import {applyTheme} from './theme.js';

let parts;
let profiles = [];

export async function render(view) {
  parts = {schedules: h('div'), allowances: h('div'), goals: h('div'), friction: h('div')};
  replace(view,
    card('Schedules', parts.schedules),
    h('div', {class: 'row'}, card('Goals', parts.goals), card('Theme', theme())),
    card('Allowances', parts.allowances),
    h('div', {class: 'row'}, card('Emergency access', parts.friction), card('Notifications', notifications())));
  try {
    profiles = (await get('/v1/profiles')).profiles;
  } catch {
    profiles = [];
  }
  await Promise.all([schedules(), allowances(), goals(), friction()]);
}

export async function onEvent(event) {
  if (event.type === 'profiles.changed' || event.type === 'schedule.warning') await schedules();
}

const errorText = (where, error) => replace(where, h('p', {class: 'error', role: 'alert'}, failureText(error)));
const field = (id, label, input, note) => h('div', {class: 'field'}, h('label', {for: id}, label), input, note ? h('p', {class: 'muted small'}, note) : null);
const profileSelect = (id, chosen) => h('select', {id}, profiles.map((p) => h('option', {value: p.name, selected: p.name === chosen}, p.displayName ?? p.name)));

async function schedules() {
  let list;
  try {
    list = await get('/v1/schedules');
  } catch (error) {
    return errorText(parts.schedules, error);
  }
  const nexts = await Promise.all(list.schedules.map((sc) => get(`/v1/schedules/${enc(sc.name)}/next?count=3`).catch(() => [])));
  const rows = list.schedules.map((sc, index) => {
    const problem = h('div', {class: 'problem'});
    const toggle = h('input', {type: 'checkbox', id: `sched-enabled-${sc.name}`, checked: sc.enabled, onchange: () =>
      act(toggle, problem, () => patch(`/v1/schedules/${enc(sc.name)}`, {enabled: toggle.checked}), `${sc.name}: ${toggle.checked ? 'enabled' : 'disabled'}`)
        .then((r) => { if (!r) toggle.checked = !toggle.checked; })});
    const edit = h('button', {class: 'secondary', id: `sched-edit-${sc.name}`, 'aria-label': `Edit schedule ${sc.name}`, onclick: () => scheduleSheet(sc)}, 'Edit');
    const remove = h('button', {class: 'secondary danger-text', id: `sched-delete-${sc.name}`, 'aria-label': `Delete schedule ${sc.name}`, onclick: () => {
      if (confirm(`Delete the schedule ${sc.name}?`)) act(remove, problem, () => del(`/v1/schedules/${enc(sc.name)}`), `${sc.name}: deleted`).then(schedules);
    }}, 'Delete');
    const next = nexts[index].map((i) => `${timeOfDay(i.start)}–${new Date(i.end).toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'})}`);
    return h('li', {class: 'schedule'},
      h('div', {class: 'grow'}, h('strong', {}, sc.name), ' ', h('span', {class: 'muted'}, '→ ' + sc.profile),
        sc.strict ? h('span', {class: 'tag strict'}, 'Strict') : null, sc.active ? h('span', {class: 'tag live'}, 'Active') : null,
        h('br'), h('span', {class: 'small'}, sc.summary),
        h('br'), h('span', {class: 'muted small'}, sc.enabled ? (next.length ? 'Next: ' + next.join(', ') : 'No start ahead') : 'Disabled'),
        sc.problem ? h('p', {class: 'error small'}, sc.problem) : null),
      h('div', {class: 'field inline'}, toggle, h('label', {for: toggle.id}, 'Enabled')), edit, remove, problem);
  });
  const add = h('button', {class: 'primary', id: 'sched-add', onclick: () => scheduleSheet(null)}, 'Add schedule');
  replace(parts.schedules, rows.length ? h('ul', {class: 'list'}, rows) : h('p', {class: 'empty'}, 'No schedules yet.'), h('div', {class: 'actions'}, add));
}

/** Add (null) or edit a weekly schedule. */
function scheduleSheet(sc) {
  const dialog = document.getElementById('sheet');
  const name = h('input', {id: 'sc-name', value: sc?.name ?? '', disabled: !!sc, required: true, autocomplete: 'off'});
  const profile = profileSelect('sc-profile', sc?.profile);
  const days = h('input', {id: 'sc-days', value: sc?.days ?? 'mon-fri', required: true});
  const from = h('input', {id: 'sc-from', type: 'time', value: sc?.from ?? '09:00', required: true});
  const to = h('input', {id: 'sc-to', type: 'time', value: sc?.to ?? '12:00', required: true});
  const strict = h('input', {type: 'checkbox', id: 'sc-strict', checked: sc?.strict ?? false});
  const problem = h('div', {class: 'problem'});
  const save = h('button', {type: 'submit', class: 'primary', id: 'sc-save'}, sc ? 'Save' : 'Add');
  const weekly = !sc || sc.kind === 'weekly' || sc.days;
  replace(dialog, h('form', {class: 'editor', onsubmit: (e) => {
    e.preventDefault();
    const body = {profile: profile.value, days: days.value.trim(), from: from.value, to: to.value, strict: strict.checked};
    const request = sc ? () => patch(`/v1/schedules/${enc(sc.name)}`, body) : () => post('/v1/schedules', {name: name.value.trim(), ...body});
    act(save, problem, request, `${sc?.name ?? name.value}: saved`).then((r) => { if (r) { dialog.close(); schedules(); } });
  }},
    h('h2', {id: 'sheet-title'}, sc ? `Edit schedule ${sc.name}` : 'Add a schedule'),
    weekly ? null : h('p', {class: 'muted'}, `This schedule is written as ${sc.summary}; saving makes it a weekly window.`),
    h('div', {class: 'row'}, field('sc-name', 'Name', name), field('sc-profile', 'Profile', profile)),
    field('sc-days', 'Days', days, 'mon-fri, sat,sun, mon..thu, daily'),
    h('div', {class: 'row'}, field('sc-from', 'From', from), field('sc-to', 'To', to, 'a window may pass midnight (22:00 to 07:00)')),
    h('div', {class: 'field inline'}, strict, h('label', {for: 'sc-strict'}, 'Strict blocks')),
    problem,
    h('div', {class: 'actions'}, save, h('button', {type: 'button', class: 'secondary', onclick: () => dialog.close()}, 'Cancel'))));
  dialog.setAttribute('aria-labelledby', 'sheet-title');
  dialog.showModal();
  (sc ? profile : name).focus();
}

async function allowances() {
  let list;
  try {
    list = await get('/v1/allowances');
  } catch (error) {
    return errorText(parts.allowances, error);
  }
  const rows = list.allowances.map((a) => {
    const problem = h('div', {class: 'problem'});
    const remove = h('button', {class: 'secondary danger-text', id: `allow-delete-${a.name}`, 'aria-label': `Delete allowance ${a.name}`, onclick: () => {
      if (confirm(`Delete the allowance ${a.name}?`)) act(remove, problem, () => del(`/v1/allowances/${enc(a.name)}`), `${a.name}: deleted`).then(allowances);
    }}, 'Delete');
    const limit = a.dailySeconds != null ? `${duration(a.dailySeconds)} a day` : `${duration(a.weeklySeconds)} a week`;
    return h('li', {}, h('div', {class: 'grow'}, h('strong', {}, a.name), ' ', h('span', {class: 'muted'}, '→ ' + a.profile),
      a.blocking ? h('span', {class: 'tag strict'}, 'Used up') : null, h('br'),
      h('span', {class: 'small'}, `${limit} (${a.days}); used ${duration(a.usedTodaySeconds)} today`, a.leftSeconds != null ? `, ${duration(a.leftSeconds)} left` : '')),
    remove, problem);
  });
  const name = h('input', {id: 'al-name', required: true, autocomplete: 'off'});
  const profile = profileSelect('al-profile');
  const minutes = h('input', {id: 'al-minutes', type: 'number', min: 1, max: 1440, value: 30, required: true});
  const problem = h('div', {class: 'problem'});
  const add = h('button', {type: 'submit', class: 'primary', id: 'al-add'}, 'Add allowance');
  const form = h('form', {class: 'inline-form', onsubmit: (e) => {
    e.preventDefault();
    act(add, problem, () => post('/v1/allowances', {name: name.value.trim(), profile: profile.value, dailySeconds: Number(minutes.value) * 60}), `${name.value}: added`)
      .then((r) => r && allowances());
  }},
    h('div', {class: 'row compact'}, field('al-name', 'Name', name), field('al-profile', 'Profile', profile), field('al-minutes', 'Minutes a day', minutes)),
    h('div', {class: 'actions'}, add), problem);
  replace(parts.allowances,
    h('p', {class: 'muted small'}, 'An allowance lets a profile\'s sites and apps be used for a while each day; when the time is used up, the profile is blocked until the next day.'),
    rows.length ? h('ul', {class: 'list'}, rows) : h('p', {class: 'empty'}, 'No allowances yet.'), form);
}

async function goals() {
  let current;
  try {
    current = await get('/v1/goals');
  } catch (error) {
    return errorText(parts.goals, error);
  }
  const daily = h('input', {id: 'goal-daily', type: 'number', min: 0, max: 24, step: 0.25, value: current.dailySeconds ? current.dailySeconds / 3600 : ''});
  const weekly = h('input', {id: 'goal-weekly', type: 'number', min: 0, max: 168, step: 0.5, value: current.weeklySeconds ? current.weeklySeconds / 3600 : ''});
  const problem = h('div', {class: 'problem'});
  const save = h('button', {type: 'submit', class: 'primary', id: 'goal-save'}, 'Save goals');
  replace(parts.goals, h('form', {onsubmit: (e) => {
    e.preventDefault();
    const seconds = (input) => (input.value === '' ? 0 : Math.round(Number(input.value) * 3600));
    act(save, problem, () => patch('/v1/goals', {dailySeconds: seconds(daily), weeklySeconds: seconds(weekly)}), 'Goals saved');
  }},
    h('div', {class: 'row compact'}, field('goal-daily', 'Daily focus (hours)', daily), field('goal-weekly', 'Weekly focus (hours)', weekly)),
    h('p', {class: 'muted small'}, 'Empty or 0 removes a goal. A streak counts the days in a row that met the daily goal.'),
    h('div', {class: 'actions'}, save), problem));
}

async function friction() {
  try {
    const insights = await get('/v1/insights');
    const e = insights.emergency;
    replace(parts.friction,
      e.allowed
        ? h('p', {}, `${e.used} of ${e.allowed} early ends of strict blocks used in the last 7 days.`, e.nextFreeAt ? ` The next frees up ${timeOfDay(e.nextFreeAt)}.` : '')
        : h('p', {}, 'Off: strict blocks cannot be ended early.'),
      h('p', {class: 'muted small'}, 'Each early end means waiting out a countdown and typing random text. How many are allowed and how long the wait is are set by the administrator ([friction] in simplylockd.toml or a profile); the daemon\'s API does not change them.'));
  } catch (error) {
    errorText(parts.friction, error);
  }
}

function notifications() {
  return h('div', {},
    h('p', {}, 'Desktop notifications (a block starts or ends, a schedule is about to start, a Pomodoro phase changes) come from ', h('code', {}, 'lockctl notify'),
      ', usually run as the user service ', h('code', {}, 'simplylock-notify.service'), '.'),
    h('p', {class: 'muted small'}, 'The daemon\'s API has no notification preferences, so there are no switches here; see lockctl(1) for what lockctl notify shows.'));
}

function theme() {
  const chosen = localStorage.getItem('simplylock-theme') ?? 'system';
  return h('fieldset', {class: 'segmented'}, h('legend', {}, 'Appearance'),
    [['system', 'System'], ['light', 'Light'], ['dark', 'Dark']].map(([value, label]) => [
      h('input', {type: 'radio', name: 'theme', id: 'theme-' + value, value, checked: chosen === value, onchange: () => {
        localStorage.setItem('simplylock-theme', value);
        applyTheme(value);
      }}),
      h('label', {for: 'theme-' + value}, label)]));
}
