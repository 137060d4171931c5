import type { Usage } from '../llm/messages.js';

/**
 * USD per million tokens: input, output, cache read, cache write. Prefix-matched like the model table.
 * OpenAI bills the tokens its Responses API reports as cache writes as ordinary input.
 */
interface Price {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const PRICES: Record<string, Price> = {
  'claude-fable-5-2': { input: 8, output: 40, cacheRead: 0.8, cacheWrite: 10 },
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 },
  'claude-fable-5': { input: 10, output: 50, cacheRead: 1, cacheWrite: 12.5 },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.4, cacheWrite: 5 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-7': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 1.25 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0.25 },
  'gpt-5-nano': { input: 0.05, output: 0.4, cacheRead: 0.005, cacheWrite: 0.05 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0.4 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0.1 },
  'gpt-4o': { input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 2.5 },
  'gpt-4o-mini': { input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 },
  o3: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 2 },
  'o4-mini': { input: 1.1, output: 4.4, cacheRead: 0.275, cacheWrite: 1.1 },
};

function priceFor(model: string): Price | undefined {
  let best: string | undefined;
  for (const k of Object.keys(PRICES)) {
    if ((model === k || (model.startsWith(k) && /[-_:@.]/.test(model.charAt(k.length)))) && (!best || k.length > best.length)) best = k;
  }
  return best ? PRICES[best] : undefined;
}

/** What each part of the usage cost, in USD. */
export interface CostBreakdown {
  input: number;
  output: number;
  cacheRead: number;
  /** Cache writes: 5m entries at the write price (1.25× input), 1h entries at 2× input. */
  cacheWrite: number;
  total: number;
}

/** The cost of a usage by part, or undefined for a model without a known price (local models). */
export function costBreakdown(model: string, u: Usage): CostBreakdown | undefined {
  const p = priceFor(model);
  if (!p) return undefined;
  const oneHour = Math.min(u.cacheWrite1hTokens ?? 0, u.cacheWriteTokens);
  const parts = {
    input: (u.inputTokens * p.input) / 1_000_000,
    output: (u.outputTokens * p.output) / 1_000_000,
    cacheRead: (u.cacheReadTokens * p.cacheRead) / 1_000_000,
    cacheWrite: ((u.cacheWriteTokens - oneHour) * p.cacheWrite + oneHour * p.input * ONE_HOUR_WRITE) / 1_000_000,
  };
  return { ...parts, total: parts.input + parts.output + parts.cacheRead + parts.cacheWrite };
}

/** 1h cache writes cost twice the input price. */
const ONE_HOUR_WRITE = 2;

/** USD per million input and output tokens, for the /model picker; undefined without a known price. */
export function pricePerMillion(model: string): { input: number; output: number } | undefined {
  const p = priceFor(model);
  return p ? { input: p.input, output: p.output } : undefined;
}
