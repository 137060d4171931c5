import { isOpenAIHost } from './cache.js';

// Which of OpenAI's two APIs a request goes to, and which models reason (no SDK here: the
// factory decides before any adapter loads, and the fake server shares the model rule).

export type OpenAIApi = 'responses' | 'chat';

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** Sent unless .agentrc says otherwise: newer gpt-5 models default to no reasoning at all, which an agent's tool loop is the worse for. */
export const DEFAULT_REASONING_EFFORT: ReasoningEffort = 'medium';

/**
 * The API for an OpenAI-family server: `api` as configured wins; otherwise OpenAI's own API
 * (no base URL, or api.openai.com) gets Responses and any other server (Ollama, llama.cpp,
 * vLLM, LM Studio) Chat Completions, which every OpenAI-compatible server speaks.
 */
export function openaiApiFor(baseURL: string | undefined, api: OpenAIApi | undefined): OpenAIApi {
  if (api !== undefined) return api;
  return isOpenAIHost(baseURL) ? 'responses' : 'chat';
}

/**
 * OpenAI's reasoning models (o-series, the gpt-5 family but its -chat variants): they take
 * `reasoning`, return reasoning items, and accept `include: ['reasoning.encrypted_content']`;
 * other models refuse that include.
 */
export function isReasoningModel(model: string): boolean {
  const name = model.replace(/^openai\//, '');
  return /^(o\d|gpt-5)/.test(name) && !/-chat\b/.test(name);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Whether a tool's JSON Schema meets strict mode as it stands (every object closed with
 * additionalProperties: false and every property required, all the way down). Strict is sent
 * only then: making a schema strict would change which calls the tool accepts.
 */
export function allowsStrict(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(allowsStrict);
  if (!isObject(schema)) return true;
  if (schema.type === 'object' || isObject(schema.properties)) {
    if (schema.additionalProperties !== false) return false;
    const props = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (!props.every((p) => required.includes(p))) return false;
  }
  return Object.entries(schema).every(([k, v]) => k === 'required' || k === 'enum' || k === 'const' || allowsStrict(v));
}
