// A fetched page as the model reads it: HTML turned into clean Markdown (Mozilla's Readability
// picks the article out of the page, as Firefox's reader view does, over linkedom's DOM; turndown
// writes the Markdown), with the title and the URL on top. Scripts, styles, navigation, headers,
// footers and forms never reach the model. Text, Markdown and JSON pass as they are; other types
// (images, archives, PDFs) are refused with what they are.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { fmtInt } from '../tools/format.js';

export type PageText = { ok: true; title: string; markdown: string } | { ok: false; why: string };

/** Elements that are never content: removed before Readability looks, and from the fallback too. */
const NOT_CONTENT =
  'script, style, noscript, template, iframe, svg, canvas, nav, header, footer, aside, form, button, dialog, [role=navigation], [aria-hidden=true]';

const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|x-javascript|ld\+json)|[^;]*\+json|[^;]*\+xml)/i;

export function pageText(body: Buffer, contentType: string, url: string): PageText {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const text = body.toString('utf8');
  const html = type === 'text/html' || type === 'application/xhtml+xml' || (type === '' && /^\s*(<!doctype html|<html)/i.test(text));
  if (html) return { ok: true, ...htmlToMarkdown(text, url) };
  if (type === '' || TEXT_TYPES.test(type)) return { ok: true, title: url.split('/').pop() || url, markdown: text };
  return {
    ok: false,
    why: `${url} is ${type} (${fmtInt(body.length)} bytes), not a page of text; WebFetch reads HTML, text, Markdown and JSON.`,
  };
}

/** Pages larger than these keep their whole body (what is never content removed) instead of Readability's pick. */
const READABILITY_MAX_CHARS = 1024 * 1024;
const READABILITY_MAX_ELEMENTS = 10_000;

export function htmlToMarkdown(html: string, url: string): { title: string; markdown: string } {
  const { document } = parseHTML(html);
  for (const el of document.querySelectorAll(NOT_CONTENT)) el.remove();
  const fallbackTitle = document.querySelector('title')?.textContent?.trim() ?? '';
  let title = fallbackTitle;
  let content = document.body?.innerHTML ?? html;
  try {
    // Readability changes the document it reads: it gets a copy. Over linkedom it is slow on a
    // huge page (3.7 s for 8,000 paragraphs here): such a page keeps its body, cleaned as above.
    if (html.length > READABILITY_MAX_CHARS) throw new Error('too large for Readability');
    const copy = parseHTML(document.toString()).document as unknown as Document;
    const article = new Readability(copy, { charThreshold: 200, maxElemsToParse: READABILITY_MAX_ELEMENTS }).parse();
    if (article?.content && (article.textContent ?? '').trim().length > 0) {
      content = article.content;
      title = article.title?.trim() || fallbackTitle;
    }
  } catch {
    // a page Readability cannot take: its body, without what is never content, stands
  }
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove(['script', 'style', 'noscript', 'iframe']);
  const markdown = turndown
    .turndown(content)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: title || url, markdown };
}
