import { sealCompaction } from './responses-wire.js';
import type { RequestView } from './types.js';

// POST /v1/responses/compact as the fake answers it: the user messages of the input, then one
// encrypted compaction item standing for the rest (a tenth of the input, at least 200 and at
// most 4,000 tokens, as the fake counts it in later requests).

export const compactionSize = (inputTokens: number): number => Math.max(200, Math.min(4_000, Math.ceil(inputTokens / 10)));

export function compactedResponse(seq: number, view: RequestView, body: unknown, cachedTokens: number): unknown {
  const input = (body as { input?: unknown }).input;
  const users = Array.isArray(input) ? input.filter((it: { type?: string; role?: string }) => (it.type ?? 'message') === 'message' && it.role === 'user') : [];
  const id = `cmp_fake_${seq}`;
  const tokens = compactionSize(view.promptTokens);
  return {
    id: `resp_fake_${seq}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [
      ...users.map((u: Record<string, unknown>, k: number) => ({
        id: `msg_fake_${seq}_${k}`,
        type: 'message',
        role: 'user',
        status: 'completed',
        content: u.content,
      })),
      { id, type: 'compaction', encrypted_content: sealCompaction(id, tokens) },
    ],
    usage: {
      input_tokens: view.promptTokens,
      input_tokens_details: { cached_tokens: cachedTokens, cache_write_tokens: 0 },
      output_tokens: tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: view.promptTokens + tokens,
    },
  };
}
