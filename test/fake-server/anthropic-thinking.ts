import { createHash, createHmac } from 'node:crypto';
import type { MessageReply, RequestView } from './types.js';

// Anthropic thinking as the fake server simulates it (WIRE_CURRENT.md §1): which models take
// which thinking types and effort levels (also served by GET /v1/models), the 400s for
// settings a model refuses and for sampling parameters under anthropic-version 2026-10-21,
// thinking blocks signed with the prefix they were produced after, and the two 400s of a
// replay: a block bound to a different conversation, and a tool loop sent back without its
// thinking.

export type Effort = 'low' | 'medium' | 'high' | 'xhigh' | 'max';
const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

export interface FakeModelCaps {
  types: { adaptive: boolean; enabled: boolean; disabled: boolean };
  efforts: readonly Effort[];
  /** Thinks (adaptively) when the request does not say. */
  thinksByDefault: boolean;
  /** display when the request does not say. */
  defaultDisplay: 'summarized' | 'omitted';
  /** Replayed thinking is bound to its prefix (preserved thinking). */
  binds: boolean;
  maxInput: number;
  maxOutput: number;
  lifecycle: 'active' | 'deprecated' | 'retired';
}

/** The capability table by model family (dated snapshots match their family by prefix). */
export function fakeCapsOf(model: string): FakeModelCaps | undefined {
  if (!model.startsWith('claude-')) return undefined;
  if (/^claude-(fable|mythos|opus|sonnet|haiku)-5(\b|-)/.test(model))
    return {
      types: { adaptive: true, enabled: false, disabled: false },
      efforts: EFFORTS,
      thinksByDefault: true,
      defaultDisplay: 'omitted',
      binds: true,
      maxInput: 1_000_000,
      maxOutput: 128_000,
      lifecycle: 'active',
    };
  if (/^claude-(opus|sonnet)-4-[78](\b|-)/.test(model))
    return {
      types: { adaptive: true, enabled: false, disabled: true },
      efforts: EFFORTS,
      thinksByDefault: false,
      defaultDisplay: 'omitted',
      binds: false,
      maxInput: 200_000,
      maxOutput: 64_000,
      lifecycle: 'active',
    };
  if (/^claude-(opus|sonnet)-4-6(\b|-)/.test(model))
    return {
      types: { adaptive: true, enabled: true, disabled: true },
      efforts: ['low', 'medium', 'high', 'max'],
      thinksByDefault: false,
      defaultDisplay: 'summarized',
      binds: false,
      maxInput: 200_000,
      maxOutput: 64_000,
      lifecycle: 'active',
    };
  const old = /^claude-3-/.test(model);
  return {
    types: { adaptive: false, enabled: true, disabled: true },
    efforts: [],
    thinksByDefault: false,
    defaultDisplay: 'summarized',
    binds: false,
    maxInput: 200_000,
    maxOutput: /^claude-(opus-4-1|opus-4)(\b|-|$)/.test(model) ? 32_000 : 64_000,
    lifecycle: old ? 'deprecated' : 'active',
  };
}

/** What a test says of one model over the table: its limits and lifecycle (dates RFC 3339). */
export interface FakeModelOverride {
  maxInput?: number;
  maxOutput?: number;
  lifecycle?: FakeModelCaps['lifecycle'];
  deprecatedAt?: string;
  retiresAt?: string;
}

