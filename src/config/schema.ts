import * as z from 'zod/mini';
import '../zodEnglish.js';
import { editDistance } from '../editDistance.js';
import { SandboxFileSchema } from './sandboxSchema.js';

// The .agentrc schema. Every key is optional in a file; defaults live here so that the
// rest of the program reads one fully populated Config. .agentrc.example documents each key.
// zod/mini's functional API (z.optional(x), z._default(x, v), x.check(...)), imported as a
// namespace so the bundle keeps only what is used: every start-up validates .agentrc, and
// classic zod was ~3× the code to compile (docs/build.md, "Build and start-up").

const positiveInt = z.int().check(z.positive());
const nonNegativeInt = z.int().check(z.nonnegative());
const nonEmptyString = z.string().check(z.minLength(1));

export const PERMISSION_MODES = ['ask', 'acceptEdits', 'plan', 'allow', 'deny'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];
/** Claude Code's mode names, so its scripts and settings work: default → ask, bypassPermissions → allow, dontAsk → deny. */
export const PERMISSION_MODE_ALIASES: Readonly<Record<string, PermissionMode>> = { default: 'ask', bypassPermissions: 'allow', dontAsk: 'deny' };
/** A mode as written (this program's name or Claude Code's), read as this program's. */
export const PermissionModeSchema = z.pipe(
  z.enum([...PERMISSION_MODES, 'default', 'bypassPermissions', 'dontAsk']),
  z.transform((m): PermissionMode => PERMISSION_MODE_ALIASES[m] ?? (m as PermissionMode)),
);

export const PermissionsSchema = z.strictObject({
  /** ask: Bash, Edit and Write (and any tool not allowed below) ask first; acceptEdits: edits inside the working directory run, Bash asks; plan: only what cannot change anything runs (reads, read-only commands) until a plan is approved; allow: everything runs; deny: refuse what needs approval. Claude Code's names work too (default, bypassPermissions, dontAsk). */
  mode: z._default(PermissionModeSchema, 'ask'),
  /** Tools that run without asking, e.g. ["Bash"] to trust every command. */
  allowTools: z._default(z.array(nonEmptyString), []),
  /** Bash command prefixes that run without asking, e.g. ["npm test", "git status"]. */
  allowBash: z._default(z.array(nonEmptyString), []),
  /** Directories (or files) outside the working directory that FileRead, Grep and Glob may read without asking; also --add-dir. */
  readPaths: z._default(z.array(nonEmptyString), []),
});
export type PermissionsConfig = z.infer<typeof PermissionsSchema>;

