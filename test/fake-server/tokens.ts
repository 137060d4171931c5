import { countTokens } from 'gpt-tokenizer';
import type { Block } from '../../src/llm/messages.js';
import { base64ImageTokens } from '../../src/media/limits.js';

/** Framing overhead per message, as chat formats add role markers. */
export const MESSAGE_OVERHEAD = 4;

const ENCODE = { disallowedSpecial: new Set<string>() };

export const countText = (text: string): number => (text.length === 0 ? 0 : countTokens(text, ENCODE));

export function countBlock(b: Block): number {
  switch (b.type) {
    case 'text':
      return countText(b.text);
    case 'tool_use':
      return countText(b.name) + countText(JSON.stringify(b.input));
    case 'tool_result':
      // an image counts by its pixels, as the services count it (Anthropic: w×h/750 of the size it is seen at)
      return countText(b.content) + 2 + (b.images ?? []).reduce((n, i) => n + base64ImageTokens(i.data), 0);
    case 'image':
      return base64ImageTokens(b.data);
    case 'thinking':
      return countText(b.thinking);
    case 'redacted_thinking':
      return countText(b.data);
    case 'reasoning':
      return countText(b.summary.join('\n'));
    case 'web_search':
      // the provider's blocks as sent back, encrypted results included (src/compaction/tokens.ts counts them alike)
      return countText(JSON.stringify(b.wire));
  }
}

export interface CountableTool {
  name: string;
  description?: string;
  schema: unknown;
}

/** The server's count of a prompt: system + messages + tool schemas, times the multiplier, rounded up. */
/** What one tool definition counts for. */
export const countTool = (t: CountableTool): number => countText(t.name) + countText(t.description ?? '') + countText(JSON.stringify(t.schema ?? {}));

export function countPrompt(system: string, messages: readonly { blocks: readonly Block[] }[], tools: readonly CountableTool[], multiplier: number): number {
  let n = countText(system);
  for (const m of messages) {
    n += MESSAGE_OVERHEAD;
    for (const b of m.blocks) n += countBlock(b);
  }
  for (const t of tools) n += countTool(t);
  return Math.ceil(n * multiplier);
}
