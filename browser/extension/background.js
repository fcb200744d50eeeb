// The companion's worker: talks to the daemon through the native messaging bridge, shows the
// shield for blocked names and paths, and meters the site in front.
import { parseUrl, pathRulesToDnr, SiteMeter } from './lib/rules.js';

const api = globalThis.browser ?? globalThis.chrome;
const HOST = 'org.simplylock.bridge';
const SHIELD = api.runtime.getURL('shield.html');
const VERSION = api.runtime.getManifest().version;

let port = null;
let nextId = 1;
const pending = new Map();
// Answers of `check` per address, dropped at every event (a block started or ended).
let checks = new Map();
let sessions = [];
let connected = false;
let lastError = 'not connected yet';
const meter = new SiteMeter();
let idleState = 'active';
let browserFocused = true;

// Chromium's user agent says "Chrome" in every browser of the family; its brands tell them apart.
function browserName() {
  if (/Firefox\//.test(navigator.userAgent)) return 'firefox';
  if (navigator.brave) return 'brave';
  const brands = (navigator.userAgentData?.brands ?? []).map((b) => b.brand);
  if (brands.includes('Microsoft Edge')) return 'edge';
  if (brands.includes('Brave')) return 'brave';
  if (brands.includes('Google Chrome')) return 'chrome';
  return 'chromium';
}

function connect() {
  try {
    port = api.runtime.connectNative(HOST);
  } catch (error) {
    lastError = String(error);
    port = null;
    return;
  }
  port.onMessage.addListener(onBridgeMessage);
  port.onDisconnect.addListener(() => {
    lastError = api.runtime.lastError?.message ?? 'the bridge ended';
    connected = false;
    port = null;
    for (const { reject } of pending.values()) reject(new Error(lastError));
    pending.clear();
    setTimeout(connect, 5000);
  });
}

function request(op, fields = {}) {
  if (!port) connect();
  if (!port) return Promise.reject(new Error(lastError));
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    port.postMessage({ id, op, ...fields });
    setTimeout(() => { if (pending.delete(id)) reject(new Error('the daemon did not answer in time')); }, 15000);
  });
}

async function call(op, fields) {
  const answer = await request(op, fields);
  if (answer.status >= 200 && answer.status < 300) return answer.body;
  const message = answer.body?.error?.message ?? answer.error ?? `status ${answer.status}`;
  const error = new Error(message);
  error.status = answer.status;
  error.hint = answer.body?.error?.hint;
  throw error;
}

function onBridgeMessage(message) {
  if (typeof message.id === 'number' && pending.has(message.id)) {
    const { resolve } = pending.get(message.id);
    pending.delete(message.id);
    resolve(message);
    return;
  }
  if (message.connected === true) {
    connected = true;
    hello();
    refresh();
  } else if (message.connected === false) {
    connected = false;
    lastError = message.error ?? 'the daemon is not reachable';
  } else if (message.event) {
    // Any event may change what is blocked: read it again (not polled: told).
    refresh();
  }
}

async function hello() {
  try {
    await call('hello', { body: { browser: browserName(), extensionVersion: VERSION, incognito: await allowedIncognito() } });
  } catch (error) { lastError = error.message; }
}

function allowedIncognito() {
  return new Promise((resolve) => {
    try { api.extension.isAllowedIncognitoAccess((allowed) => resolve(Boolean(allowed))); } catch { resolve(false); }
  });
}

let refreshing = null;
async function refresh() {
  if (refreshing) return refreshing;
  refreshing = (async () => {
    try {
      const status = await call('status');
      sessions = status.sessions.filter((s) => s.target.includes('local'));
      checks = new Map();
      await updatePathRules();
      await recheckOpenTabs();
    } catch (error) { lastError = error.message; } finally { refreshing = null; }
  })();
  return refreshing;
}

async function updatePathRules() {
  const rules = pathRulesToDnr(sessions, SHIELD);
  const old = await api.declarativeNetRequest.getSessionRules();
  await api.declarativeNetRequest.updateSessionRules({ removeRuleIds: old.map((r) => r.id), addRules: rules });
}

