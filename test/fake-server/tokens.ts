import { countTokens } from 'gpt-tokenizer';
import type { Block } from '../../src/llm/messages.js';
import { base64ImageTokens } from '../../src/media/limits.js';

/** Framing overhead per message, as chat formats add role markers. */
export const MESSAGE_OVERHEAD = 4;

const ENCODE = { disallowedSpecial: new Set<string>() };

/**
 * Counts already made, by text. Every request re-sends the system prompt, the tool schemas and
 * the whole history, and the servers of a test worker's files share this module: counting only
 * what is new keeps the worker's CPU for the agents it waits on. Bounded by the text it holds.
 */
const counted = new Map<string, number>();
let countedChars = 0;
const COUNTED_CHARS_MAX = 32 * 1024 * 1024;

export function countText(text: string): number {
  if (text.length < 64) return text.length === 0 ? 0 : countTokens(text, ENCODE);
  const known = counted.get(text);
  if (known !== undefined) return known;
  const n = countTokens(text, ENCODE);
  if (countedChars + text.length > COUNTED_CHARS_MAX) {
    counted.clear();
    countedChars = 0;
  }
  counted.set(text, n);
  countedChars += text.length;
  return n;
}

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
