// A tiny element builder. Text always goes in as text nodes (never parsed as HTML): kernel names, program
// output and server messages are untrusted. Attributes are set one by one and `on*` attributes are refused, so
// data can never become a handler.

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;

const SVG_NS = 'http://www.w3.org/2000/svg';

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (/^on/i.test(k)) throw new Error(`refusing event-handler attribute ${k}`);
    el.setAttribute(k, v === true ? '' : String(v));
  }
}

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** A table row: its cells, and attributes of its `tr` (a class, data-* for the tests and the state report). */
export interface TableRow {
  cells: Child[];
  attrs?: Attrs;
}

/** A column: its header, and whether it is one of the row's key columns (kept beside the first cell when a
 * narrow panel lays the rows out one under another; the other cells move under them, each with its header). */
export type Column = string | { label: string; key?: boolean };

/** From this many columns a table lays its rows out one under another in a narrow panel (media/results.css). */
const STACKED_FROM_COLUMNS = 4;

/**
 * A data table inside its own horizontal scroller: a narrow panel scrolls the table, never the whole page. The
 * scroller is focusable so the keyboard can scroll it too; `label` names it for screen readers (default: the caption).
 * Each cell carries its column's header (`data-label`): where the panel is too narrow for the table, one shared CSS
 * rule shows every row as its first cell and key columns, with the other cells labelled under them.
 */
export function dataTable(
  caption: string,
  headers: Column[],
  rows: Array<Child[] | TableRow>,
  cls = '',
  label = caption,
): HTMLElement {
  const columns = headers.map((c) => (typeof c === 'string' ? { label: c, key: false } : { key: false, ...c }));
  const tr = (r: Child[] | TableRow) => {
    const { cells, attrs } = Array.isArray(r) ? { cells: r, attrs: {} } : r;
    return h(
      'tr',
      attrs ?? {},
      ...cells.map((c, i) =>
        h('td', { 'data-label': columns[i]?.label ?? '', class: columns[i]?.key ? 'key' : null }, c),
      ),
    );
  };
  const stacks = columns.length >= STACKED_FROM_COLUMNS ? 'stackable' : '';
  return h(
    'div',
    { class: 'table-scroll', role: 'region', 'aria-label': label, tabindex: 0 },
    h(
      'table',
      { class: `data ${stacks} ${cls}`.replace(/\s+/g, ' ').trim() },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...columns.map((x) => h('th', { scope: 'col' }, x.label)))),
      h('tbody', {}, ...rows.map(tr)),
    ),
  );
}