async function check(url) {
  const key = url.split('#')[0];
  if (!checks.has(key)) checks.set(key, call('check', { url: key }).catch((error) => { checks.delete(key); throw error; }));
  return checks.get(key);
}

function shieldFor(url) { return `${SHIELD}?u=${url}`; }

async function showShieldIfBlocked(tabId, url) {
  if (!parseUrl(url) || sessions.length === 0) return;
  let answer;
  try { answer = await check(url); } catch { return; }
  if (answer.matches.length > 0) await api.tabs.update(tabId, { url: shieldFor(url) });
}

async function recheckOpenTabs() {
  for (const tab of await api.tabs.query({})) {
    if (tab.url && !tab.url.startsWith(SHIELD)) showShieldIfBlocked(tab.id, tab.url);
  }
}

api.webNavigation.onBeforeNavigate.addListener((details) => {
  if (details.frameId === 0) showShieldIfBlocked(details.tabId, details.url);
});

// Each shield shown is a blocked attempt for the daemon's insights; reloading the shield is not
// another one (the daemon also counts a site once per user within 10 s).
const reported = new Map();
async function reportAttempt(url) {
  const key = String(url).split('#')[0];
  const now = Date.now();
  for (const [k, at] of reported) if (now - at > 30000) reported.delete(k);
  if (reported.has(key)) return;
  reported.set(key, now);
  try { await call('attempt', { body: { url: key } }); } catch (error) { lastError = error.message; }
}

// The shield page asks through here; it never reaches the bridge itself.
api.runtime.onMessage.addListener((message, sender, reply) => {
  if (!sender.url?.startsWith(SHIELD)) return false;
  (async () => {
    switch (message.op) {
      case 'details': {
        // Counted before today's attempts are read, so the shield's number includes this one.
        await reportAttempt(message.url);
        const [checked, status, insights, goals] = await Promise.all([
          call('check', { url: message.url }), call('status'),
          call('insights', { from: message.from }).catch(() => null), call('goals').catch(() => null)]);
        return { checked, status, insights, goals };
      }
      case 'unlock': return call('unlock', { session: message.session, body: message.body });
      case 'state': return { connected, lastError, sessions: sessions.length };
      default: throw new Error('unknown request');
    }
  })().then((body) => reply({ ok: true, body }), (error) => reply({ ok: false, error: error.message, status: error.status, hint: error.hint }));
  return true;
});

// The site meter: the active tab of the window in front, while the user is not idle.
async function observe() {
  let host = null;
  if (idleState === 'active' && browserFocused) {
    try {
      const [tab] = await api.tabs.query({ active: true, lastFocusedWindow: true });
      const parsed = tab?.url ? parseUrl(tab.url) : null;
      if (parsed && !tab.url.startsWith(SHIELD)) host = parsed.host;
    } catch { host = null; }
  }
  meter.observe(host, performance.now());
}

async function flush() {
  await observe();
  meter.close(performance.now());
  const samples = meter.take();
  if (samples.length === 0) return;
  try { await call('usage', { body: { samples } }); } catch (error) { lastError = error.message; }
}

api.idle.setDetectionInterval(60);
api.idle.onStateChanged.addListener((state) => { idleState = state; observe(); });
api.tabs.onActivated.addListener(observe);
api.tabs.onUpdated.addListener((_, change) => { if (change.url) observe(); });
api.windows.onFocusChanged.addListener((windowId) => { browserFocused = windowId !== api.windows.WINDOW_ID_NONE; observe(); });
// A report every 15 s while a site is in front (nothing is sent while nothing is metered); the
// hello every minute tells the daemon the companion is still here.
setInterval(flush, 15000);
api.alarms.create('hello', { periodInMinutes: 1 });
api.alarms.onAlarm.addListener((alarm) => { if (alarm.name === 'hello' && connected) hello(); });

connect();
observe();
