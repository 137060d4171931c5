/**
 * A fake Anthropic Messages + OpenAI Chat Completions server for tests and benchmarks.
 * Zero dependencies beyond node:http (and gpt-tokenizer to count prompts); the real SDKs
 * talk to it over HTTP without knowing it is fake.
 *
 *   const server = await startFakeServer({ contextWindow: 8_000 });
 *   new Anthropic({ apiKey, baseURL: server.anthropicBaseURL });   // no /v1
 *   new OpenAI({ apiKey, baseURL: server.openaiBaseURL });         // ends in /v1
 *   server.enqueue({ text: 'Hello' }, { toolCalls: [{ name: 'Read', input: { path: 'a' } }] });
 *   server.respondWith((req) => (req.view.system.includes('summar') ? { text: '## Goal…' } : undefined));
 *   server.requests[0].view  // system, messages (neutral blocks), toolNames, maxTokens, promptTokens…
 *   await server.close();
 *
 * Routes: POST /v1/messages, POST /v1/messages/count_tokens (Anthropic: x-api-key or
 * Authorization: Bearer, any anthropic-version), GET /v1/models[/{id}] (Anthropic, with
 * capabilities; logged in modelLookups, not requests), POST /v1/chat/completions (OpenAI and
 * OpenAI-compatible local servers: Bearer), POST /v1/responses, /v1/responses/input_tokens and
 * /v1/responses/compact (OpenAI's Responses API, used statelessly: see responses-wire.ts), GET /health.
 * Anthropic thinking (anthropic-thinking.ts): the 5 family thinks by default (display omitted
 * unless asked), its blocks signed to their prefix; a replayed block bound to another prefix, a
 * tool loop without its thinking, enabled/disabled where the model refuses them, bad budgets and
 * sampling parameters under anthropic-version 2026-10-21 get the API's 400s.
 *
 * Each request is validated as the real service does (real 400 texts). Then, in order:
 * 1. the prompt is counted (gpt-tokenizer × tokenMultiplier); over the model's window the
 *    request gets the real overflow error of the configured flavor (the reply queue is not
 *    consumed), or with 'ollama_silent' is "truncated" (usage capped at the window);
 * 2. the reply is the responder's, else the next queued one, else `fallback`, else a 400
 *    "fake server: no reply scripted".
 * Usage is reported as the services do, from simulated prompt caches (cache.ts): Anthropic
 * from the request's cache_control breakpoints (input_tokens is only the uncached part),
 * OpenAI automatically in 128-token steps (cached_tokens); `server.promptCache.advance(ms)`
 * moves their clock past a TTL, and a reply's scripted usage figures win.
 * Replies: text (streamed in deltas), tool calls (JSON streamed in fragments, Ollama-style
 * whole chunks), a stop reason, usage overrides, injected errors with the real bodies and
 * headers, and stream faults (socket dropped, stalled, in-stream error) after N frames.
 *
 * Bounded: request bodies over maxBodyBytes get 413, stalls end after maxStallMs, the
 * request log keeps maxRecorded entries, and idleShutdownMs closes a forgotten server.
 */
import { directiveReply } from './directives.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveModel } from '../../src/config/models.js';
import { anthropicFrames, anthropicInStreamError, anthropicMessage, parseAnthropicRequest, type ReplyFigures } from './anthropic-wire.js';
import { checkReplay, fakeCapsOf, modelInfo, planThinking, replyPrefix, thinkingBlockOf, type FakeModelOverride } from './anthropic-thinking.js';
import {
  anthropicBody,
  anthropicError,
  anthropicInvalid,
  inputAndMaxTokensText,
  openaiBody,
  openaiError,
  openaiInvalid,
  openaiOverflow,
  promptTooLongText,
  type ErrorFigures,
  type WireError,
} from './errors.js';
import { openaiCompletion, openaiFrames, openaiInStreamError, parseOpenAIRequest, type ChunkFigures } from './openai-wire.js';
import { PromptCacheSim, type AnthropicCacheUsage } from './cache.js';
import {
  CONTEXT_WINDOW_TEXT,
  DEFAULT_REASONING_SUMMARY,
  responseObject,
  responsesErrorFrame,
  responsesOverflowFrames,
  responsesFrames,
  type ResponseFigures,
} from './responses-frames.js';
import { compactedResponse, compactionSize } from './responses-compact.js';
import { parseResponsesRequest } from './responses-wire.js';
import { countText } from './tokens.js';
import { PausedTurns } from './pause.js';
import type { ErrorReply, MessageReply, OverflowFlavor, RecordedRequest, Reply, RequestView, Responder, StopName, WireProvider } from './types.js';

/** Every model this process's fake servers were asked for on Anthropic's API, in order (the e2e regimes check it: test/e2e/regime.ts). */
export const anthropicModelsAsked: string[] = [];

export type * from './types.js';

