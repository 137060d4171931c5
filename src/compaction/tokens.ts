import type { Block, Message, ProviderStateBlock, WebSearchBlock } from '../llm/messages.js';
import type { ToolSpec } from '../llm/provider.js';
import { base64ImageTokens } from '../media/limits.js';

/** What images cost: by their pixels (Anthropic's w×h/750 of the size sent), never by their base64 length. */
const imagesTokens = (images: readonly { data: string }[] | undefined): number => (images ?? []).reduce((n, i) => n + base64ImageTokens(i.data), 0);

/**
 * Counts of what every runtime of a process sends alike (the tool definitions, the system prompt),
 * by text: a sub-agent, a resumed session and each in-process run of the tests build a counter of
 * their own and would tokenize them again. Only for the tokenizer's counts; cleared past 256 texts.
 */
const sharedCounts = new Map<string, number>();
/** The JSON of a frozen tool input schema, by schema object (the built-in tools', shared: tools/inputSchema.ts). */
const schemaJson = new WeakMap<object, string>();

/** Counts the tokens of a string. */
export type CountFn = (text: string) => number;

/** Framing the providers add around each message (role markers, separators). */
export const MESSAGE_OVERHEAD = 4;
/** Framing around a tool call (its id, the name and argument wrappers). */
export const TOOL_USE_OVERHEAD = 8;
/** Framing around a tool result (tool_use_id, is_error). */
export const TOOL_RESULT_OVERHEAD = 6;
/** Framing around each tool definition. */
export const TOOL_SPEC_OVERHEAD = 8;
/** Framing a request adds beyond its parts, for the upper bound (role markers, the tools wrapper). */
export const REQUEST_OVERHEAD = 64;

let loaded: CountFn | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads gpt-tokenizer (o200k_base). Its import costs ~170 ms, so it happens once, lazily,
 * on the paths that need counts; counting is synchronous afterwards.
 */
export function loadTokenizer(): Promise<void> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((mod) => {
    // Text from files and tool outputs may contain "<|endoftext|>" and friends: count them as text.
    const opts = { disallowedSpecial: new Set<string>() };
    loaded = (text: string) => mod.countTokens(text, opts);
  });
  return loading;
}

export const tokenizerLoaded = (): boolean => loaded !== undefined;

function tokenizerCount(text: string): number {
  if (!loaded) throw new Error('the tokenizer is not loaded: await loadTokenizer() first');
  return loaded(text);
}

/** What a thinking or reasoning block puts in front of the model, as text to count. */
function providerStateText(b: ProviderStateBlock): string {
  if (b.type === 'thinking') return b.thinking;
  if (b.type === 'redacted_thinking') return b.data;
  return b.summary.join('\n') + (b.encryptedContent ?? '');
}

/** What a search puts in front of the model, as text to count: its blocks as sent back (the fake counts them alike). */
export const webSearchWireText = (b: WebSearchBlock): string => JSON.stringify(b.wire);

/** UTF-8 length: no token of a byte-level BPE (any provider's) is shorter than one byte. */
const bytesOf = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Rough tokens of a thinking or reasoning block (its bytes ÷ bytesPerToken), as bytesEstimate counts it. */
export const roughProviderState = (b: ProviderStateBlock, bytesPerToken: number): number => Math.ceil(bytesOf(providerStateText(b)) / bytesPerToken);

function bytesEstimate(msg: Message, bytesPerToken: number): number {
  const rough = (text: string): number => Math.ceil(bytesOf(text) / bytesPerToken);
  let total = MESSAGE_OVERHEAD;
  for (const b of msg.blocks) {
    if (b.type === 'text') total += rough(b.text);
    else if (b.type === 'tool_use') total += TOOL_USE_OVERHEAD + rough(b.name) + rough(JSON.stringify(b.input));
    else if (b.type === 'tool_result') total += TOOL_RESULT_OVERHEAD + rough(b.content) + imagesTokens(b.images);
    else if (b.type === 'image') total += base64ImageTokens(b.data);
    else if (b.type === 'web_search') total += rough(webSearchWireText(b));
    else total += roughProviderState(b, bytesPerToken);
  }
  return total;
}

/**
 * Token estimates for text, messages and tool schemas. Counts are memoized per message and
 * per block object (both are immutable once complete), so a turn only pays for what is new.
 *
 * Exact counts need the tokenizer (~150 ms to load), which most short sessions never need:
 * until it is loaded (`ready`), callers use `bound*`, a cheap upper bound (bytes, or a count
 * already known), and load it (`load()`) only once that bound comes near a threshold.
 */
export class TokenCounter {
  private readonly count: CountFn;
  private readonly custom: boolean;
  private readonly messages = new WeakMap<Message, number>();
  private readonly blocks = new WeakMap<Block, number>();
  private readonly specs = new WeakMap<ToolSpec, number>();
  private readonly bounds = new WeakMap<Message, number>();
  private lastSystem: { text: string; tokens: number } | undefined;

  /** `count` replaces the tokenizer (tests, benchmarks); by default gpt-tokenizer, loaded by `load()`. */
  constructor(count?: CountFn) {
    this.count = count ?? tokenizerCount;
    this.custom = count !== undefined;
  }

