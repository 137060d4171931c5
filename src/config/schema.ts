import { z } from 'zod';

// The .agentrc schema. Every key is optional in a file; defaults live here so that the
// rest of the program reads one fully populated Config. .agentrc.example documents each key.

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();

export const PermissionModeSchema = z.enum(['ask', 'acceptEdits', 'allow', 'deny']);
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

export const PermissionsSchema = z
  .object({
    /** ask: Bash, Edit and Write (and any tool not allowed below) ask first; acceptEdits: edits inside the working directory run, Bash asks; allow: everything runs; deny: refuse what needs approval. */
    mode: PermissionModeSchema.default('ask'),
    /** Tools that run without asking, e.g. ["Bash"] to trust every command. */
    allowTools: z.array(z.string().min(1)).default([]),
    /** Bash command prefixes that run without asking, e.g. ["npm test", "git status"]. */
    allowBash: z.array(z.string().min(1)).default([]),
    /** Directories (or files) outside the working directory that FileRead, Grep and Glob may read without asking; also --add-dir. */
    readPaths: z.array(z.string().min(1)).default([]),
  })
  .strict();
export type PermissionsConfig = z.infer<typeof PermissionsSchema>;

export const CompactionSchema = z
  .object({
    /** Automatic compaction (micro + auto). Manual and reactive compaction always work. */
    auto: z.boolean().default(true),
    /** Cap on the output reserve subtracted from the window: effective = window − min(maxOutput, this). */
    reserveTokens: nonNegativeInt.default(20_000),
    /** Auto compaction fires at effective − this. */
    autoBufferTokens: nonNegativeInt.default(13_000),
    /** The gauge turns to "warning" at effective − this. */
    warningBufferTokens: nonNegativeInt.default(20_000),
    /** Requests are blocked (compaction forced first) at effective − this. */
    blockingBufferTokens: nonNegativeInt.default(3_000),
    /** Micro compaction (clearing old tool outputs) starts at effective − this. */
    microBufferTokens: nonNegativeInt.default(20_000),
    /** Micro compaction keeps this many most recent compactable tool results intact. */
    microKeepRecent: nonNegativeInt.default(5),
    /** Auto/manual compaction keeps at most this many recent user turns verbatim... */
    tailTurns: nonNegativeInt.default(3),
    /** ...within this many tokens. */
    tailTokens: nonNegativeInt.default(20_000),
    /** Most tokens the summary may take (the summarizer's max output). */
    summaryMaxTokens: positiveInt.default(8_000),
    /** Most tokens of history sent to the summarizer in one request; more is chunked. 0 = derive from the summarizer's window. */
    summaryInputTokens: nonNegativeInt.default(0),
    /** Parallel summarizer requests when the head is chunked. */
    chunkConcurrency: positiveInt.default(2),
    /** Model that writes summaries; default the session's model. */
    model: z.string().min(1).optional(),
    /** Second pass that checks the draft summary for missing details. */
    verify: z.boolean().default(false),
    /** Turns after a successful auto compaction during which auto compaction does not fire again. */
    cooldownTurns: nonNegativeInt.default(2),
    /** Consecutive failed auto compactions that trip the circuit breaker. */
    maxFailures: positiveInt.default(3),
    /** Reactive compaction attempts per turn after "prompt is too long". */
    maxReactiveAttempts: nonNegativeInt.default(2),
    /** After compaction, re-read up to this many recently read files... */
    restoreFiles: nonNegativeInt.default(5),
    /** ...each capped at this many tokens... */
    restoreFileTokens: nonNegativeInt.default(5_000),
    /** ...all restored context (files, AGENTS.md, recent requests) within this many tokens. */
    restoreTokens: nonNegativeInt.default(20_000),
    /** Calls in a turn that stop at max_tokens and are told to continue, at most. */
    maxOutputRecoveries: nonNegativeInt.default(3),
  })
  .strict();
export type CompactionConfig = z.infer<typeof CompactionSchema>;