/** GET /v1/models/{id} body (ModelInfo). */
export function modelInfo(id: string, over: FakeModelOverride = {}): unknown {
  const table = fakeCapsOf(id);
  if (!table) return undefined;
  const c = {
    ...table,
    ...(over.maxInput ? { maxInput: over.maxInput } : {}),
    ...(over.maxOutput ? { maxOutput: over.maxOutput } : {}),
    ...(over.lifecycle ? { lifecycle: over.lifecycle } : {}),
  };
  const sup = (b: boolean): { supported: boolean } => ({ supported: b });
  return {
    type: 'model',
    id,
    display_name: id,
    created_at: '2026-01-01T00:00:00Z',
    deprecated_at: c.lifecycle === 'active' ? null : (over.deprecatedAt ?? '2026-06-01T00:00:00Z'),
    retires_at: c.lifecycle === 'active' ? null : (over.retiresAt ?? null),
    lifecycle: c.lifecycle,
    line: null,
    max_input_tokens: c.maxInput,
    max_tokens: c.maxOutput,
    capabilities: {
      batch: sup(true),
      citations: sup(true),
      code_execution: sup(false),
      context_management: { supported: false, clear_thinking_20251015: sup(false), clear_tool_uses_20250919: sup(false), compact_20260112: sup(false) },
      effort: {
        supported: c.efforts.length > 0,
        low: sup(c.efforts.includes('low')),
        medium: sup(c.efforts.includes('medium')),
        high: sup(c.efforts.includes('high')),
        xhigh: sup(c.efforts.includes('xhigh')),
        max: sup(c.efforts.includes('max')),
      },
      image_input: sup(true),
      pdf_input: sup(true),
      server_tools: { supported: false, code_execution: sup(false), web_search: sup(false) },
      structured_outputs: sup(true),
      thinking: {
        supported: true,
        types: { adaptive: sup(c.types.adaptive), enabled: sup(c.types.enabled), disabled: sup(c.types.disabled), between_tools: sup(false) },
      },
    },
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a request asked the model to think, once validated. */
export interface ThinkingPlan {
  /** The reply thinks. */
  on: boolean;
  display: 'summarized' | 'omitted';
  /** Thinking is enabled for the request (adaptive or enabled, or the model's default): a tool loop must carry it. */
  required: boolean;
}

/** The API version from which sampling parameters are refused. */
const NO_SAMPLING_FROM = '2026-10-21';
const EXTENDED_THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** Validates thinking, output_config.effort and sampling parameters; a 400 text, or the plan. */
export function planThinking(body: Record<string, unknown>, model: string, apiVersion: string): ThinkingPlan | { error: string } {
  if (apiVersion >= NO_SAMPLING_FROM) {
    for (const k of ['temperature', 'top_p', 'top_k']) if (body[k] !== undefined) return { error: `${k}: Extra inputs are not permitted` };
  }
  const caps = fakeCapsOf(model);
  const t = body.thinking;
  const oc = body.output_config;
  if (oc !== undefined) {
    if (!isObj(oc)) return { error: 'output_config: Input should be a valid dictionary' };
    if (oc.effort !== undefined && oc.effort !== null) {
      if (typeof oc.effort !== 'string' || !(EFFORTS as readonly string[]).includes(oc.effort))
        return { error: `output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'` };
      if (caps && !caps.efforts.includes(oc.effort as Effort)) return { error: `output_config.effort: "${oc.effort}" is not supported for model ${model}` };
    }
  }
  if (t === undefined || t === null) {
    const on = caps?.thinksByDefault ?? false;
    return { on, display: caps?.defaultDisplay ?? 'summarized', required: on };
  }
  if (!isObj(t)) return { error: 'thinking: Input should be a valid dictionary' };
  const type = t.type;
  if (type !== 'adaptive' && type !== 'enabled' && type !== 'disabled' && type !== 'between_tools')
    return {
      error: `thinking: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'adaptive', 'between_tools', 'disabled', 'enabled'`,
    };
  if (type === 'between_tools') return { error: '"thinking.type.between_tools" is not supported for this model.' };
  if (caps && !caps.types[type]) {
    if (type === 'enabled')
      return {
        error: '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
      };
    if (type === 'disabled')
      return { error: '"thinking.type.disabled" is not supported for this model. Thinking cannot be turned off; use "output_config.effort" to reduce it.' };
    return { error: '"thinking.type.adaptive" is not supported for this model. Use "thinking.type.enabled" with "budget_tokens".' };
  }
  if (type === 'disabled') return { on: false, display: 'summarized', required: false };
  const display = t.display;
  if (display !== undefined && display !== null && display !== 'summarized' && display !== 'omitted')
    return { error: `thinking.${type}.display: Input should be 'summarized' or 'omitted'` };
  if (type === 'enabled') {
    const budget = t.budget_tokens;
    if (budget === undefined) return { error: 'thinking.enabled.budget_tokens: Field required' };
    if (typeof budget !== 'number' || !Number.isInteger(budget)) return { error: 'thinking.enabled.budget_tokens: Input should be a valid integer' };
    if (budget < 1_024) return { error: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024' };
    if (typeof body.max_tokens === 'number' && budget >= body.max_tokens)
      return {
        error: `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${EXTENDED_THINKING_DOCS}#max-tokens-and-context-window-size`,
      };
    const tc = body.tool_choice;
    if (isObj(tc) && tc.type !== 'auto' && tc.type !== 'none') return { error: 'Thinking may not be enabled when tool_choice forces tool use.' };
  }
  return { on: true, display: display === 'summarized' || display === 'omitted' ? display : (caps?.defaultDisplay ?? 'summarized'), required: true };
}

/** A block as it takes part in the prefix: without its cache marker (markers never change what the model saw). */
function bare(block: unknown): unknown {
  if (!isObj(block)) return block;
  const { cache_control: _cc, ...rest } = block;
  return rest;
}

/** Content as a list of blocks (a string is one text block). */
const blocksOf = (content: unknown): unknown[] =>
  typeof content === 'string' ? (content.length > 0 ? [{ type: 'text', text: content }] : []) : Array.isArray(content) ? content : [];

const SECRET = 'fake-anthropic-thinking';
const sign = (prefix: string, thinking: string): string => createHmac('sha256', SECRET).update(prefix).update('\u0000').update(thinking).digest('base64');

/**
 * Hash chain over the prefix: model, system, tools, then each message's blocks in order.
 * prefixAt(i, j) is the hash of everything before block j of message i.
 */
class PrefixChain {
  private h = createHash('sha256');
  constructor(body: Record<string, unknown>) {
    const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : Array.isArray(body.system) ? body.system.map(bare) : [];
    const tools = Array.isArray(body.tools) ? body.tools.map(bare) : [];
    this.add({ model: body.model, system, tools });
  }
  add(part: unknown): void {
    this.h.update(JSON.stringify(part));
    this.h.update('\u0000');
  }
  now(): string {
    return this.h.copy().digest('hex');
  }
}

/**
 * The replay rules: every thinking block's signature must match the prefix before it (models
 * that bind) and its text; a thinking block after an invalid one is invalid too; and while
 * thinking is on, the assistant message of the current tool loop must start with thinking.
 */
export function checkReplay(body: Record<string, unknown>, caps: FakeModelCaps | undefined, plan: ThinkingPlan): string | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const chain = new PrefixChain(body);
  // a changed or dropped block before changes the chain, so every later block fails too
  for (const [i, m] of messages.entries()) {
    if (!isObj(m)) continue;
    chain.add({ role: m.role });
    for (const [j, b] of blocksOf(m.content).entries()) {
      if (isObj(b) && b.type === 'thinking') {
        const thinking = typeof b.thinking === 'string' ? b.thinking : '';
        const signature = typeof b.signature === 'string' ? b.signature : '';
        const [boundTo, mac] = signature.split('.', 2);
        const textOk = mac !== undefined && boundTo !== undefined && sign(boundTo, thinking) === mac;
        if (!textOk) return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
        if (caps?.binds && boundTo !== chain.now()) {
          return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation.`;
        }
      }
      chain.add(bare(b));
    }
  }
  if (!plan.required) return undefined;
  const last = messages[messages.length - 1];
  // a final assistant message (a paused turn sent back to continue) is the reply going on: it starts with its thinking
  if (isObj(last) && last.role === 'assistant') {
    const first = blocksOf(last.content)[0];
    if (isObj(first) && (first.type === 'thinking' || first.type === 'redacted_thinking')) return undefined;
    return `messages.${messages.length - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${isObj(first) ? String(first.type) : 'nothing'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block. We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${EXTENDED_THINKING_DOCS}`;
  }
  // the current tool loop: the last message is tool results answering the assistant before it
  const prev = messages[messages.length - 2];
  if (!isObj(last) || last.role !== 'user' || !isObj(prev) || prev.role !== 'assistant') return undefined;
  const lastBlocks = blocksOf(last.content);
  if (!lastBlocks.some((b) => isObj(b) && b.type === 'tool_result')) return undefined;
  const first = blocksOf(prev.content)[0];
  if (isObj(first) && (first.type === 'thinking' || first.type === 'redacted_thinking')) return undefined;
  const found = isObj(first) ? String(first.type) : 'nothing';
  return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${EXTENDED_THINKING_DOCS}`;
}

/** The hash of the whole request prefix: what a reply's first thinking block is bound to. */
export function replyPrefix(body: Record<string, unknown>): string {
  const chain = new PrefixChain(body);
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    if (!isObj(m)) continue;
    chain.add({ role: m.role });
    for (const b of blocksOf(m.content)) chain.add(bare(b));
  }
  // the reply opens a new assistant message
  chain.add({ role: 'assistant' });
  return chain.now();
}

/** The thinking block of a reply: its text (empty when display is omitted) and a signature bound to the prefix. */
export function thinkingBlockOf(
  reply: MessageReply,
  view: RequestView,
  plan: ThinkingPlan,
  prefix: string,
): { thinking: string; shown: string; signature: string } | undefined {
  if (!plan.on || reply.thinking === false) return undefined;
  const thinking = typeof reply.thinking === 'string' ? reply.thinking : defaultThinking(view);
  const shown = plan.display === 'summarized' ? thinking : '';
  return { thinking, shown, signature: `${prefix}.${sign(prefix, shown)}` };
}

function defaultThinking(view: RequestView): string {
  const last = view.messages[view.messages.length - 1];
  const results = last?.blocks.filter((b) => b.type === 'tool_result').length ?? 0;
  if (results > 0) return `The tool returned ${results === 1 ? 'its result' : `${results} results`}. Let me look at what it says and decide the next step.`;
  return 'The person asked something. Let me work out what they need and how to answer it well.';
}