export interface FakeServerOptions {
  host?: string;
  /** 0 (default): a random free port. */
  port?: number;
  /** Context window: one number for every model, or per model name ('*' for the rest). Default 1,000,000. */
  contextWindow?: number | Record<string, number>;
  /** How the OpenAI route answers an over-long prompt. Default 'openai'. The Anthropic route always answers as Anthropic. */
  overflow?: OverflowFlavor;
  /** Anthropic route: refuse prompt + max_tokens over the window ("input length and `max_tokens` exceed context limit"). Default false (newer models accept and stop with model_context_window_exceeded). */
  anthropicCountsMaxTokens?: boolean;
  /** Multiplies the server's token count, so the provider can count differently from the client. Default 1. */
  tokenMultiplier?: number;
  /** When set, any other key gets a 401. */
  apiKey?: string;
  /** Per-model output caps checked against max_tokens; default the built-in model table's; false disables. */
  outputCaps?: Record<string, number> | false;
  /** When set, other models get a 404. */
  knownModels?: string[];
  /**
   * Anthropic: what GET /v1/models/{id} says of a model over the fake's table (limits,
   * lifecycle and its dates); a model's maxInput is also its window and its maxOutput its
   * output cap here, unless contextWindow / outputCaps name the model.
   */
  models?: Record<string, FakeModelOverride>;
  /** Anthropic route: accept consecutive same-role messages. Default false. */
  allowConsecutiveRoles?: boolean;
  /** OpenAI route: refuse max_tokens for o-series / gpt-5 models as OpenAI does (through any URL in front of it). Default true. */
  rejectMaxTokensForReasoningModels?: boolean;
  responder?: Responder;
  replies?: Reply[];
  /** Reply used when the responder and the queue have nothing. */
  fallback?: Reply;
  /** A stalled stream is dropped after this long. Default 30,000. */
  maxStallMs?: number;
  /** Default 32 MiB. */
  maxBodyBytes?: number;
  /** Default 10,000. */
  maxRecorded?: number;
  /** Close the server after this long without a request. Default 0 (never). */
  idleShutdownMs?: number;
  /**
   * Simulate the providers' prompt caches (see cache.ts) and report usage as the services do:
   * Anthropic from the request's cache_control breakpoints, OpenAI (flavor 'openai' only)
   * automatically. Scripted usage figures win. Default true.
   */
  promptCache?: boolean;
  /** OpenAI route: refuse request fields the server does not know, as strict OpenAI-compatible servers do (vLLM's "Extra inputs are not permitted"). Default false. */
  rejectUnknownFields?: boolean;
  /**
   * Responses route, streaming: how a prompt over the window is told in the 200 stream.
   * error_object: an `error` event whose data holds an error object (the SDK throws it itself);
   * flat: the API reference's `error` event (type, code, message, param at the top level: the
   * SDK hands it to the client as an event); failed: response.created, then response.failed
   * with the response's error. Default error_object.
   */
  responsesOverflow?: 'error_object' | 'flat' | 'failed';
}

type Settings = Required<Omit<FakeServerOptions, 'responder' | 'replies' | 'fallback' | 'knownModels' | 'apiKey' | 'host' | 'port'>> &
  Pick<FakeServerOptions, 'fallback' | 'knownModels' | 'apiKey'>;

export interface FakeServer {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly port: number;
  /** For the Anthropic SDK (no /v1). */
  readonly anthropicBaseURL: string;
  /** For the OpenAI SDK (ends in /v1). */
  readonly openaiBaseURL: string;
  /** Every request received, in order (model lookups apart). */
  readonly requests: RecordedRequest[];
  /** GET /v1/models requests (Anthropic), in order. */
  readonly modelLookups: RecordedRequest[];
  /** Live settings: change the window, flavor, multiplier... between requests. */
  readonly settings: Settings;
  enqueue(...replies: Reply[]): void;
  respondWith(responder: Responder | undefined): void;
  pendingReplies(): number;
  lastRequest(): RecordedRequest | undefined;
  /** The simulated prompt caches (advance its clock to expire entries). */
  readonly promptCache: PromptCacheSim;
  /** Forgets the recorded requests, the queued replies and the prompt caches; request numbering restarts at 1. */
  clear(): void;
  close(): Promise<void>;
}

const DEFAULT_WINDOW = 1_000_000;

