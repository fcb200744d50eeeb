// The shield: what blocks this address, for how long, and emergency access where the block
// allows it. Everything comes from the daemon through the worker; the daemon decides.
import { attemptsOn, describeOrigin, formatRemaining, localMidnight, parseUrl } from './lib/rules.js';

const api = globalThis.browser ?? globalThis.chrome;
const $ = (id) => document.getElementById(id);
const href = location.href;
const blocked = href.includes('?u=') ? href.slice(href.indexOf('?u=') + 3) : '';
const parsed = parseUrl(blocked);

function ask(message) {
  return new Promise((resolve, reject) => {
    api.runtime.sendMessage(message, (answer) => {
      if (!answer) reject(new Error(api.runtime.lastError?.message ?? 'the companion did not answer'));
      else if (answer.ok) resolve(answer.body);
      else reject(Object.assign(new Error(answer.error), { hint: answer.hint, status: answer.status }));
    });
  });
}

let session = null;
let endsAt = null;

function tick() {
  if (!endsAt) return;
  const left = (endsAt - Date.now()) / 1000;
  if (left <= 0) {
    $('left').textContent = 'ended';
    $('summary').textContent = 'The block has ended. Reload to open the page.';
    return;
  }
  $('left').textContent = `${formatRemaining(left)} (until ${new Date(endsAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })})`;
}

async function load() {
  $('address').textContent = blocked;
  if (!parsed) { $('summary').textContent = 'No address to explain.'; return; }
  let details;
  try {
    details = await ask({ op: 'details', url: blocked, from: localMidnight() });
  } catch (error) {
    $('summary').textContent = `SimplyLock cannot be asked right now: ${error.message}.`;
    return;
  }
  const { checked, status, insights, goals } = details;
  const match = checked.matches[0];
  if (!match) {
    $('title').textContent = 'This site is not blocked now';
    $('summary').textContent = 'Nothing blocks it any more. Reload to open it.';
    return;
  }
  session = status.sessions.find((s) => s.id === match.session) ?? null;
  const keyword = match.rule.startsWith('keyword ') ? match.rule.slice(8) : null;
  const isPath = keyword !== null || match.rule.includes('/');
  $('title').textContent = isPath ? 'This page is blocked' : 'This site is blocked';
  $('summary').textContent = keyword !== null
    ? `SimplyLock blocks every address containing the word “${keyword}”.`
    : isPath
      ? `SimplyLock blocks ${match.rule} and everything under it.`
      : `SimplyLock blocks ${match.rule} and every name under it.`;
  $('profile').textContent = match.profile;
  $('origin').textContent = describeOrigin(match.origin) + (session?.strict ? ' (strict)' : '');
  $('rule').textContent = match.rule + (match.list ? ` (list ${match.list})` : '');
  $('attempts').textContent = String(attemptsOn(parsed.host, insights));
  const daily = goals?.dailySeconds ?? insights?.goals?.dailySeconds;
  $('goal').textContent = daily ? `${formatRemaining(daily)} of focus a day` : 'no focus goal set (lockctl goals)';
  if (session) { endsAt = Date.parse(session.endsAt); tick(); setInterval(tick, 1000); } else { $('left').textContent = 'unknown'; }
  $('facts').hidden = false;
  if (session) {
    $('emergency').hidden = false;
    $('emergency-text').textContent = session.strict
      ? 'This block is strict. You can still end it: SimplyLock makes you wait, then type a random text.'
      : `This block is not strict: it can be ended with lockctl stop ${session.profile}, or here after the same wait and typing.`;
  }
}

let challenge = null;
let readyAt = 0;

function waitFor() {
  const left = (readyAt - Date.now()) / 1000;
  if (left > 0) {
    $('wait').textContent = `Wait ${formatRemaining(left)} before typing. Leaving this page starts the wait again.`;
    setTimeout(waitFor, 250);
    return;
  }
  $('wait').textContent = 'You can type now.';
  $('type-label').hidden = false;
  $('text').hidden = false;
  $('answer-form').hidden = false;
  $('answer').focus();
}

$('ask').addEventListener('click', async () => {
  $('emergency-result').textContent = '';
  $('ask').disabled = true;
  try {
    const answer = await ask({ op: 'unlock', session: session.id, body: {} });
    challenge = answer.challenge;
    // The daemon's wait, counted here from when its answer came (the two clocks may differ).
    readyAt = Date.now() + challenge.waitSeconds * 1000;
    $('text').textContent = [...challenge.pieces].sort((a, b) => a.position - b.position).map((p) => p.text).join(' · ');
    $('challenge').hidden = false;
    waitFor();
  } catch (error) {
    $('ask').disabled = false;
    $('emergency-result').textContent = error.message + (error.hint ? ` (${error.hint})` : '');
  }
});

$('answer-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const answer = await ask({ op: 'unlock', session: session.id, body: { challenge: challenge.id, answer: $('answer').value } });
    if (answer.state === 'unlocked') {
      $('emergency-result').className = 'ok';
      $('emergency-result').textContent = 'The block has ended. Opening the page…';
      setTimeout(() => { location.href = blocked; }, 1500);
    }
  } catch (error) {
    $('emergency-result').textContent = error.message;
  }
});

load();