export const CompactionSchema = z.strictObject({
  /** Automatic compaction (micro + auto). Manual and reactive compaction always work. */
  auto: z._default(z.boolean(), true),
  /** Cap on the output reserve subtracted from the window: effective = window − min(maxOutput, this). */
  reserveTokens: z._default(nonNegativeInt, 20_000),
  /** Auto compaction fires at effective − this. */
  autoBufferTokens: z._default(nonNegativeInt, 13_000),
  /** The gauge turns to "warning" at effective − this. */
  warningBufferTokens: z._default(nonNegativeInt, 20_000),
  /** Requests are blocked (compaction forced first) at effective − this. */
  blockingBufferTokens: z._default(nonNegativeInt, 3_000),
  /** Micro compaction (clearing old tool outputs) starts at effective − this. */
  microBufferTokens: z._default(nonNegativeInt, 20_000),
  /**
   * Micro compaction is also weighed from this many tokens, when that comes before effective −
   * microBufferTokens: old outputs reread by every request cost more than the rewrite a clear
   * worth it (microPolicy.ts) takes. 0 (the default): only from the buffer. 60,000 cut the tool-heavy
   * bench's billed input by a fifth, but the fidelity bench lost the latest request in auto×3
   * keeps-half (docs/performance.md, "Billed input"), so it is the person's choice.
   */
  microWorkingSetTokens: z._default(nonNegativeInt, 0),
  /** Micro compaction keeps this many most recent compactable tool results intact. */
  microKeepRecent: z._default(nonNegativeInt, 5),
  /** Auto/manual compaction keeps at most this many recent user turns verbatim... */
  tailTurns: z._default(nonNegativeInt, 3),
  /** ...within this many tokens. */
  tailTokens: z._default(nonNegativeInt, 20_000),
  /** Most tokens the summary may take (the summarizer's max output). */
  summaryMaxTokens: z._default(positiveInt, 8_000),
  /** Most tokens of history sent to the summarizer in one request; more is chunked. 0 = derive from the summarizer's window. */
  summaryInputTokens: z._default(nonNegativeInt, 0),
  /** Parallel summarizer requests when the head is chunked. */
  chunkConcurrency: z._default(positiveInt, 2),
  /**
   * Who writes checkpoints: "own" (this agent's summarizer, a readable summary) or "provider"
   * (OpenAI models on the Responses API: responses.compact's encrypted compaction item).
   */
  engine: z._default(z.enum(['own', 'provider']), 'own'),
  /** Model that writes summaries; default the session's model. */
  model: z.optional(nonEmptyString),
  /** Second pass that checks the draft summary for missing details. */
  verify: z._default(z.boolean(), false),
  /** Turns after a successful auto compaction during which auto compaction does not fire again. */
  cooldownTurns: z._default(nonNegativeInt, 2),
  /** Consecutive failed auto compactions that trip the circuit breaker. */
  maxFailures: z._default(positiveInt, 3),
  /** Reactive compaction attempts per turn after "prompt is too long". */
  maxReactiveAttempts: z._default(nonNegativeInt, 2),
  /** After compaction, re-read up to this many recently read files... */
  restoreFiles: z._default(nonNegativeInt, 5),
  /** ...each capped at this many tokens... */
  restoreFileTokens: z._default(nonNegativeInt, 5_000),
  /** ...all restored context (files, AGENTS.md, recent requests) within this many tokens. */
  restoreTokens: z._default(nonNegativeInt, 20_000),
  /** Carry the working-state ledger (the person's words, files, standing failures, derived from the log) beside every checkpoint; false: the summary alone. */
  ledger: z._default(z.boolean(), true),
  /** Calls in a turn that stop at max_tokens and are told to continue, at most. */
  maxOutputRecoveries: z._default(nonNegativeInt, 3),
  /**
   * Auto compaction writes its summary in the background while the session goes on with the full
   * history, and swaps it in at a turn boundary once the auto threshold is reached; false: the
   * session stops for the summary at the auto threshold (the path before issue 43).
   */
  background: z._default(z.boolean(), true),
  /** The background summary starts at this share of the auto threshold; unset: at the auto threshold less the tail a compaction keeps (`tailTokens` fitted to the window), where it costs no more than the synchronous path. */
  prefire: z.optional(z.number().check(z.positive(), z.lte(1))),
  /** A summary request that has not answered after this many seconds is cancelled (and tried again later); at the hard limit a compaction without a summary is applied instead. */
  summaryDeadlineSeconds: z._default(positiveInt, 120),
  /** Standing instructions for every summary (what to keep, what to stress), merged with /compact focus: and PreCompact hooks' output. */
  instructions: z.optional(nonEmptyString),
});
export type CompactionConfig = z.infer<typeof CompactionSchema>;

export const EffortSchema = z.enum(['low', 'medium', 'high', 'xhigh', 'max']);

export const ThinkingSchema = z.strictObject({
  /** adaptive: the model decides when and how much (default where the model takes it); enabled: manual, within budgetTokens (4.5-era models); off: where the model can turn it off. */
  mode: z.optional(z.enum(['adaptive', 'enabled', 'off'])),
  /** With mode "enabled": tokens the model may think, at least 1,024 and below maxOutputTokens. */
  budgetTokens: z.optional(positiveInt),
  /** How much effort the model puts in (output_config.effort): low, medium, high (the API's default), xhigh, max; not every model takes every level. */
  effort: z.optional(EffortSchema),
  /** summarized (default): the thinking text comes back and is shown; omitted: only its signature. */
  display: z.optional(z.enum(['summarized', 'omitted'])),
});

