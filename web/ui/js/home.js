// Home: every active block with a live countdown, start/stop/extend, emergency access for
// strict blocks, today's focus time and streak, recent activity.
import {del, enc, get, post} from './api.js';
import {act, badge, card, clock, count, duration, failureText, h, localDate, replace, rfc3339, timeOfDay, toast} from './dom.js';
import {unlockDialog} from './unlock.js';

let ticker;
let parts;
let profileList = [];

export async function render(view, app) {
  parts = {
    active: h('div', {class: 'sessions', 'aria-live': 'polite'}),
    start: h('div'),
    today: h('div', {class: 'stats'}),
    recent: h('div'),
  };
  replace(
    view,
    card('Blocking now', parts.active),
    card('Start a block', parts.start),
    h('div', {class: 'row'}, card('Today', parts.today), card('Recent activity', parts.recent)),
  );
  ticker = setInterval(() => tick(app), 1000);
  // The profiles first: the blocks show their profiles' names and icons.
  await renderStart(app);
  await Promise.all([refreshActive(app), refreshToday(), refreshRecent()]);
}

export function leave() {
  clearInterval(ticker);
}

export async function onEvent(event, app) {
  if (event.type.startsWith('session.') || event.type === 'pomodoro.phase' || event.type === 'hello') {
    await refreshActive(app);
    if (event.type !== 'session.extended') await Promise.all([refreshToday(), refreshRecent()]);
  } else if (event.type === 'profiles.changed') {
    await renderStart(app);
  }
}

function profileOf(name) {
  return profileList.find((p) => p.name === name) ?? {name};
}

async function refreshActive(app) {
  try {
    const status = await app.refreshStatus();
    if (!status.sessions.length) {
      replace(parts.active, h('p', {class: 'empty'}, 'Nothing is blocked. Start a block below, or a Pomodoro in Timer.'));
      return;
    }
    replace(parts.active, status.sessions.map((session) => sessionCard(session, app)));
  } catch (error) {
    replace(parts.active, h('p', {class: 'error', role: 'alert'}, failureText(error)));
  }
}

function sessionCard(session, app) {
  const profile = profileOf(session.profile);
  const name = profile.displayName ?? session.profile;
  const problem = h('div', {class: 'problem'});
  const actions = h('div', {class: 'actions'});
  for (const [label, seconds] of [['+15 m', 900], ['+1 h', 3600]]) {
    const button = h('button', {
      id: `extend-${seconds}-${session.id}`,
      class: 'secondary',
      'aria-label': `Extend ${name} by ${label.slice(1)}`,
      onclick: () => act(button, problem, () => post(`/v1/sessions/${enc(session.id)}/extend`, {seconds}), `${name}: extended by ${label.slice(1)}`),
    }, label);
    actions.append(button);
  }
  if (session.origin === 'pomodoro') {
    actions.append(h('a', {class: 'button secondary', href: '#timer'}, 'Pomodoro in Timer'));
  } else if (session.strict) {
    const unlock = h('button', {id: `unlock-${session.id}`, class: 'secondary danger-text', onclick: () => unlockDialog(session, name)}, 'Emergency access…');
    actions.append(unlock);
  } else {
    const stop = h('button', {
      id: `stop-${session.id}`,
      class: 'danger',
      'aria-label': `Stop ${name}`,
      onclick: () => act(stop, problem, () => del(`/v1/sessions/${enc(session.id)}`), `${name}: stopped`),
    }, 'Stop');
    actions.append(stop);
  }
  const ends = new Date(session.endsAt).getTime();
  const left = (ends - app.now()) / 1000;
  return h('article', {class: 'session', 'aria-label': `${name} block`, dataset: {session: session.id}},
    h('div', {class: 'session-head'},
      badge(profile),
      h('div', {class: 'session-title'},
        h('h3', {}, name),
        h('p', {class: 'muted'}, origin(session.origin), session.strict ? h('span', {class: 'tag strict'}, 'Strict') : null,
          session.notInForce ? h('span', {class: 'tag warn'}, 'Not in force: ' + session.notInForce) : null)),
      h('div', {class: 'countdown'},
        h('span', {class: 'big', role: 'timer', 'aria-label': `${name}: time left`, dataset: {ends: String(ends)}}, clock(left)),
        h('span', {class: 'muted'}, 'until ' + timeOfDay(session.endsAt)))),
    h('p', {class: 'muted small'}, count(session.blockedNames, 'name'), session.apps.length ? ` and ${count(session.apps.length, 'app')}` : '', ' blocked',
      session.missingApps.length ? h('span', {title: session.missingApps.join(', ')}, ` · ${count(session.missingApps.length, 'app')} of the profile not installed here`) : '',
      session.strict && session.origin !== 'pomodoro' ? ' · strict: cannot be stopped early' : ''),
    actions, problem);
}

function origin(text) {
  if (text === 'manual') return 'Started by hand';
  if (text === 'pomodoro') return 'Pomodoro';
  if (text.startsWith('schedule:')) return 'Schedule ' + text.slice(9);
  if (text.startsWith('allowance:')) return 'Allowance ' + text.slice(10);
  return text;
}

