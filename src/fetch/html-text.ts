/**
 * Turns an HTML page into readable text and its title, through html-to-text (a real HTML parser,
 * htmlparser2, underneath) rather than patterns. What counts as page furniture is decided here.
 */
import { compile } from 'html-to-text';

// Elements that carry no reading text: code, styling, menus, forms and embedded media.
const SKIPPED = [
  'head',
  'title',
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  '[role="navigation"]',
  '[hidden]',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'img',
  'picture',
  'video',
  'audio',
  'form',
  'button',
  'input',
  'select',
  'textarea',
];

const LIMITS = {
  // The body cap already bounds the input; without this html-to-text would truncate past 16M characters.
  maxInputLength: Number.POSITIVE_INFINITY,
  // Deeper nesting than this is machine-made; stopping there keeps the recursive walk off the stack limit.
  maxDepth: 500,
};

const toText = compile({
  // Passages are split on blank lines and re-flowed later, so hard wrapping would only add noise.
  wordwrap: false,
  limits: LIMITS,
  selectors: [
    ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
    // Link targets and upper-cased headings are for terminals; a memory wants the words as written.
    { selector: 'a', options: { ignoreHref: true } },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});

const toTitle = compile({
  wordwrap: false,
  limits: { ...LIMITS, maxBaseElements: 1 },
  // Only the document's own <title> (the first one, so an <svg><title> later cannot replace it).
  baseElements: { selectors: ['title'], returnDomByDefault: false },
});

/** A page's reading text and its `<title>`, whitespace-collapsed, or null when it has none. */
export interface HtmlText {
  text: string;
  title: string | null;
}

/**
 * Readable text of `html`: paragraphs, headings, lists and tables kept as blank-line separated
 * blocks; scripts, styles, navigation, forms and media dropped; entities decoded.
 */
export function htmlToText(html: string): HtmlText {
  const title = toTitle(html).replace(/\s+/g, ' ').trim();
  return { text: toText(html).trim(), title: title || null };
}