export const ModelEntrySchema = z.strictObject({
  contextWindow: positiveInt,
  maxOutputTokens: positiveInt,
  provider: z.optional(z.enum(['anthropic', 'openai'])),
  /** Thinking settings for this model (over the top-level "thinking"). */
  thinking: z.optional(ThinkingSchema),
  /** What this model accepts, over what its provider says: thinking modes... */
  thinkingModes: z.optional(z.array(z.enum(['adaptive', 'enabled', 'off']))),
  /** ...and effort levels. */
  effortLevels: z.optional(z.array(EffortSchema)),
  /** Whether the model reads images (default true). false (a local text-only model): each image is sent as a note naming it instead. */
  images: z.optional(z.boolean()),
});

const envName = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'must be an environment variable name, or a prefix ending in *'));

export const BashSchema = z.strictObject({
  /** Default timeout of a command, in milliseconds (the model may ask for another, up to maxTimeoutMs). */
  timeoutMs: z._default(positiveInt, 120_000),
  maxTimeoutMs: z._default(positiveInt, 600_000),
  /** Output beyond this many characters keeps its head and tail with a marker between. */
  maxOutputChars: z._default(positiveInt, 30_000),
  /** Most background commands running at once (Bash run_in_background, commands moved there by their timeout). */
  maxBackground: z._default(positiveInt, 10),
  /** Variables commands still see although they hold keys (e.g. ["OPENAI_API_KEY"] for a script that calls the API); "PREFIX_*" allowed. */
  passEnv: z._default(z.array(envName), []),
  /** More variables to hide from commands and redact (e.g. ["GITHUB_TOKEN", "AWS_*"]); provider key variables are hidden anyway. */
  stripEnv: z._default(z.array(envName), []),
});

export const RecallSchema = z.strictObject({
  /** Let the model's Recall tool search other sessions' archives too. */
  crossSession: z._default(z.boolean(), false),
});

export const OutputSchema = z.strictObject({
  /** A tool result estimated above this many tokens is archived whole and the model gets a head-and-tail preview with a Recall handle; 0 turns spilling off. */
  spillTokens: z._default(z.int().check(z.minimum(0)), 2_000),
  /** Per-tool thresholds (tool name → tokens), e.g. {"Grep": 4000}; others use spillTokens (FileRead four times it: tools/spill.ts). */
  spillTokensByTool: z._default(z.record(z.string(), z.int().check(z.minimum(0))), {}),
});

export const RetrySchema = z.strictObject({
  /** Attempts per model call (summarizer requests too) for rate limits, overload, 5xx and dropped streams. */
  maxAttempts: z._default(positiveInt, 5),
  baseDelayMs: z._default(nonNegativeInt, 1_000),
  maxDelayMs: z._default(nonNegativeInt, 30_000),
});

export const TimeoutsSchema = z.strictObject({
  /** Connecting to the provider (TCP and TLS), per attempt. */
  connectMs: z._default(positiveInt, 10_000),
  /** From sending a request until the response begins, per attempt. */
  firstByteMs: z._default(positiveInt, 120_000),
  /** Longest silence between two chunks of a streamed reply. */
  idleMs: z._default(positiveInt, 120_000),
  /** No new attempt of a model call starts after this long since its first one. */
  totalMs: z._default(positiveInt, 300_000),
});
export const CacheSchema = z.strictObject({
  /** Prompt caching: Anthropic cache_control breakpoints, OpenAI's prompt_cache_key. Off: requests carry no caching hints. */
  enabled: z._default(z.boolean(), true),
  /** How long an Anthropic cache entry lives without a hit: "5m" (writes cost 1.25× input) or "1h" (2×, for sessions that idle). */
  ttl: z._default(z.enum(['5m', '1h']), '5m'),
  /** Send OpenAI's prompt_cache_key (the session id): "auto" only to api.openai.com; true also to a proxy of it; false never. */
  promptCacheKey: z._default(z.union([z.literal('auto'), z.boolean()]), 'auto'),
});
export type CacheConfig = z.infer<typeof CacheSchema>;
export const AgentsSchema = z.strictObject({
  /** Task calls of one reply that run at once; the rest wait for a free slot. */
  parallel: z._default(positiveInt, 4),
  /** How deep sub-agents may nest: 1 = the session's children get no Task tool. */
  maxDepth: z._default(positiveInt, 1),
  /** Model calls per child (an agent file's maxSteps overrides it). */
  maxSteps: z._default(positiveInt, 40),
  /** Tokens a child may use (input + output over all its calls) before it is stopped. */
  maxTokens: z._default(positiveInt, 2_000_000),
  /** A child's report longer than this (characters) reaches the parent cut, with the child's transcript named. */
  reportChars: z._default(positiveInt, 40_000),
});
export type AgentsConfig = z.infer<typeof AgentsSchema>;

