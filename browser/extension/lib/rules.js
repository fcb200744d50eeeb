// Pure rules of the companion, shared by the background worker, the shield page and the unit
// tests (node --test). They mirror LockCore's PathRule: a rule covers its site and subdomains,
// and its path and everything below it by whole segments.

/** The host and path of a web address, or null for anything but http and https. */
export function parseUrl(text) {
  let url;
  try { url = new URL(text); } catch { return null; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return { host: url.hostname.replace(/\.$/, '').toLowerCase(), path: url.pathname || '/' };
}

/** Splits `youtube.com/shorts` into host and path (the daemon sends rules normalised). */
export function splitRule(rule) {
  const slash = rule.indexOf('/');
  if (slash <= 0) return null;
  let path = rule.slice(slash);
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return { host: rule.slice(0, slash).toLowerCase(), path };
}

export function covers(rule, host, path) {
  const parts = typeof rule === 'string' ? splitRule(rule) : rule;
  if (!parts) return false;
  if (host !== parts.host && !host.endsWith('.' + parts.host)) return false;
  if (!path.startsWith(parts.path)) return false;
  const rest = path.slice(parts.path.length);
  return rest === '' || rest.startsWith('/');
}

function specificity(rule) {
  const parts = splitRule(rule);
  return [parts.host.length, parts.path.length];
}

function less(a, b) { return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]); }

/** The block rule deciding host and path, or null: the most specific match wins, an allow rule a tie. */
export function blockingRule(host, path, block, allow) {
  const best = (rules) => rules.filter((r) => covers(r, host, path))
    .reduce((m, r) => (m === null || less(specificity(m), specificity(r)) ? r : m), null);
  const blocked = best(block || []);
  if (blocked === null) return null;
  const allowed = best(allow || []);
  if (allowed !== null && !less(specificity(allowed), specificity(blocked))) return null;
  return blocked;
}