  /** Exact counts are available (the tokenizer is loaded, or a count function was given). */
  get ready(): boolean {
    return this.custom || tokenizerLoaded();
  }

  /** Loads the tokenizer if counts need it; resolves at once when already ready. */
  load(): Promise<void> {
    return this.ready ? Promise.resolve() : loadTokenizer();
  }

  /** Upper bound of a message's tokens: its known count, else its bytes plus framing. */
  boundMessage(msg: Message): number {
    const known = this.messages.get(msg) ?? this.bounds.get(msg);
    if (known !== undefined) return known;
    const total = bytesEstimate(msg, 1);
    this.bounds.set(msg, total);
    return total;
  }

  /**
   * Tokens of a whole request without the tokenizer: counts already known, else bytes divided
   * by `bytesPerToken`. With 1 (the default) it is an upper bound; with ~4, a rough estimate.
   */
  boundRequest(system: string, tools: readonly ToolSpec[], history: readonly Message[], bytesPerToken = 1): number {
    const rough = (text: string): number => Math.ceil(bytesOf(text) / bytesPerToken);
    let total = REQUEST_OVERHEAD + (this.lastSystem?.text === system ? this.lastSystem.tokens : rough(system));
    for (const t of tools) total += this.specs.get(t) ?? TOOL_SPEC_OVERHEAD + rough(t.name) + rough(t.description) + rough(JSON.stringify(t.inputSchema));
    return total + this.boundMessages(history, bytesPerToken);
  }

  /** The messages' part of boundRequest, from index `from` on. */
  boundMessages(history: readonly Message[], bytesPerToken = 1, from = 0): number {
    let total = 0;
    for (let i = from; i < history.length; i++) {
      const m = history[i]!;
      total += bytesPerToken === 1 ? this.boundMessage(m) : (this.messages.get(m) ?? bytesEstimate(m, bytesPerToken));
    }
    return total;
  }

  countText(text: string): number {
    return text.length === 0 ? 0 : this.count(text);
  }

  /** Memoized: the same message object is tokenized once. */
  countMessage(msg: Message): number {
    const cached = this.messages.get(msg);
    if (cached !== undefined) return cached;
    let total = MESSAGE_OVERHEAD;
    for (const block of msg.blocks) total += this.countBlock(block);
    this.messages.set(msg, total);
    return total;
  }

  /**
   * Seeds the memo with a count stored earlier (a resumed session's rows), so that resuming does
   * not tokenize the whole visible history again. The anchor on the provider's reported figure
   * corrects any drift at the first response.
   */
  prime(msg: Message, tokens: number): void {
    if (!this.messages.has(msg)) this.messages.set(msg, tokens);
  }

  countMessages(msgs: readonly Message[]): number {
    let total = 0;
    for (const m of msgs) total += this.countMessage(m);
    return total;
  }

  /** Memoized per block object (a replaced message keeps its unchanged blocks). */
  countBlock(block: Block): number {
    const cached = this.blocks.get(block);
    if (cached !== undefined) return cached;
    let n: number;
    switch (block.type) {
      case 'text':
        n = this.countText(block.text);
        break;
      case 'tool_use':
        n = TOOL_USE_OVERHEAD + this.countText(block.name) + this.countText(JSON.stringify(block.input));
        break;
      case 'tool_result':
        n = TOOL_RESULT_OVERHEAD + this.countText(block.content) + imagesTokens(block.images);
        break;
      case 'image':
        n = base64ImageTokens(block.data);
        break;
      case 'web_search':
        n = this.countText(webSearchWireText(block));
        break;
      case 'thinking':
      case 'redacted_thinking':
      case 'reasoning':
        n = this.countText(providerStateText(block));
        break;
    }
    this.blocks.set(block, n);
    return n;
  }

  /** A text every runtime sends alike: counted once per process with the tokenizer. */
  private countShared(text: string): number {
    if (this.custom) return this.countText(text);
    const known = sharedCounts.get(text);
    if (known !== undefined) return known;
    const n = this.countText(text);
    if (sharedCounts.size >= 256) sharedCounts.clear();
    sharedCounts.set(text, n);
    return n;
  }

  /** The system prompt (the last one is remembered: it rarely changes). */
  countSystem(system: string): number {
    if (this.lastSystem?.text === system) return this.lastSystem.tokens;
    const tokens = this.countShared(system);
    this.lastSystem = { text: system, tokens };
    return tokens;
  }

  /** Tool definitions as sent to the provider; memoized per spec object. */
  countToolSpecs(tools: readonly ToolSpec[]): number {
    let total = 0;
    for (const t of tools) {
      let n = this.specs.get(t);
      if (n === undefined) {
        let json = schemaJson.get(t.inputSchema);
        if (json === undefined) {
          json = JSON.stringify(t.inputSchema);
          // only a frozen schema cannot change under its JSON
          if (Object.isFrozen(t.inputSchema)) schemaJson.set(t.inputSchema, json);
        }
        n = TOOL_SPEC_OVERHEAD + this.countText(t.name) + this.countShared(t.description) + this.countShared(json);
        this.specs.set(t, n);
      }
      total += n;
    }
    return total;
  }
}

/** Creates a counter backed by gpt-tokenizer, loading it first. */
export async function createTokenCounter(): Promise<TokenCounter> {
  await loadTokenizer();
  return new TokenCounter();
}