export const ToolsSchema = z.strictObject({
  /** The task list tool (TodoWrite): auto offers it to the session on a window of 32,000 tokens or more (its definition and its line in the system prompt cost about 410 tokens a request, measured with the tokenizer); on always; off never. */
  tasks: z._default(z.enum(['auto', 'on', 'off']), 'auto'),
});
export type ToolsConfig = z.infer<typeof ToolsSchema>;

/**
 * One MCP server, in Claude Code's .mcp.json form: a command (stdio) or a URL (type http or sse).
 * A field this program does not know passes (another client's), unless it is a misspelling of one
 * it knows ("commnd"): then it is an error that names it, never a server silently without it.
 */
const McpServerFields = {
  /** stdio (default when `command` is given), http (streamable HTTP) or sse (old servers). */
  type: z.optional(z.enum(['stdio', 'http', 'sse', 'streamable-http'])),
  command: z.optional(nonEmptyString),
  args: z.optional(z.array(z.string())),
  /** Added to the server's minimal environment (HOME, PATH, ...); ${VAR} and ${VAR:-default} are expanded. */
  env: z.optional(z.record(z.string(), z.string())),
  cwd: z.optional(nonEmptyString),
  url: z.optional(nonEmptyString),
  headers: z.optional(z.record(z.string(), z.string())),
  /** Off: listed by /mcp, not started. */
  disabled: z.optional(z.boolean()),
  /** Per-call timeout for this server's tools (default mcp.toolTimeoutMs). */
  toolTimeoutMs: z.optional(positiveInt),
  /** Most characters of one result from this server (default mcp.maxResultChars). */
  maxResultChars: z.optional(positiveInt),
};
export const McpServerSchema = z.pipe(
  z.unknown().check((ctx) => {
    if (typeof ctx.value !== 'object' || ctx.value === null) return;
    const known = Object.keys(McpServerFields);
    for (const key of Object.keys(ctx.value)) {
      if (known.includes(key)) continue;
      const near = known.find((k) => editDistance(key.toLowerCase(), k.toLowerCase()) <= Math.min(2, Math.floor(k.length / 3)));
      if (near) ctx.issues.push({ code: 'custom', message: `unknown field (did you mean "${near}"?)`, input: ctx.value, path: [key] });
    }
  }),
  z.object(McpServerFields),
);
export type McpServerFileEntry = z.infer<typeof McpServerSchema>;

export const WebSchema = z.strictObject({
  /** Hosts or addresses WebFetch may reach although they are private or loopback (e.g. ["127.0.0.1"]); none by default. */
  allowPrivate: z._default(z.array(nonEmptyString), []),
  /** Most bytes of one page WebFetch reads. */
  maxBytes: z._default(positiveInt, 10 * 1024 * 1024),
  /** Most time one WebFetch may take, redirects included. */
  timeoutMs: z._default(positiveInt, 30_000),
});

/** The working tree's checkpoints at every turn boundary, in a shadow git store in the data folder (docs/tools.md). */
export const CheckpointsSchema = z.strictObject({
  /** Snapshot the project at each turn's start and end, so /rewind restores what Bash did too. */
  enabled: z._default(z.boolean(), true),
  /** A tree with more files than this (not ignored) is not snapshotted: the turn gets no checkpoint, and a notice says so. */
  maxFiles: z._default(positiveInt, 100_000),
  /** The shadow store's size cap (MB): over it, the oldest sessions' checkpoints are pruned; still over, snapshots stop with a notice. */
  maxStoreMB: z._default(positiveInt, 2048),
  /** Checkpoints of sessions untouched for this many days are pruned. */
  keepDays: z._default(positiveInt, 30),
});

