// Small helpers: elements built from data (never from HTML strings), formatting, messages.

const SVG = 'http://www.w3.org/2000/svg';

/** An element: h('button', {class: 'x', onclick: f}, 'text', child…). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'style') for (const [p, v] of Object.entries(value)) el.style.setProperty(p, v);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces a container's content, keeping keyboard focus on the element with the same id. */
export function replace(container, ...children) {
  const focusedId = container.contains(document.activeElement) ? document.activeElement.id : null;
  container.replaceChildren();
  append(container, children);
  if (focusedId) document.getElementById(focusedId)?.focus();
}

/** A card: a titled section. */
export function card(title, ...children) {
  const id = 'card-' + title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return h('section', {class: 'card', 'aria-labelledby': id}, h('h2', {id}, title), ...children);
}

/** "1 h 05 m", "25 m", "40 s". */
export function duration(seconds) {
  seconds = Math.max(0, Math.round(seconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return minutes ? `${hours} h ${String(minutes).padStart(2, '0')} m` : `${hours} h`;
  if (minutes > 0) return `${minutes} m`;
  return `${seconds} s`;
}

/** "1 app", "3 apps". */
export function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** A countdown: "1:04:09" or "24:59". */
export function clock(seconds) {
  seconds = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/** A wall-clock time of day ("14:05"), with the weekday when not today. */
export function timeOfDay(date) {
  const d = new Date(date);
  const time = d.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'});
  if (d.toDateString() === new Date().toDateString()) return time;
  return d.toLocaleDateString([], {weekday: 'short', day: 'numeric', month: 'short'}) + ' ' + time;
}

/** RFC 3339 without fractions of a second (what the daemon reads). */
export function rfc3339(date) {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The local date as YYYY-MM-DD. */
export function localDate(date = new Date()) {
  const d = new Date(date);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

let toastTimer;
/** Shows a message at the bottom (errors stay until the next message or a click). */
export function toast(text, kind = 'info') {
  const el = document.getElementById('toast');
  el.className = 'toast ' + kind;
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimer);
  if (kind !== 'error') toastTimer = setTimeout(() => (el.hidden = true), 4000);
}

/** The text of a failure: the daemon's message and hint. */
export function failureText(error) {
  if (error?.hint) return `${error.message} (${error.hint})`;
  return error?.message ?? String(error);
}

/** Runs an action from a button: disabled while it runs, its failure shown in `where` and as a toast. */
export async function act(button, where, action, done) {
  if (button) button.disabled = true;
  if (where) replace(where);
  try {
    const result = await action();
    if (done) toast(done, 'ok');
    return result;
  } catch (error) {
    if (where) replace(where, h('p', {class: 'error', role: 'alert'}, failureText(error)));
    toast(failureText(error), 'error');
    return undefined;
  } finally {
    if (button?.isConnected) button.disabled = false;
  }
}

// Glyphs for the icon names profiles carry (the app's SF Symbols names), drawn in a 24-unit box.
const glyphs = {
  'brain.head.profile': 'M9 3a6 6 0 0 0-6 6c0 2 .8 3.6 2 4.7V21h7v-3h2a2 2 0 0 0 2-2v-2l2-.5-2-3.5A6 6 0 0 0 9 3z',
  gamecontroller: 'M6 8h12a4 4 0 0 1 4 4l-1 5a2 2 0 0 1-3.5 1L15 16H9l-2.5 2A2 2 0 0 1 3 17l-1-5a4 4 0 0 1 4-4zM7 11v4M5 13h4M15.5 12.5h.01M17.5 14.5h.01',
  newspaper: 'M4 5h13v14H6a2 2 0 0 1-2-2zM17 9h3v8a2 2 0 0 1-2 2M7 9h7M7 12h7M7 15h4',
  cart: 'M3 4h2l2.5 11h10L20 8H6.5M9 20h.01M17 20h.01',
  'person.2': 'M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM3 20c0-3.3 2.7-6 6-6s6 2.7 6 6M16 5.5a3 3 0 0 1 0 5.5M18 14.5c1.8.9 3 2.9 3 5.5',
  'play.rectangle': 'M3 6h18v12H3zM10 9.5v5l4.5-2.5z',
  lock: 'M6 11h12v10H6zM8 11V8a4 4 0 0 1 8 0v3',
};

/** A profile's badge: its glyph (or initial) on its colour. Decorative: the name is beside it. */
export function badge(profile) {
  const path = glyphs[profile.icon];
  const el = h('span', {class: 'badge', 'aria-hidden': 'true', style: {'--tint': safeColor(profile.color)}});
  if (path) {
    el.append(s('svg', {viewBox: '0 0 24 24', width: 22, height: 22}, s('path', {d: path})));
  } else {
    el.append((profile.displayName ?? profile.name ?? '?').slice(0, 1).toUpperCase());
  }
  return el;
}

/** A colour the page may use: #rgb/#rrggbb only, else the default tint. */
export function safeColor(color) {
  return /^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/.test(color ?? '') ? color : '#5856D6';
}
