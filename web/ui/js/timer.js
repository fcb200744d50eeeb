// Timer: the Pomodoro ring, its linked profile and phases; pause, resume, skip, next and stop
// as the engine allows (the daemon refuses what it does not, with its reason).
import {get, post} from './api.js';
import {act, card, clock, duration, failureText, h, replace} from './dom.js';
import {ring} from './charts.js';

let parts;
let info;
let fetchedAt = 0;
let ticker;

export async function render(view, app) {
  parts = {ring: h('div', {class: 'ring-box'}), controls: h('div'), start: h('div'), today: h('div')};
  replace(view, h('div', {class: 'row'}, card('Pomodoro', parts.ring, parts.controls), card('Start a Pomodoro', parts.start)), card('Completed focus', parts.today));
  ticker = setInterval(drawRing, 1000);
  await Promise.all([refresh(), renderStart(), refreshHistory()]);
}

export function leave() {
  clearInterval(ticker);
}

export async function onEvent(event) {
  if (event.type === 'pomodoro.phase' || event.type === 'hello' || (event.type.startsWith('session.') && event.session?.origin === 'pomodoro')) {
    await refresh();
    await refreshHistory();
  }
}

async function refresh() {
  try {
    info = await get('/v1/pomodoro');
    fetchedAt = Date.now();
  } catch (error) {
    replace(parts.ring, h('p', {class: 'error', role: 'alert'}, failureText(error)));
    return;
  }
  drawRing();
  drawControls();
}

function phaseLength() {
  const settings = info.settings;
  if (!settings) return 0;
  return {focus: settings.focusSeconds, 'short-break': settings.shortBreakSeconds, 'long-break': settings.longBreakSeconds}[info.phase] ?? 0;
}

function remaining() {
  if (info.remainingSeconds == null) return 0;
  if (info.state !== 'running') return info.remainingSeconds;
  return Math.max(0, info.remainingSeconds - (Date.now() - fetchedAt) / 1000);
}

const phaseNames = {focus: 'Focus', 'short-break': 'Short break', 'long-break': 'Long break'};

function drawRing() {
  if (!info || !parts) return;
  const active = info.state === 'running' || info.state === 'paused';
  const length = phaseLength();
  const left = remaining();
  const fraction = active && length ? 1 - left / length : 0;
  const phase = phaseNames[info.phase] ?? '';
  const label = active ? clock(left) : info.state === 'waiting' ? 'Ready' : '—';
  const sub = active ? `${phase}${info.state === 'paused' ? ' · paused' : ''}` : info.state === 'waiting' ? `next: ${phaseNames[info.next] ?? info.next}` : info.state === 'finished' ? 'finished' : 'not running';
  const name = active ? `Pomodoro: ${phase}, ${clock(left)} left${info.state === 'paused' ? ', paused' : ''}` : `Pomodoro: ${info.summary}`;
  replace(parts.ring, ring(fraction, label, sub, name),
    h('p', {class: 'center'}, info.profile ? h('strong', {}, info.profile) : null,
      info.cycle ? ` · cycle ${info.cycle}${info.cycles ? ' of ' + info.cycles : ''}` : '', info.blocking ? ' · blocking' : ''),
    h('p', {class: 'muted small center'}, info.summary), info.problem ? h('p', {class: 'error'}, info.problem) : null);
}

function drawControls() {
  const problem = h('div', {class: 'problem'});
  const button = (action, label, kind = 'secondary') => {
    const el = h('button', {id: 'pomodoro-' + action, class: kind, onclick: () => act(el, problem, async () => {
      info = await post('/v1/pomodoro/' + action);
      fetchedAt = Date.now();
      drawRing();
      drawControls();
    })}, label);
    return el;
  };
  const buttons = [];
  if (info.state === 'running') buttons.push(button('pause', 'Pause'), button('skip', 'Skip phase'));
  if (info.state === 'paused') buttons.push(button('resume', 'Resume', 'primary'), button('skip', 'Skip phase'));
  if (info.state === 'waiting') buttons.push(button('next', `Start ${phaseNames[info.next] ?? info.next}`, 'primary'));
  if (['running', 'paused', 'waiting'].includes(info.state)) buttons.push(button('stop', 'Stop', 'danger'));
  replace(parts.controls, buttons.length ? h('div', {class: 'actions center'}, buttons) : null, problem);
}

async function renderStart() {
  let profiles;
  try {
    profiles = (await get('/v1/profiles')).profiles;
  } catch (error) {
    return replace(parts.start, h('p', {class: 'error', role: 'alert'}, failureText(error)));
  }
  const select = h('select', {id: 'pomo-profile'}, profiles.map((p) => h('option', {value: p.name, selected: p.name === 'deep-work'}, p.displayName ?? p.name)));
  const number = (id, value, min, max) => h('input', {id, type: 'number', value, min, max, step: 1, inputmode: 'numeric'});
  const focus = number('pomo-focus', 25, 1, 240);
  const short = number('pomo-short', 5, 1, 60);
  const long = number('pomo-long', 15, 1, 120);
  const cycles = number('pomo-cycles', 4, 1, 24);
  const strict = h('input', {type: 'checkbox', id: 'pomo-strict'});
  const problem = h('div', {class: 'problem'});
  const submit = h('button', {type: 'submit', class: 'primary', id: 'pomo-start'}, 'Start Pomodoro');
  const field = (id, label, input) => h('div', {class: 'field'}, h('label', {for: id}, label), input);
  replace(parts.start, h('form', {onsubmit: (e) => {
    e.preventDefault();
    const body = {profile: select.value, focusSeconds: focus.value * 60, shortBreakSeconds: short.value * 60, longBreakSeconds: long.value * 60,
      cycles: Number(cycles.value), strict: strict.checked};
    act(submit, problem, async () => {
      info = await post('/v1/pomodoro', body);
      fetchedAt = Date.now();
      drawRing();
      drawControls();
    }, 'Pomodoro started');
  }},
    field('pomo-profile', 'Profile blocked while focusing', select),
    h('div', {class: 'row compact'}, field('pomo-focus', 'Focus (min)', focus), field('pomo-short', 'Short break (min)', short),
      field('pomo-long', 'Long break (min)', long), field('pomo-cycles', 'Cycles', cycles)),
    h('div', {class: 'field inline'}, strict, h('label', {for: 'pomo-strict'}, 'Strict focus phases')),
    h('div', {class: 'actions'}, submit), problem));
}

async function refreshHistory() {
  try {
    const history = await get('/v1/pomodoro/history?limit=50');
    const today = new Date().toDateString();
    const entries = history.entries.filter((e) => new Date(e.startedAt).toDateString() === today);
    const total = entries.reduce((sum, e) => sum + e.focusedSeconds, 0);
    replace(parts.today, h('p', {}, `${entries.length} focus phases today, ${duration(total)}.`));
  } catch (error) {
    replace(parts.today, h('p', {class: 'error', role: 'alert'}, failureText(error)));
  }
}