/** The provider's server-side web search (Anthropic's web search tool, OpenAI Responses' web_search); off by default. */
export const WebSearchSchema = z.strictObject({
  /** Offer the search to the model (Anthropic, and OpenAI on the Responses API; Chat Completions servers have none). */
  enabled: z._default(z.boolean(), false),
  /** Anthropic: most searches in one reply (max_uses); absent: the API's default. */
  maxUses: z.optional(positiveInt),
  /** Search only these domains, e.g. ["docs.rs"]; none: any. */
  allowedDomains: z._default(z.array(nonEmptyString), []),
  /** Anthropic: never these domains (not with allowedDomains). */
  blockedDomains: z._default(z.array(nonEmptyString), []),
});
export type WebSearchConfig = z.infer<typeof WebSearchSchema>;

export const McpSchema = z.strictObject({
  /** Print mode waits at most this long for servers to connect before the first request (the TUI never waits). */
  startupMs: z._default(nonNegativeInt, 10_000),
  /** A tool call that has not answered after this long ends as an error result (Esc cancels sooner). */
  toolTimeoutMs: z._default(positiveInt, 60_000),
  /** When all MCP tool definitions would cost more tokens than this, send names and one-line descriptions and load schemas on demand; 0: 10% of the context window, at most 20,000. */
  deferAboveTokens: z._default(nonNegativeInt, 0),
  /** Most characters of one MCP result the model gets (a server's maxResultChars overrides). */
  maxResultChars: z._default(positiveInt, 40_000),
  /** Most characters of a server's instructions put in the system prompt. */
  instructionsChars: z._default(nonNegativeInt, 2_000),
  /** Run the servers of a project's .mcp.json (and project .agentrc) without asking (also --mcp-trust). */
  trustProject: z._default(z.boolean(), false),
  /** MCP tools that say they only read (readOnlyHint) run without asking. */
  allowReadOnly: z._default(z.boolean(), false),
});
export type McpConfig = z.infer<typeof McpSchema>;

/** The events a hook can run on (Claude Code's names). */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PreCompact', 'PostCompact', 'Stop', 'Notification'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

export const HookCommandSchema = z.strictObject({
  /**
   * Which calls it runs for: a tool name (Claude Code's names too), names joined by |, a regular
   * expression, or "*" (PreToolUse, PostToolUse); a source, trigger or notification type for the
   * other events. Absent: all.
   */
  matcher: z.optional(z.string()),
  /** A shell command; it gets the event as JSON on stdin. */
  command: nonEmptyString,
  /** Killed (with everything it started) after this long; default 60 000. */
  timeoutMs: z.optional(positiveInt),
});
export type HookCommand = z.infer<typeof HookCommandSchema>;

/** Claude Code's settings.json shape, accepted as it is: { matcher?, hooks: [{ type: "command", command, timeout? (seconds) }] }. */
export const ClaudeHookGroupSchema = z.strictObject({
  matcher: z.optional(z.string()),
  hooks: z.array(z.strictObject({ type: z.literal('command'), command: nonEmptyString, timeout: z.optional(z.number().check(z.positive())) })),
});

const hookList = z.optional(z.array(z.union([HookCommandSchema, ClaudeHookGroupSchema])));
export const HooksSchema = z.strictObject({
  SessionStart: hookList,
  UserPromptSubmit: hookList,
  PreToolUse: hookList,
  PostToolUse: hookList,
  PreCompact: hookList,
  PostCompact: hookList,
  Stop: hookList,
  Notification: hookList,
});
export type HooksFileConfig = z.infer<typeof HooksSchema>;
/** Each event's hooks, one command each (Claude Code's groups flattened). */
export type HooksConfig = Partial<Record<HookEventName, HookCommand[]>>;

/** The hooks one file holds (an .agentrc, or Claude Code's settings.json). */
export interface HookSource {
  file: string;
  /** 'user': the person's own file (~/.agentrc, ~/.claude/settings.json); 'project': one of the working directory's. */
  scope: 'user' | 'project';
  /** The directory whose file it is. */
  dir: string;
  hooks: HooksConfig;
  /** The name a project's approval is kept under (ProjectTrust): "hooks" for .agentrc, else the file's name in the project. */
  trustName?: string;
}

