// The provider-neutral message model. Adapters translate it to and from SDK types;
// everything else in the program speaks only this.

export type Role = 'user' | 'assistant';

export interface TextBlock {
  type: 'text';
  text: string;
  /** OpenAI Responses: the assistant message's phase, resent as it came (newer models read it). */
  phase?: 'commentary' | 'final_answer';
  /** Sources a provider's web search gave for this text (Anthropic: sent back with it, as the API requires). */
  citations?: Citation[];
  /** What added this block to a prompt, when the person did not type it (never sent: see TextOrigin). */
  origin?: TextOrigin;
}

/**
 * Where a text block of a prompt came from, when the person did not type it as it reads: set by
 * the part that wrote it, stored with it, and read by the views (the transcript, `sessions show`,
 * the export), which switch on it instead of reading the text. Never on the wire: the adapters
 * send a block's text alone. Blocks stored before schema v13 get theirs when loaded
 * (history/legacyOrigins.ts).
 * attachment: an @mention's file or listing (`label`: "src/a.ts: read with FileRead"; `archived`:
 *   the spill handle of a file too large to attach whole).
 * plan_note: the note plan mode adds to each prompt.
 * hook_context: what a SessionStart or UserPromptSubmit hook added.
 * typed_command: a custom command's prompt (`typed`: the command as the person typed it, "/review a.ts").
 */
export type TextOrigin =
  | { kind: 'attachment'; label: string; archived?: string }
  | { kind: 'plan_note' }
  | { kind: 'hook_context' }
  | { kind: 'typed_command'; typed: string };

/** A source cited by a text block: its URL and title, and the provider's citation object as received. */
export interface Citation {
  url: string;
  title: string;
  /** Anthropic web_search_result_location (with its encrypted_index) / OpenAI url_citation, verbatim. */
  wire: Record<string, unknown>;
}

/** One result of a web search: what is shown, summarized and archived (the encrypted page content stays in `wire`). */
export interface WebSearchResult {
  url: string;
  title: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** Set on a tool result whose content micro compaction replaced with a placeholder. */
export interface ClearedMark {
  /** Id of the archived original (tool output archive), usable with Recall. */
  archiveId: string;
  /** Token count of the original content. */
  originalTokens: number;
}

export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  content: string;
  isError: boolean;
  cleared?: ClearedMark;
  /** Images the tool returned (an MCP tool's image content), sent to the providers that take them. */
  images?: ImageBlock[];
  /**
   * How a call that did not run to its end ended, set where its result is made (agent/runTools.ts,
   * session/repair.ts) and read by the transcript instead of the result's text; never sent.
   * interrupted: Esc, a signal, or a crash the repair closed. denied: refused (the person, the
   * "deny" mode, nobody to approve, a PreToolUse hook), or not run after such a refusal.
   * stopped: refused by the person, who also ended the turn there.
   */
  outcome?: 'interrupted' | 'denied' | 'stopped';
}

export interface ImageBlock {
  type: 'image';
  mediaType: string;
  /** base64 */
  data: string;
}

/**
 * Anthropic extended thinking, kept verbatim: the signature binds it to what came before it,
 * so it is sent back unchanged or not at all (never to another provider).
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Anthropic thinking the provider encrypted whole (`data`); sent back unchanged, Anthropic only. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * An OpenAI Responses reasoning item, kept verbatim: `encryptedContent` is what lets a stateless
 * (store: false) request carry it back; `summary` is the readable part. OpenAI only.
 */
export interface ReasoningBlock {
  type: 'reasoning';
  id: string;
  summary: string[];
  encryptedContent?: string;
  /**
   * 'compaction': not reasoning but an OpenAI compaction item (responses.compact's encrypted
   * summary of earlier items), replayed as such; same rules: verbatim, OpenAI only.
   */
  item?: 'compaction';
}

/**
 * A search the provider ran server-side (Anthropic's web search tool, OpenAI Responses'
 * web_search): the query and the results' titles and URLs readable, and the provider's own blocks
 * kept verbatim in `wire`, which later requests to that provider carry back unchanged (Anthropic
 * refuses a conversation that drops or alters them). The other provider never gets it.
 */
export interface WebSearchBlock {
  type: 'web_search';
  provider: 'anthropic' | 'openai';
  /** srvtoolu_… (Anthropic) / ws_… (OpenAI). */
  id: string;
  query: string;
  results: WebSearchResult[];
  /** The search failed: the provider's error code (max_uses_exceeded, unavailable, …). */
  error?: string;
  /** Anthropic: [server_tool_use, web_search_tool_result]; OpenAI: [web_search_call], as received. */
  wire: Record<string, unknown>[];
}

/** Blocks only their own provider can read back: never sent to the other one, never summarized. */
export type ProviderStateBlock = ThinkingBlock | RedactedThinkingBlock | ReasoningBlock;

export type Block = TextBlock | ToolUseBlock | ToolResultBlock | ImageBlock | ProviderStateBlock | WebSearchBlock;

/**
 * The parts of the provider's search a block holds. A paused turn (Anthropic pause_turn) splits a
 * search: the paused reply holds the call (`call`), its continuation the result (`result`).
 */