export const ModelEntrySchema = z
  .object({
    contextWindow: positiveInt,
    maxOutputTokens: positiveInt,
    provider: z.enum(['anthropic', 'openai']).optional(),
  })
  .strict();

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'must be an environment variable name, or a prefix ending in *');

export const BashSchema = z
  .object({
    /** Default timeout of a command, in milliseconds (the model may ask for another, up to maxTimeoutMs). */
    timeoutMs: positiveInt.default(120_000),
    maxTimeoutMs: positiveInt.default(600_000),
    /** Output beyond this many characters keeps its head and tail with a marker between. */
    maxOutputChars: positiveInt.default(30_000),
    /** Variables commands still see although they hold keys (e.g. ["OPENAI_API_KEY"] for a script that calls the API); "PREFIX_*" allowed. */
    passEnv: z.array(envName).default([]),
    /** More variables to hide from commands and redact (e.g. ["GITHUB_TOKEN", "AWS_*"]); provider key variables are hidden anyway. */
    stripEnv: z.array(envName).default([]),
  })
  .strict();

export const RecallSchema = z
  .object({
    /** Let the model's Recall tool search other sessions' archives too. */
    crossSession: z.boolean().default(false),
  })
  .strict();

export const RetrySchema = z
  .object({
    /** Attempts per model call (summarizer requests too) for rate limits, overload, 5xx and dropped streams. */
    maxAttempts: positiveInt.default(5),
    baseDelayMs: nonNegativeInt.default(1_000),
    maxDelayMs: nonNegativeInt.default(30_000),
  })
  .strict();

export const TimeoutsSchema = z
  .object({
    /** Connecting to the provider (TCP and TLS), per attempt. */
    connectMs: positiveInt.default(10_000),
    /** From sending a request until the response begins, per attempt. */
    firstByteMs: positiveInt.default(120_000),
    /** Longest silence between two chunks of a streamed reply. */
    idleMs: positiveInt.default(120_000),
    /** No new attempt of a model call starts after this long since its first one. */
    totalMs: positiveInt.default(300_000),
  })
  .strict();
export const CacheSchema = z
  .object({
    /** Prompt caching: Anthropic cache_control breakpoints, OpenAI's prompt_cache_key. Off: requests carry no caching hints. */
    enabled: z.boolean().default(true),
    /** How long an Anthropic cache entry lives without a hit: "5m" (writes cost 1.25× input) or "1h" (2×, for sessions that idle). */
    ttl: z.enum(['5m', '1h']).default('5m'),
    /** Send OpenAI's prompt_cache_key (the session id): "auto" only to api.openai.com; true also to a proxy of it; false never. */
    promptCacheKey: z.union([z.literal('auto'), z.boolean()]).default('auto'),
  })
  .strict();
export type CacheConfig = z.infer<typeof CacheSchema>;

export const FileConfigSchema = z
  .object({
    $schema: z.string().optional(),
    provider: z.enum(['anthropic', 'openai']).optional(),
    model: z.string().min(1).optional(),
    /** Base URL of the provider's API (for OpenAI-compatible servers, it ends in /v1). */
    baseURL: z.url().optional(),
    /** Name of the environment variable that holds the API key (keys never go in this file). */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name').optional(),
    /** Tokens a single reply may use; default the model's max output, capped at 32,000. */
    maxOutputTokens: positiveInt.optional(),
    /** Steps (model calls) per turn before the agent stops and reports. */
    maxSteps: positiveInt.optional(),
    models: z.record(z.string().min(1), ModelEntrySchema).optional(),
    permissions: PermissionsSchema.partial().strict().optional(),
    compaction: CompactionSchema.partial().strict().optional(),
    bash: BashSchema.partial().strict().optional(),
    recall: RecallSchema.partial().strict().optional(),
    retry: RetrySchema.partial().strict().optional(),
    timeouts: TimeoutsSchema.partial().strict().optional(),
    cache: CacheSchema.partial().strict().optional(),
    /** Database path (also --db and AGENT_DB). */
    db: z.string().min(1).optional(),
  })
  .strict();
export type FileConfig = z.infer<typeof FileConfigSchema>;
