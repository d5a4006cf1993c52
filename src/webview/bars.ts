// A share as a small horizontal bar with its number beside it (tables of the results and compare pages).
import { h } from './dom';
import { formatPercent } from './format';

/** A 0..100 share; the bar is capped at full, the text says the number as it is (`text` overrides it). */
export function percentBar(p: number | null, text = formatPercent(p)): HTMLElement {
  const bar = h('span', { class: 'bar-fill' });
  bar.style.width = `${Math.max(0, Math.min(100, p ?? 0)).toFixed(2)}%`;
  return h(
    'span',
    { class: 'bar', role: 'img', 'aria-label': text },
    h('span', { class: 'bar-track' }, bar),
    h('span', { class: 'bar-text' }, text),
  );
}
