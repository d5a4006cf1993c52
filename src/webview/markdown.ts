// Markdown reports from the service, rendered safely: markdown-it with raw HTML off (any `<tag>` in the source is
// escaped as text), its output parsed in an inert document (no scripts run, nothing loads) and rebuilt element by
// element from an allowlist — no attribute but a checked href or a `language-*` class survives, images become
// their alt text. Nothing is ever assigned to innerHTML of the live page.
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Allowed elements and, for each, the attributes kept. */
const ALLOWED: Record<string, readonly string[]> = {
  p: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  ul: [],
  ol: ['start'],
  li: [],
  em: [],
  strong: [],
  s: [],
  del: [],
  code: ['class'],
  pre: [],
  blockquote: [],
  hr: [],
  br: [],
  a: ['href', 'title'],
  table: [],
  thead: [],
  tbody: [],
  tr: [],
  th: [],
  td: [],
};

function keepAttribute(tag: string, name: string, value: string): boolean {
  if (name === 'href') return /^(https?:|mailto:)/i.test(value.trim());
  if (name === 'class') return tag === 'code' && /^language-[\w+#.-]{1,40}$/.test(value);
  if (name === 'start') return /^\d{1,6}$/.test(value);
  return name === 'title';
}

function rebuild(node: Node, into: Node): void {
  if (node.nodeType === Node.TEXT_NODE) {
    into.appendChild(document.createTextNode(node.textContent ?? ''));
    return;
  }
  if (node.nodeType !== Node.ELEMENT_NODE) return;
  const source = node as Element;
  const tag = source.tagName.toLowerCase();
  if (tag === 'img') {
    into.appendChild(document.createTextNode(source.getAttribute('alt') ?? ''));
    return;
  }
  const allowed = ALLOWED[tag];
  // Unknown elements are unwrapped: their text stays, the element does not.
  const target: Node = allowed ? document.createElement(tag) : into;
  if (allowed && target instanceof Element) {
    for (const name of allowed) {
      const value = source.getAttribute(name);
      if (value !== null && keepAttribute(tag, name, value)) target.setAttribute(name, value);
    }
  }
  for (const child of Array.from(source.childNodes)) rebuild(child, target);
  if (target !== into) into.appendChild(target);
}

/** The markdown as DOM nodes built with createElement/createTextNode only. */
export function renderMarkdown(source: string): DocumentFragment {
  const inert = new DOMParser().parseFromString(md.render(source), 'text/html');
  const fragment = document.createDocumentFragment();
  for (const child of Array.from(inert.body.childNodes)) rebuild(child, fragment);
  return fragment;
}
