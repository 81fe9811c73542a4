/**
 * The rich-HTML fields of manual testing (a session's charter, release and run notes, comments). The API
 * sanitizes them before storing; the app still never injects HTML: it parses the text in an inert document and
 * rebuilds a small set of formatting elements as React elements, keeping only http(s) and mailto links.
 * People write these fields as plain text here: paragraphs and line breaks become <p> and <br>.
 */
import { createElement, type ReactNode } from 'react';

const KEEP = new Set([
  'p',
  'br',
  'ul',
  'ol',
  'li',
  'strong',
  'b',
  'em',
  'i',
  'u',
  'del',
  'ins',
  's',
  'code',
  'pre',
  'blockquote',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'hr',
  'sub',
  'sup',
]);
/** Headings inside a note would break the page's outline: shown as strong paragraphs. */
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function safeHref(href: string | null): string | undefined {
  if (!href) return undefined;
  try {
    const url = new URL(href, window.location.origin);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function convert(node: Node, key: number): ReactNode {
  if (node.nodeType === Node.TEXT_NODE) return node.textContent;
  if (node.nodeType !== Node.ELEMENT_NODE) return null;
  const el = node as Element;
  const tag = el.tagName.toLowerCase();
  const children = Array.from(el.childNodes).map(convert);
  if (tag === 'a') {
    const href = safeHref(el.getAttribute('href'));
    return href ? createElement('a', { key, href, rel: 'noreferrer noopener', target: '_blank' }, ...children) : children;
  }
  if (HEADINGS.has(tag)) return createElement('p', { key }, createElement('strong', null, ...children));
  if (tag === 'br' || tag === 'hr') return createElement(tag, { key });
  if (KEEP.has(tag)) return createElement(tag, { key }, ...children);
  return createElement('span', { key }, ...children);
}

export function RichText({ html, empty = '—' }: { html: string; empty?: string }) {
  if (!html.trim()) return <p className="muted">{empty}</p>;
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return <div className="manual-rich">{Array.from(doc.body.childNodes).map(convert)}</div>;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Plain text as typed → HTML: blank lines part paragraphs, single line breaks stay. */
export function textToHtml(text: string): string {
  return text
    .trim()
    .split(/\n\s*\n/)
    .filter((p) => p.trim())
    .map((p) => `<p>${escape(p.trim()).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** Stored HTML → the plain text a person edits (paragraphs, breaks and list items kept as lines). */
export function htmlToText(html: string): string {
  if (!html.trim()) return '';
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const blocks: string[] = [];
  const walk = (node: Node): string => {
    if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    const tag = (node as Element).tagName.toLowerCase();
    const inner = Array.from(node.childNodes).map(walk).join('');
    if (tag === 'br') return '\n';
    if (tag === 'li') return `- ${inner.trim()}\n`;
    return inner;
  };
  for (const child of Array.from(doc.body.childNodes)) {
    const text = walk(child).trim();
    if (text) blocks.push(text);
  }
  return blocks.join('\n\n');
}
