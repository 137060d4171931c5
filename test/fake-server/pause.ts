import type { SearchReply } from './types.js';

// A turn the Anthropic API pauses (stop_reason pause_turn: a long turn of server-side tools),
// as the fake speaks it. A reply scripted with `pause: true` ends with pause_turn, its search
// call (if any) without a result; the client continues the turn by sending that reply back
// as-is as the final assistant message, and the continuation starts with the search's result.
// The fake remembers each paused reply so it can refuse one sent back altered.

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface PausedReply {
  /** The reply's content as a client sends it back (what the non-streaming body carries). */
  content: unknown[];
  /** The search the reply left open: its server_tool_use id, and what the search finds. */
  open?: { id: string; search: SearchReply };
}

/** A block as compared: its keys sorted, without a cache marker or an empty citation list. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!isObj(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) {
    if (k === 'cache_control' || (k === 'citations' && (v[k] === null || (Array.isArray(v[k]) && v[k].length === 0)))) continue;
    out[k] = canonical(v[k]);
  }
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

export class PausedTurns {
  private readonly replies: PausedReply[] = [];

  add(p: PausedReply): void {
    this.replies.push(p);
  }

  clear(): void {
    this.replies.length = 0;
  }

  /**
   * The paused reply a request continues: its final assistant message (at `index`) ends with a
   * paused reply's content, unchanged. undefined: the request continues none (a final assistant
   * message that is no paused reply is a plain prefill, unless it leaves a search open). An
   * error text: a search left open that no paused reply left, or a paused reply altered.
   */
  continued(final: unknown, index: number, openIds: readonly string[]): PausedReply | string | undefined {
    if (!isObj(final) || final.role !== 'assistant' || !Array.isArray(final.content)) return undefined;
    const content = final.content;
    for (const p of [...this.replies].reverse()) {
      if (p.content.length > content.length) continue;
      if (same(content.slice(content.length - p.content.length), p.content)) return p;
    }
    const [open] = openIds;
    if (open === undefined) return undefined;
    if (this.replies.some((p) => p.open?.id === open))
      return `messages.${index}: the final assistant message does not match the paused response that left server_tool_use ${open} open; send the response back unchanged to continue the turn`;
    return `messages: server_tool_use block with id ${open} was found without a corresponding web_search_tool_result block`;
  }
}