export async function startFakeServer(opts: FakeServerOptions = {}): Promise<FakeServer> {
  const settings: Settings = {
    contextWindow: opts.contextWindow ?? DEFAULT_WINDOW,
    overflow: opts.overflow ?? 'openai',
    anthropicCountsMaxTokens: opts.anthropicCountsMaxTokens ?? false,
    tokenMultiplier: opts.tokenMultiplier ?? 1,
    outputCaps: opts.outputCaps ?? {},
    allowConsecutiveRoles: opts.allowConsecutiveRoles ?? false,
    rejectMaxTokensForReasoningModels: opts.rejectMaxTokensForReasoningModels ?? true,
    maxStallMs: opts.maxStallMs ?? 30_000,
    maxBodyBytes: opts.maxBodyBytes ?? 32 * 1024 * 1024,
    maxRecorded: opts.maxRecorded ?? 10_000,
    idleShutdownMs: opts.idleShutdownMs ?? 0,
    promptCache: opts.promptCache ?? true,
    responsesOverflow: opts.responsesOverflow ?? 'error_object',
    rejectUnknownFields: opts.rejectUnknownFields ?? false,
    models: opts.models ?? {},
    ...(opts.fallback ? { fallback: opts.fallback } : {}),
    ...(opts.knownModels ? { knownModels: opts.knownModels } : {}),
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
  };
  const queue: Reply[] = [...(opts.replies ?? [])];
  let responder = opts.responder;
  const requests: RecordedRequest[] = [];
  const modelLookups: RecordedRequest[] = [];
  const promptCache = new PromptCacheSim();
  const pausedTurns = new PausedTurns();
  let seq = 0;
  const stallTimers = new Set<NodeJS.Timeout>();
  /** Responses scripted never to answer (`hang`), destroyed when the server closes. */
  const hanging = new Set<ServerResponse>();
  let idleTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const windowFor = (model: string): number => {
    const w = settings.contextWindow;
    if (typeof w !== 'number' && w[model] !== undefined) return w[model];
    const described = settings.models[model]?.maxInput;
    if (described !== undefined) return described;
    if (typeof w === 'number') return w;
    return w['*'] ?? DEFAULT_WINDOW;
  };
  const outputCapFor = (model: string): number | undefined => {
    if (settings.outputCaps === false) return undefined;
    const own = settings.outputCaps[model] ?? settings.models[model]?.maxOutput;
    if (own !== undefined) return own;
    const known = resolveModel(model);
    return known.source === 'builtin' ? known.maxOutputTokens : undefined;
  };

  /**
   * A request asking for exactly this many output tokens beyond its thinking budget is a warm-up
   * (src/session/compactionEngine.ts asks for 16; with thinking enabled the API wants max_tokens
   * above budget_tokens, so it asks for the budget plus 16).
   */
  const WARM_UP_MAX_TOKENS = 16;
  const isWarmUp = (view: RequestView): boolean => view.maxTokens !== undefined && view.maxTokens - thinkingBudget(view.thinking) === WARM_UP_MAX_TOKENS;
  const nextReply = (rec: RecordedRequest & { view: RequestView }): Reply =>
    responder?.(rec) ??
    // a cache warm-up (a background compaction's, asking for a few tokens) takes no scripted reply meant for a turn
    (isWarmUp(rec.view) ? { text: 'ok' } : undefined) ??
    queue.shift() ??
    directiveReply(rec.view) ??
    settings.fallback ?? { type: 'error', error: 'invalid_request', message: `fake server: no reply scripted for request #${rec.seq}` };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `fake server failure: ${(e as Error).message}`, type: 'server_error', param: null, code: null } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    touchIdle();
    const path = (req.url ?? '/').split('?')[0]!;
    const provider: WireProvider | 'unknown' =
      path.startsWith('/v1/messages') || (path.startsWith('/v1/models') && req.headers['anthropic-version'] !== undefined)
        ? 'anthropic'
        : path === '/v1/chat/completions'
          ? 'openai'
          : 'unknown';
    const rec: RecordedRequest = { seq: ++seq, provider, method: req.method ?? 'GET', path, headers: flatHeaders(req), body: undefined };
    // model lookups are logged apart, so that tests counting the model requests are not thrown off by them
    const lookup = req.method === 'GET' && path.startsWith('/v1/models') && provider === 'anthropic';
    if (lookup) {
      seq--;
      modelLookups.push(rec);
    } else requests.push(rec);
    if (requests.length > settings.maxRecorded) requests.splice(0, requests.length - settings.maxRecorded);
    const requestId = `req_fake_${rec.seq}`;
    res.setHeader(provider === 'anthropic' ? 'request-id' : 'x-request-id', requestId);

    if (req.method === 'GET' && path === '/health') return sendJson(res, 200, { ok: true });
    if (lookup) return handleModels(req, res, rec, path);

    const raw = await readBody(req, settings.maxBodyBytes);
    if (raw === null) {
      rec.response = { status: 0, kind: 'dropped' };
      return;
    }
    if (raw === undefined) {
      rec.response = { status: 413, kind: 'error' };
      res.setHeader('connection', 'close');
      return provider === 'anthropic'
        ? sendJson(
            res,
            413,
            anthropicBody(
              'request_too_large',
              'Request exceeds the maximum allowed number of bytes. The maximum request size is 32 MB for standard API endpoints.',
              requestId,
            ),
          )
        : sendJson(res, 413, openaiBody('Request exceeds the maximum allowed number of bytes.', 'invalid_request_error'));
    }
    rec.raw = raw;
    try {
      rec.body = raw.length > 0 ? JSON.parse(raw) : undefined;
    } catch {
      rec.body = undefined;
    }

    const responses = RESPONSES_ROUTES[path];
    if (responses && req.method === 'POST') {
      rec.provider = 'openai';
      return handleResponses(req, res, rec, responses);
    }
    if (provider === 'unknown' || req.method !== 'POST') {
      return sendError(res, rec, { status: 404, headers: {}, body: openaiBody(`Invalid URL (${req.method} ${path})`, 'invalid_request_error') });
    }
    if (provider === 'anthropic') return handleAnthropic(req, res, rec, requestId, path.endsWith('/count_tokens'));
    return handleOpenAI(req, res, rec);
  }

  async function handleAnthropic(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, requestId: string, countOnly: boolean): Promise<void> {
    const withId = (e: WireError): WireError => {
      const body = e.body as { error?: unknown };
      return { ...e, body: typeof body === 'object' && body !== null ? { ...body, request_id: requestId } : body };
    };
    const key = headerValue(req, 'x-api-key') ?? bearer(req);
    if (!key) return sendError(res, rec, withId({ status: 401, headers: {}, body: anthropicBody('authentication_error', 'x-api-key header is required') }));
    if (settings.apiKey !== undefined && key !== settings.apiKey)
      return sendError(res, rec, withId({ status: 401, headers: {}, body: anthropicBody('authentication_error', 'invalid x-api-key') }));
    if (!headerValue(req, 'anthropic-version')) return sendError(res, rec, withId(anthropicInvalid('anthropic-version: header is required')));

    const parsed = parseAnthropicRequest(rec.body, {
      tokenMultiplier: settings.tokenMultiplier,
      allowConsecutiveRoles: settings.allowConsecutiveRoles,
      requireMaxTokens: !countOnly,
      // models before preserved thinking: the API strips finished turns' thinking (WIRE_CURRENT.md §1)
      stripsFinishedThinking: (model) => fakeCapsOf(model)?.binds === false,
    });
    if (!parsed.ok) return sendError(res, rec, withId(anthropicInvalid(parsed.message)));
    const view = parsed.view;
    rec.view = view;
    anthropicModelsAsked.push(view.model);
    if (settings.knownModels && !settings.knownModels.includes(view.model))
      return sendError(res, rec, withId({ status: 404, headers: {}, body: anthropicBody('not_found_error', `model: ${view.model}`) }));
    const plan = planThinking(rec.body as Record<string, unknown>, view.model, headerValue(req, 'anthropic-version') ?? '');
    if ('error' in plan) return sendError(res, rec, withId(anthropicInvalid(plan.error)));
    const replayError = checkReplay(rec.body as Record<string, unknown>, fakeCapsOf(view.model), plan);
    if (replayError) return sendError(res, rec, withId(anthropicInvalid(replayError)));
    // a paused turn sent back as-is continues (its open search runs now); altered, it is refused
    const bodyMessages = (rec.body as { messages: unknown[] }).messages;
    const continued = pausedTurns.continued(bodyMessages.at(-1), bodyMessages.length - 1, parsed.openSearches);
    if (typeof continued === 'string') return sendError(res, rec, withId(anthropicInvalid(continued)));
    if (countOnly) {
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, { input_tokens: view.promptTokens });
    }
    const cap = outputCapFor(view.model);
    if (cap !== undefined && view.maxTokens !== undefined && view.maxTokens > cap)
      return sendError(
        res,
        rec,
        withId(anthropicInvalid(`max_tokens: ${view.maxTokens} > ${cap}, which is the maximum allowed number of output tokens for ${view.model}`)),
      );

    const window = windowFor(view.model);
    const fig: ErrorFigures = { model: view.model, promptTokens: view.promptTokens, limit: window, maxTokens: view.maxTokens ?? 0, apiKey: key };
    if (view.promptTokens > window) return sendError(res, rec, withId(anthropicInvalid(promptTooLongText(fig))));
    if (settings.anthropicCountsMaxTokens && view.promptTokens + fig.maxTokens > window)
      return sendError(res, rec, withId(anthropicInvalid(inputAndMaxTokensText(fig))));

    const reply = nextReply(rec as RecordedRequest & { view: RequestView });
    if (reply.type === 'error') return sendError(res, rec, withId(anthropicError(reply, scriptedFigures(reply, fig))));

    const calls = reply.toolCalls ?? [];
    const toolJson = calls.map((c) => c.json ?? JSON.stringify(c.input ?? {}));
    const cached = settings.promptCache ? promptCache.anthropic(view.model, parsed.segments, settings.tokenMultiplier, view.promptTokens) : undefined;
    const inputs = inputFigures(reply, view.promptTokens, cached);
    // a continuation goes on from the paused reply's thinking
    const thought = continued ? undefined : thinkingBlockOf(reply, view, plan, replyPrefix(rec.body as Record<string, unknown>));
    // thinking tokens are output tokens, billed whether the text is shown or omitted
    const thinkingTokens = thought ? countText(thought.thinking) : 0;
    const f: ReplyFigures = {
      messageId: `msg_fake_${rec.seq}`,
      model: reply.model ?? view.model,
      ...inputs,
      outputTokens: outputTokens(reply, toolJson) + (reply.usage?.outputTokens !== undefined ? 0 : thinkingTokens),
      ...(thought ? { thinking: { shown: thought.shown, signature: thought.signature } } : {}),
      thinkingTokens,
      stop: stopOf(reply),
      toolIds: calls.map((c, k) => c.id ?? `toolu_fake_${rec.seq}_${k}`),
      toolJson,
      // a model searches only where the request offers the tool
      ...(reply.search && view.webSearchTool ? { searchId: `srvtoolu_fake_${rec.seq}` } : {}),
      ...(continued?.open ? { continues: continued.open } : {}),
    };
    if (reply.pause) {
      const content = (anthropicMessage(reply, f) as { content: unknown[] }).content;
      pausedTurns.add({ content, ...(reply.search && f.searchId ? { open: { id: f.searchId, search: reply.search } } : {}) });
    }
    rec.usage = {
      inputTokens: f.inputTokens,
      cacheReadTokens: f.cacheReadTokens,
      cacheWriteTokens: f.cacheWriteTokens,
      outputTokens: f.outputTokens,
      ...(thinkingTokens > 0 ? { thinkingTokens } : {}),
    };
    if (!view.stream) {
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, anthropicMessage(reply, f));
    }
    return streamFrames(res, rec, anthropicFrames(reply, f), reply, anthropicInStreamError(reply.cut?.message ?? 'Overloaded'));
  }

  /** GET /v1/models and /v1/models/{id} (Anthropic): the capability table of anthropic-thinking.ts. */
  function handleModels(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, path: string): void {
    const key = headerValue(req, 'x-api-key') ?? bearer(req);
    if (!key) return sendError(res, rec, { status: 401, headers: {}, body: anthropicBody('authentication_error', 'x-api-key header is required') });
    const id = decodeURIComponent(path.slice('/v1/models'.length).replace(/^\//, ''));
    if (id === '') {
      const ids = settings.knownModels ?? [
        'claude-sonnet-5-5',
        'claude-opus-5-5',
        'claude-haiku-5-5',
        'claude-fable-5-2',
        'claude-opus-4-8',
        'claude-sonnet-4-6',
        'claude-sonnet-4-5',
        'claude-haiku-4-5',
      ];
      const data = ids.map((m) => modelInfo(m, settings.models[m])).filter((m) => m !== undefined);
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, { data, has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null });
    }
    const info = settings.knownModels && !settings.knownModels.includes(id) ? undefined : modelInfo(id, settings.models[id]);
    if (!info) return sendError(res, rec, { status: 404, headers: {}, body: anthropicBody('not_found_error', `model: ${id}`) });
    rec.response = { status: 200, kind: 'json' };
    return sendJson(res, 200, info);
  }

  async function handleOpenAI(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest): Promise<void> {
    const key = bearer(req);
    if (!key)
      return sendError(res, rec, {
        status: 401,
        headers: {},
        body: openaiBody(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
          'invalid_request_error',
        ),
      });
    if (settings.apiKey !== undefined && key !== settings.apiKey)
      return sendError(
        res,
        rec,
        openaiError({ type: 'error', error: 'auth' }, settings.overflow, { model: '', promptTokens: 0, limit: 0, maxTokens: 0, apiKey: key }),
      );

    if (settings.rejectUnknownFields) {
      const extra = unknownOpenAIField(rec.body, settings.overflow === 'openai');
      if (extra)
        return sendError(res, rec, {
          status: 400,
          headers: {},
          body: {
            object: 'error',
            message: `[{'type': 'extra_forbidden', 'loc': ('body', '${extra}'), 'msg': 'Extra inputs are not permitted', 'input': ...}]`,
            type: 'BadRequestError',
            param: null,
            code: 400,
          },
        });
    }
    const parsed = parseOpenAIRequest(rec.body, {
      tokenMultiplier: settings.tokenMultiplier,
      rejectMaxTokensForReasoningModels: settings.rejectMaxTokensForReasoningModels,
    });
    if (!parsed.ok) return sendError(res, rec, openaiInvalid(parsed.message, parsed.param, parsed.code));
    const view = parsed.view;
    rec.view = view;
    if (settings.knownModels && !settings.knownModels.includes(view.model))
      return sendError(
        res,
        rec,
        openaiError({ type: 'error', error: 'not_found' }, settings.overflow, { model: view.model, promptTokens: 0, limit: 0, maxTokens: 0 }),
      );
    const cap = settings.overflow === 'openai' ? outputCapFor(view.model) : undefined;
    if (cap !== undefined && view.maxTokens !== undefined && view.maxTokens > cap)
      return sendError(
        res,
        rec,
        openaiInvalid(
          `max_tokens is too large: ${view.maxTokens}. This model supports at most ${cap} completion tokens, whereas you provided ${view.maxTokens}.`,
          view.maxTokensField ?? 'max_tokens',
        ),
      );

    const window = windowFor(view.model);
    const flavor = settings.overflow;
    const fig: ErrorFigures = { model: view.model, promptTokens: view.promptTokens, limit: window, maxTokens: view.maxTokens ?? 0, apiKey: key };
    let reportedPrompt = view.promptTokens;
    const countsOutput = flavor === 'openai' || flavor === 'vllm' || flavor === 'vllm_flat';
    const over = view.promptTokens > window || (countsOutput && view.promptTokens + fig.maxTokens > window);
    if (over) {
      const err = openaiOverflow(flavor, fig);
      if (err) return sendError(res, rec, err);
      if (view.promptTokens > window) {
        view.truncated = true;
        reportedPrompt = window;
      }
    }

    const reply = nextReply(rec as RecordedRequest & { view: RequestView });
    if (reply.type === 'error') return sendError(res, rec, openaiError(reply, flavor, scriptedFigures(reply, fig)));

    const calls = reply.toolCalls ?? [];
    const toolJson = calls.map((c) => c.json ?? JSON.stringify(c.input ?? {}));
    const simulate = settings.promptCache && flavor === 'openai' && !view.truncated;
    const cachedTokens = simulate ? promptCache.openai(view.model, parsed.promptCacheKey, parsed.segments, settings.tokenMultiplier, reportedPrompt) : 0;
    const inputs = inputFigures(
      reply,
      reportedPrompt,
      simulate ? { inputTokens: reportedPrompt - cachedTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0, cacheWrite1hTokens: 0 } : undefined,
    );
    const f: ChunkFigures = {
      completionId: `chatcmpl-fake${rec.seq}`,
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? view.model,
      promptTokens: reply.usage?.inputTokens !== undefined ? inputs.inputTokens + inputs.cacheReadTokens : reportedPrompt,
      cachedTokens: inputs.cacheReadTokens,
      completionTokens: outputTokens(reply, toolJson),
      finishReason: reply.finishReason ?? finishOf(stopOf(reply)),
      toolIds: calls.map((c, k) => (reply.omitToolCallIds ? undefined : (c.id ?? `call_fake_${rec.seq}_${k}`))),
      toolJson,
      includeUsage: view.includeUsage,
    };
    rec.usage = { inputTokens: f.promptTokens - f.cachedTokens, cacheReadTokens: f.cachedTokens, cacheWriteTokens: 0, outputTokens: f.completionTokens };
    if (!view.stream) {
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, openaiCompletion(reply, f));
    }
    return streamFrames(
      res,
      rec,
      openaiFrames(reply, f),
      reply,
      openaiInStreamError(reply.cut?.message ?? 'The server had an error while processing your request. Sorry about that!'),
    );
  }

  async function handleResponses(req: IncomingMessage, res: ServerResponse, rec: RecordedRequest, action: 'respond' | 'count' | 'compact'): Promise<void> {
    const key = bearer(req);
    if (!key) return sendError(res, rec, { status: 401, headers: {}, body: openaiBody("You didn't provide an API key.", 'invalid_request_error') });
    if (settings.apiKey !== undefined && key !== settings.apiKey)
      return sendError(res, rec, openaiError({ type: 'error', error: 'auth' }, 'openai', { model: '', promptTokens: 0, limit: 0, maxTokens: 0, apiKey: key }));
    const parsed = parseResponsesRequest(rec.body, settings.tokenMultiplier);
    if (!parsed.ok) return sendError(res, rec, openaiInvalid(parsed.message, parsed.param, parsed.code));
    const view = parsed.view;
    rec.view = view;
    if (settings.knownModels && !settings.knownModels.includes(view.model))
      return sendError(res, rec, openaiError({ type: 'error', error: 'not_found' }, 'openai', { model: view.model, promptTokens: 0, limit: 0, maxTokens: 0 }));
    if (action === 'count') {
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, { object: 'response.input_tokens', input_tokens: view.promptTokens });
    }
    const fig: ErrorFigures = { model: view.model, promptTokens: view.promptTokens, limit: windowFor(view.model), maxTokens: view.maxTokens ?? 0, apiKey: key };
    if (action === 'compact') {
      if (view.promptTokens > fig.limit) return sendError(res, rec, openaiInvalid(CONTEXT_WINDOW_TEXT, 'input', 'context_length_exceeded'));
      const cached = settings.promptCache
        ? promptCache.openai(view.model, parsed.promptCacheKey, parsed.segments, settings.tokenMultiplier, view.promptTokens)
        : 0;
      rec.usage = { inputTokens: view.promptTokens - cached, cacheReadTokens: cached, cacheWriteTokens: 0, outputTokens: compactionSize(view.promptTokens) };
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, compactedResponse(rec.seq, view, rec.body, cached));
    }
    // over the window: a 400 when not streaming, else an `error` event in a 200 stream
    if (view.promptTokens > fig.limit) {
      if (!view.stream) return sendError(res, rec, openaiInvalid(CONTEXT_WINDOW_TEXT, 'input', 'context_length_exceeded'));
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      rec.response = { status: 200, kind: 'error', errorMessage: CONTEXT_WINDOW_TEXT };
      res.end(responsesOverflowFrames(settings.responsesOverflow, `resp_fake_${rec.seq}`, view.model));
      return;
    }
    const reply = nextReply(rec as RecordedRequest & { view: RequestView });
    if (reply.type === 'error') return sendError(res, rec, openaiError(reply, 'openai', scriptedFigures(reply, fig)));

    const calls = reply.toolCalls ?? [];
    const toolJson = calls.map((c) => c.json ?? JSON.stringify(c.input ?? {}));
    const cachedTokens = settings.promptCache
      ? promptCache.openai(view.model, parsed.promptCacheKey, parsed.segments, settings.tokenMultiplier, view.promptTokens)
      : 0;
    const inputs = inputFigures(
      reply,
      view.promptTokens,
      settings.promptCache
        ? { inputTokens: view.promptTokens - cachedTokens, cacheReadTokens: cachedTokens, cacheWriteTokens: 0, cacheWrite1hTokens: 0 }
        : undefined,
    );
    const reasoning = parsed.reasoningModel && parsed.effort !== 'none' && reply.reasoning !== false;
    const summary = reasoning && parsed.wantsSummary ? (typeof reply.reasoning === 'string' ? reply.reasoning : DEFAULT_REASONING_SUMMARY) : undefined;
    const reasoningTokens = reasoning
      ? (reply.reasoningTokens ?? 4 * countText(typeof reply.reasoning === 'string' ? reply.reasoning : DEFAULT_REASONING_SUMMARY))
      : 0;
    const f: ResponseFigures = {
      responseId: `resp_fake_${rec.seq}`,
      seq: rec.seq,
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? view.model,
      inputTokens: inputs.inputTokens + inputs.cacheReadTokens + inputs.cacheWriteTokens,
      cachedTokens: inputs.cacheReadTokens,
      cacheWriteTokens: inputs.cacheWriteTokens,
      outputTokens: outputTokens(reply, toolJson) + (reply.usage?.outputTokens !== undefined ? 0 : reasoningTokens),
      reasoningTokens,
      reasoning,
      summary,
      includeEncrypted: parsed.includeEncrypted,
      toolIds: calls.map((c, k) => c.id ?? `call_fake_${rec.seq}_${k}`),
      toolJson,
      maxOutputTokens: view.maxTokens,
      ...(reply.search && view.webSearchTool ? { search: { withSources: parsed.includeSources } } : {}),
    };
    rec.usage = {
      inputTokens: inputs.inputTokens,
      cacheReadTokens: inputs.cacheReadTokens,
      cacheWriteTokens: inputs.cacheWriteTokens,
      outputTokens: f.outputTokens,
    };
    if (!view.stream) {
      rec.response = { status: 200, kind: 'json' };
      return sendJson(res, 200, responseObject(reply, f));
    }
    const message = reply.cut?.message ?? 'The server had an error while processing your request. Sorry about that!';
    return streamFrames(res, rec, responsesFrames(reply, f), reply, responsesErrorFrame('server_error', 'server_error', message));
  }

  function scriptedFigures(reply: ErrorReply, fig: ErrorFigures): ErrorFigures {
    const limit = reply.limit ?? (fig.limit >= DEFAULT_WINDOW ? 200_000 : fig.limit);
    return {
      ...fig,
      limit,
      promptTokens: reply.promptTokens ?? Math.max(fig.promptTokens, limit + 1_000),
      maxTokens: reply.maxTokens ?? fig.maxTokens,
    };
  }

  async function streamFrames(res: ServerResponse, rec: RecordedRequest, frames: string[], reply: MessageReply, errorFrame: string): Promise<void> {
    if (reply.hang) {
      // never answers: open until the client cancels or the server closes (close() destroys it)
      rec.response = { status: 0, kind: 'hung' };
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (reply.delayMs) {
      await sleep(reply.delayMs);
      if (res.destroyed || closed) return;
    }
    if (reply.gate) {
      let left = false;
      const gone = new Promise<void>((r) => res.once('close', () => r(void (left = true))));
      await Promise.race([reply.gate, gone]);
      if (left || res.destroyed || closed) {
        rec.cancelled = true;
        return;
      }
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
    rec.response = { status: 200, kind: 'stream' };
    const cut = reply.cut;
    const limit = cut ? Math.min(cut.afterFrames, frames.length) : frames.length;
    for (let i = 0; i < limit; i++) {
      if (res.destroyed || closed) return;
      await write(res, frames[i]!);
      if (reply.frameDelayMs) await sleep(reply.frameDelayMs);
    }
    if (res.destroyed || closed) return;
    if (!cut) {
      res.end();
      return;
    }
    switch (cut.how) {
      case 'error':
        await write(res, errorFrame);
        res.end();
        return;
      case 'end':
        res.end();
        return;
      case 'drop':
        rec.response = { status: 200, kind: 'dropped' };
        res.socket?.destroy();
        return;
      case 'stall': {
        const timer = setTimeout(() => {
          stallTimers.delete(timer);
          res.socket?.destroy();
        }, settings.maxStallMs);
        stallTimers.add(timer);
        res.on('close', () => {
          clearTimeout(timer);
          stallTimers.delete(timer);
        });
        return;
      }
    }
  }

  function sendError(res: ServerResponse, rec: RecordedRequest, e: WireError): void {
    const body = e.body as { error?: { message?: unknown } | string; message?: unknown };
    const message =
      typeof body.error === 'string'
        ? body.error
        : typeof body.error?.message === 'string'
          ? body.error.message
          : typeof body.message === 'string'
            ? body.message
            : undefined;
    rec.response = { status: e.status, kind: 'error', ...(message !== undefined ? { errorMessage: message } : {}) };
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    sendJson(res, e.status, e.body);
  }

  function touchIdle(): void {
    if (settings.idleShutdownMs <= 0) return;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => void close(), settings.idleShutdownMs);
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    if (idleTimer) clearTimeout(idleTimer);
    for (const t of stallTimers) clearTimeout(t);
    stallTimers.clear();
    for (const r of hanging) r.socket?.destroy();
    hanging.clear();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  touchIdle();
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;

  return {
    url,
    port: addr.port,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    modelLookups,
    settings,
    promptCache,
    enqueue: (...replies) => void queue.push(...replies),
    respondWith: (r) => {
      responder = r;
    },
    pendingReplies: () => queue.length,
    lastRequest: () => requests[requests.length - 1],
    clear: () => {
      requests.length = 0;
      modelLookups.length = 0;
      queue.length = 0;
      seq = 0;
      promptCache.clear();
      pausedTurns.clear();
    },
    close,
  };
}

/** The Responses API's routes and what each does. */
const RESPONSES_ROUTES: Record<string, 'respond' | 'count' | 'compact' | undefined> = {
  '/v1/responses': 'respond',
  '/v1/responses/input_tokens': 'count',
  '/v1/responses/compact': 'compact',
};

/** The input side of the reported usage: scripted figures when the reply gives any, else the cache simulation's, else all uncached. */
function inputFigures(reply: MessageReply, promptTokens: number, cached: AnthropicCacheUsage | undefined): AnthropicCacheUsage {
  const u = reply.usage;
  const scripted = u !== undefined && (u.inputTokens !== undefined || u.cacheReadTokens !== undefined || u.cacheWriteTokens !== undefined);
  if (!scripted && cached) return cached;
  const cacheReadTokens = u?.cacheReadTokens ?? 0;
  const cacheWriteTokens = u?.cacheWriteTokens ?? 0;
  return {
    inputTokens: u?.inputTokens ?? Math.max(0, promptTokens - cacheReadTokens - cacheWriteTokens),
    cacheReadTokens,
    cacheWriteTokens,
    cacheWrite1hTokens: 0,
  };
}

const OPENAI_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'stop',
  'n',
  'seed',
  'user',
  'response_format',
  'parallel_tool_calls',
  'reasoning_effort',
]);

