import { describe, expect, it } from 'vitest';
import { ToolInputError } from '../../src/tools/types.js';
import { createWebFetchTool } from '../../src/web/webFetch.js';

// WebFetch's input as the model sees it and as it is checked (src/web/webFetch.ts): a URL of at
// least one character, refused by the schema's words before the gate asks about any domain.

describe("WebFetch's input", () => {
  it('tells the model a URL is never empty, and refuses an empty one in the schema’s words', () => {
    const tool = createWebFetchTool({ maxBytes: 1_000, timeoutMs: 1_000, allowPrivate: [] });
    // mutation: minLength(0) lets the model send '' (and tells it so)
    expect(tool.inputSchema).toMatchObject({ properties: { url: { type: 'string', minLength: 1 } }, required: ['url', 'prompt'] });
    expect(() => tool.parse({ url: '', prompt: 'the title' })).toThrow(
      new ToolInputError('WebFetch: invalid input: "url": Too small: expected string to have >=1 characters (got "")'),
    );
  });
});