function tick(app) {
  for (const el of document.querySelectorAll('[data-ends]')) {
    el.textContent = clock((Number(el.dataset.ends) - app.now()) / 1000);
  }
}

async function renderStart(app) {
  let list;
  try {
    list = await get('/v1/profiles');
  } catch (error) {
    replace(parts.start, h('p', {class: 'error', role: 'alert'}, failureText(error)));
    return;
  }
  profileList = list.profiles;
  const select = h('select', {id: 'start-profile', name: 'profile'},
    list.profiles.map((p) => h('option', {value: p.name}, p.displayName ?? p.name)));
  const choices = [['25m', '25 m', 1500], ['45m', '45 m', 2700], ['1h', '1 h', 3600], ['until', 'Until…', null]];
  const until = h('input', {id: 'start-until', type: 'time', name: 'until', disabled: true});
  const untilField = h('div', {class: 'field', hidden: true}, h('label', {for: 'start-until'}, 'Until (time of day)'), until);
  const group = h('fieldset', {class: 'segmented'}, h('legend', {}, 'For'),
    choices.map(([id, label, seconds], index) => [
      h('input', {type: 'radio', name: 'length', id: 'len-' + id, value: seconds ?? 'until', checked: index === 0,
        onchange: () => {
          until.disabled = untilField.hidden = id !== 'until';
          if (id === 'until') until.focus();
        }}),
      h('label', {for: 'len-' + id}, label),
    ]));
  const strict = h('input', {type: 'checkbox', id: 'start-strict', name: 'strict'});
  const problem = h('div', {class: 'problem'});
  const button = h('button', {type: 'submit', id: 'start-button', class: 'primary'}, 'Start blocking');
  const form = h('form', {class: 'start-form', onsubmit: (e) => {
    e.preventDefault();
    const chosen = form.querySelector('input[name=length]:checked').value;
    const body = {profile: select.value, strict: strict.checked};
    if (chosen === 'until') {
      if (!until.value) return replace(problem, h('p', {class: 'error', role: 'alert'}, 'Choose the time the block ends.'));
      const [hours, minutes] = until.value.split(':').map(Number);
      const end = new Date();
      end.setHours(hours, minutes, 0, 0);
      if (end.getTime() <= Date.now()) end.setDate(end.getDate() + 1);
      body.until = rfc3339(end);
    } else {
      body.seconds = Number(chosen);
    }
    const name = select.selectedOptions[0]?.textContent ?? body.profile;
    act(button, problem, () => post('/v1/sessions', body), `${name}: blocking`);
  }},
    h('div', {class: 'field'}, h('label', {for: 'start-profile'}, 'Profile'), select),
    group,
    untilField,
    h('div', {class: 'field inline'}, strict, h('label', {for: 'start-strict'}, 'Strict (cannot be stopped early)')),
    h('div', {class: 'actions'}, button, h('a', {class: 'button secondary', href: '#timer'}, 'Pomodoro…')),
    problem);
  replace(parts.start, form);
}

async function refreshToday() {
  try {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const insights = await get('/v1/insights?tz=' + enc(zone));
    const today = insights.days.find((d) => d.date === localDate());
    const goal = insights.goals.dailySeconds;
    replace(parts.today,
      stat('Focus time', duration(today?.focusSeconds ?? 0), goal ? `goal ${duration(goal)}` : 'no daily goal'),
      stat('Streak', `${insights.streak?.currentDays ?? 0} d`, insights.streak ? `longest ${insights.streak.longestDays} d` : 'set a daily goal in Settings'),
      stat('Blocked today', String((today?.siteAttempts ?? 0) + (today?.appAttempts ?? 0)), 'sites and apps'));
  } catch (error) {
    replace(parts.today, h('p', {class: 'error', role: 'alert'}, failureText(error)));
  }
}

function stat(label, value, note) {
  return h('div', {class: 'stat'}, h('span', {class: 'stat-value'}, value), h('span', {class: 'stat-label'}, label), h('span', {class: 'muted small'}, note));
}

async function refreshRecent() {
  try {
    const history = await get('/v1/history?limit=6');
    if (!history.entries.length) return replace(parts.recent, h('p', {class: 'empty'}, 'No blocks yet.'));
    replace(parts.recent, h('ul', {class: 'list'}, history.entries.map((entry) => {
      const profile = profileOf(entry.profile);
      const end = entry.endedAt ?? entry.plannedEnd;
      const length = (new Date(end) - new Date(entry.startedAt)) / 1000;
      return h('li', {}, badge(profile),
        h('span', {class: 'grow'}, h('strong', {}, profile.displayName ?? entry.profile), h('br'),
          h('span', {class: 'muted small'}, `${timeOfDay(entry.startedAt)} · ${duration(length)}`)),
        h('span', {class: 'muted small'}, entry.endedAt ? endReason(entry.endReason) : 'running'));
    })));
  } catch (error) {
    replace(parts.recent, h('p', {class: 'error', role: 'alert'}, failureText(error)));
  }
}

function endReason(reason) {
  return {expired: 'completed', stopped: 'stopped', unlocked: 'emergency end', 'daemon-restart': 'restarted'}[reason] ?? reason ?? 'ended';
}

export {toast};
