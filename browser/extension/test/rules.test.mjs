// The companion's pure rules, run with `node --test browser/extension/test/`.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  attemptsOn, blockingKeyword, blockingRule, covers, describeOrigin, formatRemaining, keywordMatches, keywordRegex, parseUrl,
  pathRulesToDnr, ruleRegex, SiteMeter,
} from '../lib/rules.js';

test('a path rule covers its path and below it by whole segments, on the site and its subdomains', () => {
  assert.equal(covers('youtube.com/shorts', 'www.youtube.com', '/shorts/abc'), true);
  assert.equal(covers('youtube.com/shorts', 'youtube.com', '/shorts'), true);
  assert.equal(covers('youtube.com/shorts', 'm.youtube.com', '/shorts/'), true);
  assert.equal(covers('youtube.com/shorts', 'youtube.com', '/watch'), false);
  assert.equal(covers('youtube.com/shorts', 'youtube.com', '/shortsale'), false);
  assert.equal(covers('youtube.com/shorts', 'notyoutube.com', '/shorts'), false);
});

test('the most specific rule wins, an exception wins a tie', () => {
  const block = ['reddit.com/r'];
  const allow = ['reddit.com/r/linux'];
  assert.equal(blockingRule('www.reddit.com', '/r/all', block, allow), 'reddit.com/r');
  assert.equal(blockingRule('www.reddit.com', '/r/linux/top', block, allow), null);
  assert.equal(blockingRule('reddit.com', '/r/all', ['reddit.com/r/all'], ['reddit.com/r/all']), null);
  assert.equal(blockingRule('reddit.com', '/', block, allow), null);
});

test('addresses: only http and https, host in lower case without a final dot', () => {
  assert.deepEqual(parseUrl('https://WWW.YouTube.com./shorts/x?y=1'), { host: 'www.youtube.com', path: '/shorts/x' });
  assert.equal(parseUrl('chrome://settings'), null);
  assert.equal(parseUrl('not a url'), null);
});

test('the redirect expression matches what the rule covers and nothing else', () => {
  const re = new RegExp(ruleRegex('youtube.com/shorts'), 'i');
  assert.ok(re.test('https://www.youtube.com/shorts/abc'));
  assert.ok(re.test('http://youtube.com:8080/shorts?x=1'));
  assert.ok(!re.test('https://www.youtube.com/watch?v=1'));
  assert.ok(!re.test('https://www.youtube.com/shortsale'));
  assert.ok(!re.test('https://evil.com/?youtube.com/shorts'));
  assert.ok(!re.test('https://youtube.com.evil.com/shorts'));
});

test('declarativeNetRequest rules: a redirect per block rule, exceptions above it', () => {
  const rules = pathRulesToDnr([{ paths: ['youtube.com/shorts'], allowPaths: ['youtube.com/shorts/ok'] }, { paths: ['youtube.com/shorts'] }], 'chrome-extension://x/shield.html');
  assert.equal(rules.length, 2);
  const [allow, block] = rules;
  assert.equal(allow.action.type, 'allow');
  assert.equal(block.action.type, 'redirect');
  assert.ok(allow.priority > block.priority);
  assert.equal(block.action.redirect.regexSubstitution, 'chrome-extension://x/shield.html?u=\\0');
  assert.deepEqual(rules.map((r) => r.id), [1, 2]);
});

test('time left and origins read as a person would say them', () => {
  assert.equal(formatRemaining(3840), '1h 04m');
  assert.equal(formatRemaining(725), '12m 05s');
  assert.equal(formatRemaining(44.2), '45s');
  assert.equal(formatRemaining(-3), '0s');
  assert.equal(describeOrigin('schedule:mornings'), 'the schedule mornings');
  assert.equal(describeOrigin('allowance:video'), 'the time allowance video is used up');
});

test('attempts today count the site and its subdomains', () => {
  const insights = { topSites: [{ name: 'reddit.com', attempts: 3 }, { name: 'old.reddit.com', attempts: 2 }, { name: 'x.com', attempts: 9 }] };
  assert.equal(attemptsOn('old.reddit.com', insights), 5);
  assert.equal(attemptsOn('reddit.com', insights), 3);
  assert.equal(attemptsOn('example.com', null), 0);
});

