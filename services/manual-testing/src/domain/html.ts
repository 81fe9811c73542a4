/**
 * Rich-HTML fields (session `mission`, release and run `note`, case comments, run-case `comment` and step
 * comments) are sanitized before they are stored, so stored HTML never carries scripts, event handlers,
 * `javascript:` URLs, styles or frames. Formatting (paragraphs, lists, emphasis, links, tables, code) is kept.
 * Links always carry rel="noopener noreferrer" (a linked page neither gets a handle on the app's window nor learns
 * its URL). Images are kept only from Assay itself (a relative src): a remote image would tell its host who read
 * the note and when (a tracking pixel), and the app's Content-Security-Policy (img-src 'self') would not load it
 * anyway; an image left without a src is dropped.
 */
import sanitizeHtml from 'sanitize-html';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'ins'],
  allowedAttributes: {
    a: ['href', 'name', 'target', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    ol: ['start'],
    code: ['class'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: [] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: { a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } }) },
  exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
};

export function sanitizeRichHtml(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
