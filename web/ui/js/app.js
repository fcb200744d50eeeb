// The app: five tabs, the event stream, the theme. Each tab is a module with
// render(view, app) and, optionally, onEvent(event) and leave().
import {followEvents, get} from './api.js';
import {h, replace} from './dom.js';
import {applyTheme} from './theme.js';

// Each tab's module is fetched when the tab is first opened: a page loads only what it shows.
const tabs = {
  home: () => import('./home.js'),
  profiles: () => import('./profiles.js'),
  insights: () => import('./insights.js'),
  timer: () => import('./timer.js'),
  settings: () => import('./settings.js'),
};
const titles = {home: 'Home', profiles: 'Profiles', insights: 'Insights', timer: 'Timer', settings: 'Settings'};

export const app = {
  current: null,
  /** Server clock minus ours, from the last status: countdowns use the daemon's idea of now. */
  skew: 0,
  status: null,
  now() {
    return Date.now() + this.skew;
  },
  async refreshStatus() {
    const status = await get('/v1/status');
    this.skew = new Date(status.now).getTime() - Date.now();
    this.status = status;
    return status;
  },
  go(name) {
    location.hash = '#' + name;
  },
};

let showing = 0;

async function show(name) {
  if (!tabs[name]) name = 'home';
  const turn = ++showing;
  app.current?.leave?.();
  app.current = null;
  const module = await tabs[name]();
  // Another tab was chosen while this one's module loaded.
  if (turn !== showing) return;
  app.current = module;
  document.title = `${titles[name]} · SimplyLock`;
  document.getElementById('title').textContent = titles[name];
  for (const link of document.querySelectorAll('.tabbar a')) {
    if (link.dataset.tab === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const view = document.getElementById('view');
  view.dataset.tab = name;
  replace(view, h('p', {class: 'muted'}, 'Loading…'));
  await module.render(view, app);
}

function onState(state) {
  const el = document.getElementById('connection');
  el.textContent = state === 'live' ? 'Live' : 'Reconnecting…';
  el.className = 'connection ' + state;
}

applyTheme();
window.addEventListener('hashchange', () => show(location.hash.slice(1)).then(() => document.getElementById('view').focus()));
followEvents((event) => app.current?.onEvent?.(event, app), onState);
show(location.hash.slice(1) || 'home');