/** The file's hooks with Claude Code's groups flattened into one entry per command. */
export function flattenHooks(file: HooksFileConfig): HooksConfig {
  const out: HooksConfig = {};
  for (const event of HOOK_EVENTS) {
    const list = file[event];
    if (!list) continue;
    out[event] = list.flatMap((e): HookCommand[] =>
      'hooks' in e
        ? e.hooks.map((h) => ({
            ...(e.matcher !== undefined ? { matcher: e.matcher } : {}),
            command: h.command,
            ...(h.timeout !== undefined ? { timeoutMs: Math.round(h.timeout * 1000) } : {}),
          }))
        : [e],
    );
  }
  return out;
}

export const FileConfigSchema = z.strictObject({
  $schema: z.optional(z.string()),
  provider: z.optional(z.enum(['anthropic', 'openai'])),
  model: z.optional(nonEmptyString),
  /** Base URL of the provider's API (for OpenAI-compatible servers, it ends in /v1). */
  baseURL: z.optional(z.url()),
  /** OpenAI only: "responses" (the Responses API, default for api.openai.com) or "chat" (Chat Completions, default for any other base URL). */
  api: z.optional(z.enum(['responses', 'chat'])),
  /** OpenAI reasoning models on the Responses API: how hard they think (sent as reasoning.effort; default "medium"). */
  reasoningEffort: z.optional(z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh'])),
  /** Name of the environment variable that holds the API key (keys never go in this file). */
  apiKeyEnv: z.optional(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))),
  /** Tokens a single reply may use; default the model's max output, capped at 32,000. */
  maxOutputTokens: z.optional(positiveInt),
  /** Steps (model calls) per turn before the agent stops and reports. */
  maxSteps: z.optional(positiveInt),
  models: z.optional(z.record(nonEmptyString, ModelEntrySchema)),
  /** How the model thinks (per model under models.<name>.thinking). */
  thinking: z.optional(ThinkingSchema),
  permissions: z.optional(z.partial(PermissionsSchema)),
  compaction: z.optional(z.partial(CompactionSchema)),
  bash: z.optional(z.partial(BashSchema)),
  recall: z.optional(z.partial(RecallSchema)),
  output: z.optional(z.partial(OutputSchema)),
  retry: z.optional(z.partial(RetrySchema)),
  timeouts: z.optional(z.partial(TimeoutsSchema)),
  cache: z.optional(z.partial(CacheSchema)),
  agents: z.optional(z.partial(AgentsSchema)),
  tools: z.optional(z.partial(ToolsSchema)),
  /** MCP servers by name (as in Claude Code's .mcp.json); home and project files merge by name. */
  mcpServers: z.optional(z.record(nonEmptyString, McpServerSchema)),
  mcp: z.optional(z.partial(McpSchema)),
  /** WebFetch's limits; which domains it may fetch without asking is permissions.allowTools' "WebFetch(domain:docs.rs)". */
  web: z.optional(z.partial(WebSchema)),
  /** Checkpoints of the working tree for /rewind: { "enabled": true, "maxFiles": 100000, "maxStoreMB": 2048, "keepDays": 30 }. */
  checkpoints: z.optional(z.partial(CheckpointsSchema)),
  /** The provider's web search: { "enabled": true, "maxUses": 5, "allowedDomains": [...] } (see docs/tools.md). */
  webSearch: z.optional(z.partial(WebSearchSchema)),
  /** The OS sandbox Bash runs in (Claude Code's `sandbox` keys; see docs/sandbox.md). */
  sandbox: z.optional(SandboxFileSchema),
  /** Database path (also --db and AGENT_DB). */
  db: z.optional(nonEmptyString),
  /** Shell commands run on the agent's events (see src/hooks/hooks.ts); a project's run only once the person approves them. */
  hooks: z.optional(HooksSchema),
  /** Claude Code's status line: a command fed the session as JSON on stdin, its first line shown under the prompt (~/.agentrc only). */
  statusLine: z.optional(
    z.strictObject({ type: z.literal('command'), command: nonEmptyString, padding: z.optional(nonNegativeInt), timeoutMs: z.optional(positiveInt) }),
  ),
});
export type FileConfig = z.infer<typeof FileConfigSchema>;
