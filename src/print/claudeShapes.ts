import { searchParts, type Block, type Message, type Usage } from '../llm/messages.js';
import type { PermissionMode } from '../config/schema.js';

// Claude Code's print-mode wire (`claude -p --output-format stream-json`), as scripts parse it:
// Anthropic-shaped content blocks and usage, snake_case fields. The project's own figures ride
// along under names Claude Code does not use (agent_*), so a script reading Claude Code's
// fields finds them where Claude Code puts them and nothing else in their way.

export type ClaudeBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string | ClaudeBlock[]; is_error: boolean }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'server_tool_use'; id: string; name: 'web_search'; input: { query: string } }
  | {
      type: 'web_search_tool_result';
      tool_use_id: string;
      content: { type: 'web_search_result'; url: string; title: string }[] | { type: 'web_search_tool_result_error'; error_code: string };
    };

export interface ClaudeUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
  server_tool_use: { web_search_requests: number; web_fetch_requests: number };
  service_tier: 'standard';
  cache_creation: { ephemeral_1h_input_tokens: number; ephemeral_5m_input_tokens: number };
}

/** A search as Claude Code's stream shows one: the call and its results' titles and URLs (not the encrypted content). */
const searchBlocks = (b: Extract<Block, { type: 'web_search' }>): ClaudeBlock[] => [
  ...(searchParts(b) !== 'result' ? [{ type: 'server_tool_use' as const, id: b.id, name: 'web_search' as const, input: { query: b.query } }] : []),
  // a paused turn's call comes alone; its continuation brings the result
  ...(searchParts(b) !== 'call'
    ? [
        {
          type: 'web_search_tool_result' as const,
          tool_use_id: b.id,
          content:
            b.error !== undefined
              ? { type: 'web_search_tool_result_error' as const, error_code: b.error }
              : b.results.map((r) => ({ type: 'web_search_result' as const, url: r.url, title: r.title })),
        },
      ]
    : []),
];

/** A block of the neutral model as the Anthropic API spells it (OpenAI reasoning summaries as thinking without a signature). */
export function claudeBlock(b: Exclude<Block, { type: 'web_search' }>): ClaudeBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'tool_use':
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: b.toolUseId,
        content: b.images?.length ? [{ type: 'text', text: b.content }, ...b.images.map(claudeBlock)] : b.content,
        is_error: b.isError,
      };
    case 'image':
      return { type: 'image', source: { type: 'base64', media_type: b.mediaType, data: b.data } };
    case 'thinking':
      return { type: 'thinking', thinking: b.thinking, signature: b.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: b.data };
    case 'reasoning':
      return { type: 'thinking', thinking: b.summary.join('\n\n'), signature: '' };
  }
}

/** The message's blocks for the wire: an OpenAI compaction item is provider state nobody can read, left out. */
export const claudeContent = (m: Message, searches = true): ClaudeBlock[] =>
  m.blocks
    .filter((b) => !(b.type === 'reasoning' && b.item === 'compaction'))
    .flatMap((b) => (b.type === 'web_search' ? (searches ? searchBlocks(b) : []) : [claudeBlock(b)]));

/** A result's usage; an assistant message's (perMessage) has no server_tool_use, as in Claude Code. */
export function claudeUsage(u: Usage, perMessage = false): Partial<ClaudeUsage> & { agent_thinking_tokens?: number } {
  const oneHour = u.cacheWrite1hTokens ?? 0;
  return {
    input_tokens: u.inputTokens,
    cache_creation_input_tokens: u.cacheWriteTokens,
    cache_read_input_tokens: u.cacheReadTokens,
    output_tokens: u.outputTokens,
    ...(perMessage ? {} : { server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 } }),
    service_tier: 'standard',
    cache_creation: { ephemeral_1h_input_tokens: oneHour, ephemeral_5m_input_tokens: u.cacheWriteTokens - oneHour },
    ...(u.thinkingTokens ? { agent_thinking_tokens: u.thinkingTokens } : {}),
  };
}

/** Claude Code's names for the permission modes (ask is its default, allow its bypassPermissions, deny its dontAsk). */
export const CLAUDE_PERMISSION_MODE: Record<PermissionMode, string> = {
  ask: 'default',
  acceptEdits: 'acceptEdits',
  plan: 'plan',
  allow: 'bypassPermissions',
  deny: 'dontAsk',
};

/** The result's subtype and is_error for how the turn ended. */
export function claudeOutcome(reason: string, failed: boolean): { subtype: string; is_error: boolean } {
  if (reason === 'max_steps') return { subtype: 'error_max_turns', is_error: true };
  if (failed || reason === 'error' || reason === 'aborted' || reason === 'blocked') return { subtype: 'error_during_execution', is_error: true };
  return { subtype: 'success', is_error: false };
}

/** The stop_reason a result carries: the provider's when the turn ended on one, else null (Claude Code's own choice). */
export const claudeStopReason = (reason: string): string | null => (reason === 'end_turn' || reason === 'max_tokens' || reason === 'refusal' ? reason : null);