test('the site meter: stretches per host, closed on change, long ones split at 120 s', () => {
  const meter = new SiteMeter();
  const wall = new Date('2026-01-01T12:00:00Z');
  meter.observe('a.example', 0, wall);
  meter.observe('a.example', 5000, wall);
  meter.observe('b.example', 10000, new Date(wall.getTime() + 10000));
  meter.observe(null, 260000, new Date(wall.getTime() + 260000));
  const samples = meter.take();
  assert.deepEqual(samples.map((s) => [s.host, s.seconds]), [['a.example', 10], ['b.example', 120], ['b.example', 120], ['b.example', 10]]);
  assert.equal(samples[3].end, '2026-01-01T12:04:20.000Z');
  assert.equal(samples[1].end, '2026-01-01T12:02:10.000Z');
  assert.deepEqual(meter.take(), []);
  meter.observe(null, 300000);
  meter.close(400000);
  assert.deepEqual(meter.take(), [], 'nothing in front, nothing counted');
});

test('the manifest: MV3, spanning incognito, the bridge permission, a fixed id', async () => {
  const { readFile } = await import('node:fs/promises');
  const manifest = JSON.parse(await readFile(new URL('../manifest.json', import.meta.url), 'utf8'));
  assert.equal(manifest.manifest_version, 3);
  assert.equal(manifest.incognito, 'spanning');
  for (const permission of ['nativeMessaging', 'declarativeNetRequest', 'webNavigation', 'idle', 'tabs']) {
    assert.ok(manifest.permissions.includes(permission), permission);
  }
  assert.ok(manifest.key.length > 300);
  assert.equal(manifest.browser_specific_settings.gecko.id, 'companion@simplylock.org');
});

test('keywords: whole words of the host, path and query, any case; an allowed path wins', () => {
  assert.ok(keywordMatches('shorts', 'www.youtube.com/results?search_query=Shorts'));
  assert.ok(keywordMatches('shorts', 'www.youtube.com/shorts/abc'));
  assert.ok(keywordMatches('shorts', 'shorts.example.org/'));
  assert.ok(keywordMatches('shorts', 'x.org/?q=funny+shorts'));
  assert.ok(!keywordMatches('shorts', 'www.youtube.com/watch?v=1'));
  assert.ok(!keywordMatches('shorts', 'x.org/shortstop'));
  assert.ok(!keywordMatches('shorts', 'x.org/myshorts'));
  assert.equal(blockingKeyword('https://www.youtube.com/results?q=shorts#x', ['shorts'], []), 'shorts');
  assert.equal(blockingKeyword('https://www.youtube.com/watch?v=1#shorts', ['shorts'], []), null, 'the fragment is not sent');
  assert.equal(blockingKeyword('https://www.youtube.com/watch?v=shorts', ['shorts'], ['youtube.com/watch']), null);
  assert.equal(blockingKeyword('ftp://x.org/shorts', ['shorts'], []), null);
  // The network rule's expression agrees (RE2 and JavaScript read this one the same way).
  const re = new RegExp(keywordRegex('shorts'), 'i');
  for (const [url, blocked] of [['https://www.youtube.com/results?q=SHORTS', true], ['http://x.test:8080/shorts', true],
    ['https://shorts.example.org/', true], ['https://x.org/shortstop', false], ['https://www.youtube.com/watch?v=1', false]]) {
    assert.equal(re.test(url), blocked, url);
  }
  const rules = pathRulesToDnr([{ paths: ['a.test/x'], allowPaths: ['a.test/ok'], keywords: ['shorts'] }], 'chrome-extension://id/shield.html');
  const keyword = rules.find((r) => r.condition.regexFilter === keywordRegex('shorts'));
  assert.equal(keyword.action.type, 'redirect');
  assert.ok(rules.filter((r) => r.action.type === 'allow').every((r) => r.priority > keyword.priority), 'exceptions win over keywords');
});