function escapeRegex(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

/** The regular expression (RE2) of the URLs a rule covers. */
export function ruleRegex(rule) {
  const parts = splitRule(rule);
  return '^https?://([^/?#@]*\\.)?' + escapeRegex(parts.host) + '(:[0-9]+)?' + escapeRegex(parts.path) + '([/?#].*)?$';
}

const WORD = /[a-z0-9]/;

/**
 * True when `word` (a keyword, lower case) is a whole word of `text`: the characters around it
 * are not ASCII letters or digits. Mirrors LockCore's KeywordRule.
 */
export function keywordMatches(word, text) {
  const haystack = text.toLowerCase();
  for (let at = haystack.indexOf(word); at >= 0; at = haystack.indexOf(word, at + 1)) {
    const before = at === 0 || !WORD.test(haystack[at - 1]);
    const end = at + word.length;
    const after = end === haystack.length || !WORD.test(haystack[end]);
    if (before && after) return true;
  }
  return false;
}

/** The keyword blocking a URL (its host, path and query), or null; an allowed path wins. */
export function blockingKeyword(url, keywords, allowPaths) {
  let parsed;
  try { parsed = new URL(url); } catch { return null; }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const host = parsed.hostname.replace(/\.$/, '').toLowerCase();
  const text = host + (parsed.pathname || '/') + parsed.search;
  const word = (keywords || []).find((k) => keywordMatches(k, text));
  if (!word) return null;
  if ((allowPaths || []).some((r) => covers(r, host, parsed.pathname || '/'))) return null;
  return word;
}

/** The regular expression (RE2, matched without case) of the URLs containing a keyword. */
export function keywordRegex(word) {
  return '^https?://(.*[^a-z0-9])?' + escapeRegex(word) + '([^a-z0-9].*)?$';
}

/**
 * declarativeNetRequest rules for the path and keyword rules of the active sessions: each block rule
 * redirects to the shield (the blocked address after `?u=`), each exception is an allow rule
 * above it. Rule ids start at `firstId`.
 */
export function pathRulesToDnr(sessions, shieldUrl, firstId = 1) {
  const rules = [];
  let id = firstId;
  const seen = new Set();
  for (const session of sessions) {
    for (const rule of session.allowPaths || []) {
      if (seen.has('allow ' + rule)) continue;
      seen.add('allow ' + rule);
      // More specific exceptions win by priority: longer rules get higher numbers.
      rules.push({ id: id++, priority: 1000 + rule.length * 2 + 1, action: { type: 'allow' },
        condition: { regexFilter: ruleRegex(rule), resourceTypes: ['main_frame'], isUrlFilterCaseSensitive: false } });
    }
    for (const rule of session.paths || []) {
      if (seen.has('block ' + rule)) continue;
      seen.add('block ' + rule);
      rules.push({ id: id++, priority: 1000 + rule.length * 2, action: { type: 'redirect', redirect: { regexSubstitution: shieldUrl + '?u=\\0' } },
        condition: { regexFilter: ruleRegex(rule), resourceTypes: ['main_frame'], isUrlFilterCaseSensitive: false } });
    }
    // Keywords below every path rule and exception: an allowed path wins over a keyword.
    for (const word of session.keywords || []) {
      if (seen.has('keyword ' + word)) continue;
      seen.add('keyword ' + word);
      rules.push({ id: id++, priority: 500, action: { type: 'redirect', redirect: { regexSubstitution: shieldUrl + '?u=\\0' } },
        condition: { regexFilter: keywordRegex(word), resourceTypes: ['main_frame'], isUrlFilterCaseSensitive: false } });
    }
  }
  return rules;
}

/** `1h 04m`, `12m 05s`, `45s`. */
export function formatRemaining(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${two(m)}m`;
  if (m > 0) return `${m}m ${two(r)}s`;
  return `${r}s`;
}

/** What a session's origin means, in words. */
export function describeOrigin(origin) {
  if (origin === 'manual') return 'started by hand';
  if (origin === 'pomodoro') return 'a Pomodoro focus phase';
  if (origin.startsWith('schedule:')) return `the schedule ${origin.slice(9)}`;
  if (origin.startsWith('allowance:')) return `the time allowance ${origin.slice(10)} is used up`;
  return origin;
}

/** Today's local midnight, as the daemon's `from` wants it (RFC 3339, UTC). */
export function localMidnight(now = new Date()) {
  const d = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Blocked attempts today on `host` from an insights answer's top sites (its site or a parent). */
export function attemptsOn(host, insights) {
  let count = 0;
  for (const entry of (insights && insights.topSites) || []) {
    if (host === entry.name || host.endsWith('.' + entry.name)) count += entry.attempts;
  }
  return count;
}

/**
 * The site meter's clock: stretches of time on one host while the user is present, closed
 * when anything changes. `now` is in milliseconds (a monotonic clock in the worker).
 */
export class SiteMeter {
  constructor() { this.current = null; this.samples = []; }

  /** The host now in front (null: none, idle, or the browser is not in front). */
  observe(host, now, wall = new Date()) {
    if (this.current && this.current.host === host) return;
    this.close(now, wall);
    this.current = host ? { host, since: now } : null;
  }

  /** Ends the current stretch at `now` and starts the next one on the same host. */
  close(now, wall = new Date()) {
    if (!this.current) return;
    const seconds = (now - this.current.since) / 1000;
    if (seconds > 0.5) {
      // The daemon takes at most 120 s per sample: long stretches go in pieces.
      let left = seconds;
      let end = wall.getTime() - (seconds - Math.min(seconds, 120)) * 1000;
      while (left > 0) {
        const piece = Math.min(left, 120);
        this.samples.push({ host: this.current.host, end: new Date(end).toISOString(), seconds: piece });
        left -= piece;
        end += Math.min(left, 120) * 1000;
      }
    }
    this.current = { host: this.current.host, since: now };
  }

  /** The samples gathered since the last call. */
  take() { const s = this.samples; this.samples = []; return s; }
}