export function searchParts(b: WebSearchBlock): 'whole' | 'call' | 'result' {
  if (b.provider !== 'anthropic') return 'whole';
  const call = b.wire.some((w) => w.type === 'server_tool_use');
  const result = b.wire.some((w) => w.type === 'web_search_tool_result');
  return call && !result ? 'call' : result && !call ? 'result' : 'whole';
}

/** A search as every text view shows it (summaries, the archive, transcripts): query, count, titles and URLs, never the encrypted content. */
export function webSearchLabel(b: WebSearchBlock): string {
  if (searchParts(b) === 'call') return `[web search: ${b.query} → paused before its results]`;
  if (b.error !== undefined) return `[web search: ${b.query} → failed: ${b.error}]`;
  const list = b.results.map((r) => `${r.title || r.url} (${r.url})`).join('; ');
  return `[web search: ${b.query} → ${b.results.length} result${b.results.length === 1 ? '' : 's'}${list ? `: ${list}` : ''}]`;
}

export const isProviderStateBlock = (b: Block): b is ProviderStateBlock => b.type === 'thinking' || b.type === 'redacted_thinking' || b.type === 'reasoning';

/**
 * normal: said by the person or the model.
 * checkpoint: a compaction summary standing in for archived messages (role user).
 * meta: injected by the agent itself, e.g. "continue where you stopped" (role user).
 */
export type MessageKind = 'normal' | 'checkpoint' | 'meta';

/**
 * Where a message came from, when neither the person typed it nor the model wrote it as a reply:
 * set by the part that made it, stored with it (schema v13), read by the views instead of its
 * text, and never sent (the adapters send role and blocks only). Messages stored before v13 get
 * theirs when loaded (history/legacyOrigins.ts).
 * shell: the note of a `!command` the person ran (its command, output and how it ended).
 * date_note: today's date, for the model (session/dateNote.ts).
 * unanswered: the placeholder reply between a prompt that got none and the next (session/repair.ts).
 */
export type MessageOrigin =
  | { kind: 'shell'; command: string; output: string; status: 'done' | 'error' | 'interrupted' }
  | { kind: 'date_note' }
  | { kind: 'unanswered' };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The part of cacheWriteTokens written with Anthropic's 1h TTL (priced higher); absent when none. */
  cacheWrite1hTokens?: number;
  /** The part of outputTokens spent thinking (Anthropic thinking, OpenAI reasoning); absent when none. */
  thinkingTokens?: number;
}

export interface Message {
  id: string;
  role: Role;
  blocks: Block[];
  kind: MessageKind;
  /** Pinned messages survive compaction verbatim. */
  pinned?: boolean;
  /** epoch milliseconds */
  createdAt: number;
  /** For assistant messages: what the provider reported for the request that produced it. */
  usage?: Usage;
  /** For assistant messages: the model that produced it. */
  model?: string;
  /** The reply was cut short (Esc, or a stream that could not be finished). */
  interrupted?: boolean;
  /**
   * For assistant messages that hold thinking: the hash of the prefix (model, system, tools,
   * earlier messages as sent) the reply was produced after. Its thinking is sent back only
   * while the prefix hashes the same (llm/thinkingReplay.ts).
   */
  prefixHash?: string;
  /** Who made it, when not the person nor the model's reply (never sent: see MessageOrigin). */
  origin?: MessageOrigin;
}

export const emptyUsage = (): Usage => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

export function addUsage(a: Usage, b: Usage): Usage {
  const oneHour = (a.cacheWrite1hTokens ?? 0) + (b.cacheWrite1hTokens ?? 0);
  const thinking = (a.thinkingTokens ?? 0) + (b.thinkingTokens ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    ...(oneHour > 0 ? { cacheWrite1hTokens: oneHour } : {}),
    ...(thinking > 0 ? { thinkingTokens: thinking } : {}),
  };
}

/** Everything the provider counted as input for a request (Anthropic splits cache reads/writes out). */
export const totalInputTokens = (u: Usage): number => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;

export function newId(prefix = 'm'): string {
  // time-ordered prefix keeps ids roughly sortable; random suffix keeps them unique
  const t = Date.now().toString(36).padStart(9, '0');
  const r = Math.random().toString(36).slice(2, 10).padEnd(8, '0');
  return `${prefix}_${t}${r}`;
}

export function textOf(msg: Message): string {
  return msg.blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

export const toolUses = (msg: Message): ToolUseBlock[] => msg.blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');

export const toolResults = (msg: Message): ToolResultBlock[] => msg.blocks.filter((b): b is ToolResultBlock => b.type === 'tool_result');

/** A user message made only of tool results: the second half of a tool pair, not a human turn. */
export const isToolResultMessage = (msg: Message): boolean => msg.role === 'user' && msg.blocks.length > 0 && msg.blocks.every((b) => b.type === 'tool_result');

/** A user turn a person (or the agent on their behalf) started: where a history may be cut. */
export const isUserTurnStart = (msg: Message): boolean => msg.role === 'user' && !isToolResultMessage(msg);

export function userMessage(text: string, kind: MessageKind = 'normal'): Message {
  return { id: newId(), role: 'user', blocks: [{ type: 'text', text }], kind, createdAt: Date.now() };
}
