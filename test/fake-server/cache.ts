import { createHash } from 'node:crypto';

// The providers' prompt caches as the fake server simulates them, from their documented rules.
//
// Anthropic: a request marks cache breakpoints (cache_control, at most 4) on blocks, in the
// order tools → system → messages. At each breakpoint it reads the longest earlier cached
// prefix found within 20 blocks before it (the lookback), and writes the prefix up to each
// breakpoint past what it read, when that prefix holds at least the minimum (1,024 tokens).
// Entries live 5 minutes (or 1 hour), refreshed by every hit. Usage: input_tokens is what
// comes after the last written or read position, cache_read/cache_creation the rest.
//
// OpenAI: automatic for prompts of 1,024 tokens or more; the longest prefix seen before is
// reused in 128-token steps (1,024, 1,152, …); prompt_cache_key routes requests that share a
// prefix to the same cache. Entries live 5 minutes without use.

/** One block of a prompt in cache order: what identifies it (markers left out), its tokens, its breakpoint. */
export interface Segment {
  key: string;
  tokens: number;
  breakpoint?: '5m' | '1h';
}

export interface AnthropicCacheUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The part of the writes made with the 1h TTL. */
  cacheWrite1hTokens: number;
}

export const MIN_CACHEABLE_TOKENS = 1_024;
export const LOOKBACK_BLOCKS = 20;
export const OPENAI_CACHE_STEP = 128;
const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
const OPENAI_TTL_MS = 5 * 60_000;
const MAX_ENTRIES = 20_000;

interface Entry {
  expires: number;
  ttlMs: number;
}

/** Prefix hashes: hashes[i] identifies segments 0..i. */
function prefixHashes(scope: string, segments: readonly Segment[]): string[] {
  const out: string[] = [];
  let h = createHash('sha256').update(scope).digest('hex');
  for (const s of segments) {
    h = createHash('sha256').update(h).update('\u0000').update(s.key).digest('hex');
    out.push(h);
  }
  return out;
}

/** Cumulative tokens through each segment, scaled like the prompt count, the last one equal to the prompt's total. */
function cumulative(segments: readonly Segment[], multiplier: number, total: number): number[] {
  const out: number[] = [];
  let raw = 0;
  for (const s of segments) {
    raw += s.tokens;
    out.push(Math.min(total, Math.ceil(raw * multiplier)));
  }
  if (out.length > 0) out[out.length - 1] = total;
  return out;
}

export class PromptCacheSim {
  private readonly entries = new Map<string, Entry>();
  private offsetMs = 0;
  minTokens = MIN_CACHEABLE_TOKENS;

  /** The simulated clock (real time plus what advance() added). */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the clock on, e.g. past a TTL. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private live(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private put(key: string, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { expires: this.now() + ttlMs, ttlMs });
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }

  /** One Anthropic request: what it read and wrote; the cache is updated. */
  anthropic(model: string, segments: readonly Segment[], multiplier: number, promptTokens: number): AnthropicCacheUsage {
    const hashes = prefixHashes(`anthropic:${model}`, segments);
    const cum = cumulative(segments, multiplier, promptTokens);
    const breakpoints = segments.flatMap((s, i) => (s.breakpoint ? [i] : []));
    let read = -1;
    for (const b of breakpoints) {
      for (let j = b; j >= Math.max(0, b - LOOKBACK_BLOCKS); j--) {
        if (this.live(hashes[j]!)) {
          read = Math.max(read, j);
          break;
        }
      }
    }
    const readTokens = read >= 0 ? cum[read]! : 0;
    if (read >= 0) this.put(hashes[read]!, this.entries.get(hashes[read]!)!.ttlMs);
    let written = readTokens;
    let written1h = 0;
    for (const b of breakpoints) {
      if (b <= read || cum[b]! < this.minTokens) continue;
      const ttl = segments[b]!.breakpoint!;
      this.put(hashes[b]!, TTL_MS[ttl]);
      if (ttl === '1h') written1h = cum[b]! - readTokens;
      written = cum[b]!;
    }
    return { inputTokens: promptTokens - written, cacheReadTokens: readTokens, cacheWriteTokens: written - readTokens, cacheWrite1hTokens: written1h };
  }

  /** One OpenAI request: the cached tokens it reports; the prompt is remembered. */
  openai(model: string, cacheKey: string | undefined, segments: readonly Segment[], multiplier: number, promptTokens: number): number {
    const hashes = prefixHashes(`openai:${model}:${cacheKey ?? ''}`, segments);
    const cum = cumulative(segments, multiplier, promptTokens);
    let common = 0;
    for (let i = hashes.length - 1; i >= 0; i--) {
      if (this.live(hashes[i]!)) {
        common = cum[i]!;
        break;
      }
    }
    for (const h of hashes) this.put(h, OPENAI_TTL_MS);
    if (promptTokens < this.minTokens || common < this.minTokens) return 0;
    return this.minTokens + Math.floor((common - this.minTokens) / OPENAI_CACHE_STEP) * OPENAI_CACHE_STEP;
  }
}

/** The JSON of a value without cache_control keys (markers are not part of the cached prefix). */
export function keyOf(value: unknown): string {
  return JSON.stringify(value, (k, v: unknown) => (k === 'cache_control' ? undefined : v));
}