/** The first top-level field a strict OpenAI-compatible server would refuse; prompt_cache_key is OpenAI's own. */
function unknownOpenAIField(body: unknown, isOpenAI: boolean): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  return Object.keys(body).find((k) => !OPENAI_FIELDS.has(k) && !(isOpenAI && (k === 'prompt_cache_key' || k === 'prompt_cache_retention')));
}

function outputTokens(reply: MessageReply, toolJson: string[]): number {
  if (reply.usage?.outputTokens !== undefined) return reply.usage.outputTokens;
  return Math.max(1, countText(reply.text ?? '') + toolJson.reduce((n, j) => n + countText(j), 0));
}

const stopOf = (reply: MessageReply): StopName => reply.stop ?? (reply.pause ? 'pause_turn' : (reply.toolCalls ?? []).length > 0 ? 'tool_use' : 'end_turn');

function finishOf(stop: StopName): string {
  switch (stop) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'stop';
  }
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function bearer(req: IncomingMessage): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(headerValue(req, 'authorization') ?? '');
  return m?.[1];
}

/** The body as text; undefined when over `max`; null when the client went away before sending it all. */
function readBody(req: IncomingMessage, max: number): Promise<string | undefined | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    let ended = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) over = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      ended = true;
      resolve(over ? undefined : Buffer.concat(chunks).toString('utf8'));
    });
    req.on('close', () => {
      if (!ended) resolve(null);
    });
    req.on('error', () => resolve(null));
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function write(res: ServerResponse, frame: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(frame, () => resolve());
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The text of the last user message that is not only tool results. */
export function lastUserText(view: RequestView): string | undefined {
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const m = view.messages[i]!;
    if (m.role !== 'user') continue;
    const texts = m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
    if (texts.length > 0) return texts.join('\n');
  }
  return undefined;
}

/** The tool results of the last message, if it holds any. */
export function lastToolResults(view: RequestView): { toolUseId: string; content: string; isError: boolean }[] {
  const out: { toolUseId: string; content: string; isError: boolean }[] = [];
  // OpenAI sends one tool message per result: collect the trailing run
  for (let i = view.messages.length - 1; i >= 0; i--) {
    const m = view.messages[i]!;
    if (m.role !== 'user') break;
    const results = m.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : []));
    if (results.length === 0) {
      if (out.length > 0) break;
      continue;
    }
    out.unshift(...results.map((r) => ({ toolUseId: r.toolUseId, content: r.content, isError: r.isError })));
  }
  return out;
}

/** The budget of an Anthropic request's `thinking: { type: 'enabled', budget_tokens }`; 0 when it does not think within one. */
function thinkingBudget(thinking: unknown): number {
  if (typeof thinking !== 'object' || thinking === null) return 0;
  const t = thinking as { type?: unknown; budget_tokens?: unknown };
  return t.type === 'enabled' && typeof t.budget_tokens === 'number' ? t.budget_tokens : 0;
}
