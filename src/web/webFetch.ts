// The WebFetch tool ({url, prompt}, Claude Code's input): a page fetched within limits
// (fetchPage.ts), turned into Markdown (page.ts, imported on first use), headed by its title, URL and size, and the
// prompt the model asked it with. A large page is not cut: the spill rule archives it whole and
// the model gets its head and tail with a handle for Recall. Permission is per domain: the
// gate asks once for a host ("WebFetch(domain:docs.rs)"), which .agentrc's permissions.allowTools
// or --allowed-tools may grant ahead.
import * as z from 'zod/mini';
import { promptText } from '../promptText.js';
import { fmtBytes } from '../tools/format.js';
import { parseInput, toInputSchema } from '../tools/inputSchema.js';
import { TOOL } from '../tools/toolNames.js';
import { ToolInputError, type Tool, type ToolOutput } from '../tools/types.js';
import { fetchPage, urlRefusal, type FetchLimits } from './fetchPage.js';
import DESCRIPTION from './webFetch.md';

const WebFetchInput = z.object({
  url: z.string().check(z.minLength(1), z.describe('A full http:// or https:// URL.')),
  prompt: z.string().check(z.describe('What you want from the page.')),
});
export type WebFetchInput = z.infer<typeof WebFetchInput>;

/** The host a URL names, lower case; undefined for a string that is no URL. */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

export function createWebFetchTool(limits: FetchLimits): Tool<WebFetchInput> {
  const inputSchema = toInputSchema(WebFetchInput);
  return {
    name: TOOL.WebFetch,
    description: promptText(DESCRIPTION, { maxBytes: fmtBytes(limits.maxBytes), seconds: String(Math.round(limits.timeoutMs / 1000)) }),
    inputSchema,
    kind: 'fetch',
    // a fetch reaches outside: the gate asks (per domain) unless allowed
    traits: { readOnly: false },
    parse: (input) => {
      const parsed = parseInput('WebFetch', WebFetchInput, inputSchema, input);
      // refused before the gate asks about a domain: a local file or a malformed URL has none
      const why = urlRefusal(parsed.url);
      if (why) throw new ToolInputError(why);
      return parsed;
    },
    summarize: (input) => input.url,
    permissionScope: (input) => {
      const host = hostOf(input.url);
      return host ? `domain:${host}` : undefined;
    },
    run: async (input, ctx): Promise<ToolOutput> => {
      const page = await fetchPage(input.url, limits, ctx.signal);
      if (!page.ok) return { content: page.why, isError: true };
      // loaded on the first fetch: the HTML parsers are ~950 KB that every start would compile
      const { pageText } = await import('./page.js');
      const size = `${fmtBytes(page.body.length)}${page.truncated ? `, cut at ${fmtBytes(limits.maxBytes)}` : ''}`;
      if (page.status >= 400) {
        const text = pageText(page.body, page.contentType, page.url);
        const said = text.ok ? text.markdown.slice(0, 500) : '';
        return { content: `${page.url} answered HTTP ${page.status}.${said ? `\n\n${said}` : ''}`, isError: true };
      }
      const text = pageText(page.body, page.contentType, page.url);
      if (!text.ok) return { content: text.why, isError: true };
      // the first line is what the tool's row shows: the size first (a long URL is cut at the row's end), then the URL fetched
      const type = page.contentType.split(';')[0]!.trim() || 'no content type';
      const head = [`Fetched ${size}, HTTP ${page.status}, ${type}: ${page.url}`];
      if (input.prompt.trim() !== '') head.push(`Asked: ${input.prompt.trim()}`);
      return { content: `${head.join('\n')}\n\n# ${text.title}\n\n${text.markdown}`, isError: false };
    },
  };
}
