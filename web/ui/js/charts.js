// Charts as SVG, each with an accessible name and a table-like description of its numbers.
import {h, s} from './dom.js';

/**
 * Vertical bars: `items` [{label, value, text}], an optional goal line. The figure is named
 * by `title`; each bar carries its value in a <title> for pointer users, and the description
 * lists every value for screen readers.
 */
export function barChart(title, items, {goal, format = String, height = 160} = {}) {
  const width = Math.max(360, items.length * 60);
  const max = Math.max(goal ?? 0, ...items.map((i) => i.value), 1);
  const top = 14;
  const base = height - 22;
  const band = width / Math.max(items.length, 1);
  const id = 'chart-' + title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  const description = items.map((i) => `${i.label}: ${format(i.value)}`).join('; ') + (goal ? `; goal ${format(goal)}` : '');
  const svg = s('svg', {viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': `${id}-t ${id}-d`, class: 'chart', preserveAspectRatio: 'xMidYMid meet'},
    s('title', {id: `${id}-t`}, title),
    s('desc', {id: `${id}-d`}, description),
    s('line', {x1: 0, x2: width, y1: base, y2: base, class: 'axis'}),
    items.map((item, index) => {
      const barHeight = ((base - top) * item.value) / max;
      const x = index * band + band * 0.2;
      return s('g', {},
        s('rect', {x, y: base - barHeight, width: band * 0.6, height: Math.max(barHeight, item.value > 0 ? 2 : 0), rx: 4, class: item.met ? 'bar met' : 'bar'},
          s('title', {}, `${item.label}: ${format(item.value)}`)),
        s('text', {x: x + band * 0.3, y: height - 6, 'text-anchor': 'middle', class: 'label'}, item.label));
    }),
    goal ? s('line', {x1: 0, x2: width, y1: base - ((base - top) * goal) / max, y2: base - ((base - top) * goal) / max, class: 'goal'}) : null);
  return h('figure', {class: 'figure'}, svg, h('figcaption', {class: 'muted small'}, title));
}

/** Horizontal bars for a ranking (apps, sites): the names are text, the bars SVG. */
export function rankChart(title, items, format = String) {
  if (!items.length) return h('p', {class: 'empty'}, 'Nothing recorded in this window.');
  const max = Math.max(...items.map((i) => i.value), 1);
  return h('ul', {class: 'ranking', 'aria-label': title}, items.map((item) =>
    h('li', {}, h('span', {class: 'rank-name'}, item.label), h('span', {class: 'rank-value'}, format(item.value)),
      s('svg', {viewBox: '0 0 100 8', preserveAspectRatio: 'none', class: 'rank-bar', 'aria-hidden': 'true'},
        s('rect', {x: 0, y: 0, width: Math.max(1, (100 * item.value) / max), height: 8, rx: 3})))));
}

/** A progress ring (Pomodoro): `fraction` of the circle drawn, text in the middle. */
export function ring(fraction, label, sublabel, name) {
  const radius = 88;
  const circumference = 2 * Math.PI * radius;
  const done = Math.min(1, Math.max(0, fraction));
  return s('svg', {viewBox: '0 0 200 200', class: 'ring', role: 'img', 'aria-label': name},
    s('circle', {cx: 100, cy: 100, r: radius, class: 'ring-track'}),
    s('circle', {cx: 100, cy: 100, r: radius, class: 'ring-progress', transform: 'rotate(-90 100 100)',
      'stroke-dasharray': `${circumference}`, 'stroke-dashoffset': `${circumference * (1 - done)}`, 'data-circumference': circumference}),
    s('text', {x: 100, y: 100, 'text-anchor': 'middle', class: 'ring-time'}, label),
    s('text', {x: 100, y: 128, 'text-anchor': 'middle', class: 'ring-phase'}, sublabel));
}
