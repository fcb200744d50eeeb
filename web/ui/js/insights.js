// Insights: focus time per day against the goal, streaks, blocked attempts, and screen time
// per app, category and site (GET /v1/usage), as SVG charts.
import {enc, get} from './api.js';
import {card, duration, failureText, h, replace} from './dom.js';
import {barChart, rankChart} from './charts.js';

let content;
let by = 'app';

export async function render(view) {
  content = h('div', {class: 'stack'});
  replace(view, content);
  await refresh();
}

export async function onEvent(event) {
  if (event.type === 'session.ended') await refresh();
}

async function refresh() {
  const zone = enc(Intl.DateTimeFormat().resolvedOptions().timeZone);
  let insights, usage;
  try {
    [insights, usage] = await Promise.all([get('/v1/insights?tz=' + zone), get(`/v1/usage?tz=${zone}&by=${by}`)]);
  } catch (error) {
    replace(content, h('p', {class: 'error', role: 'alert'}, failureText(error)));
    return;
  }
  const goal = insights.goals.dailySeconds;
  const week = weekOf(insights.days);
  const days = week.map(({label, day}) => ({label, value: day?.focusSeconds ?? 0, met: day?.goalMet === true}));
  const attempts = week.map(({label, day}) => ({label, value: day ? day.siteAttempts + day.appAttempts : 0}));
  const streak = insights.streak;
  const thisWeek = insights.weeks.at(-1);
  const usageChoice = h('fieldset', {class: 'segmented'}, h('legend', {}, 'Screen time by'),
    [['app', 'App'], ['category', 'Category'], ['site', 'Site']].map(([value, label]) => [
      h('input', {type: 'radio', name: 'usage-by', id: 'usage-' + value, value, checked: by === value, onchange: () => { by = value; refresh(); }}),
      h('label', {for: 'usage-' + value}, label)]));
  replace(content,
    h('div', {class: 'row'},
      card('This week', h('div', {class: 'stats'},
        stat('Focus time', duration(insights.totals.focusSeconds), insights.goals.weeklySeconds ? `weekly goal ${duration(insights.goals.weeklySeconds)}${thisWeek?.goalMet ? ' · met' : ''}` : 'no weekly goal'),
        stat('Pomodoros', String(insights.totals.pomodoros), 'focus phases completed'),
        stat('Streak', `${streak?.currentDays ?? 0} d`, streak ? `longest ${streak.longestDays} d` : 'needs a daily goal'),
        stat('Blocked', String(insights.totals.siteAttempts + insights.totals.appAttempts), `${insights.totals.siteAttempts} sites, ${insights.totals.appAttempts} apps`))),
      card('Emergency access', h('p', {}, insights.emergency.allowed ? `${insights.emergency.used} of ${insights.emergency.allowed} early ends of strict blocks used in the last 7 days.` : 'Off: strict blocks cannot be ended early here.'),
        insights.totals.unlocks ? h('p', {class: 'muted small'}, `${insights.totals.unlocks} this week`) : null)),
    card('Focus time per day', barChart('Focus time per day this week', days, {goal, format: duration}),
      goal ? h('p', {class: 'muted small'}, `The line is the daily goal (${duration(goal)}); days that met it are green.`) : h('p', {class: 'muted small'}, 'Set a daily goal in Settings to see it here.')),
    h('div', {class: 'row'},
      card('Blocked attempts', barChart('Blocked attempts per day this week', attempts)),
      card('Most blocked', rankChart('Most blocked sites', insights.topSites.map((c) => ({label: c.name, value: c.attempts}))),
        insights.topApps.length ? rankChart('Most blocked apps', insights.topApps.map((c) => ({label: c.name, value: c.attempts}))) : null)),
    card('Screen time today', usageChoice, rankChart(`Screen time today by ${by}`, usage.items.slice(0, 10).map((i) => ({label: i.name, value: i.seconds})), duration)));
}

/** Monday to Sunday of the window's week, with the days the daemon reported (the days to come have none). */
function weekOf(days) {
  const first = days.length ? new Date(days[0].start) : new Date();
  const monday = new Date(first);
  monday.setDate(first.getDate() - ((first.getDay() + 6) % 7));
  return Array.from({length: 7}, (_, i) => {
    const date = new Date(monday);
    date.setDate(monday.getDate() + i);
    const key = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;
    return {label: date.toLocaleDateString([], {weekday: 'short'}), day: days.find((d) => d.date === key)};
  });
}

function stat(label, value, note) {
  return h('div', {class: 'stat'}, h('span', {class: 'stat-value'}, value), h('span', {class: 'stat-label'}, label), h('span', {class: 'muted small'}, note));
}
