/** The provider families the program speaks to (OpenAI-compatible servers count as openai). */
export type ProviderName = 'anthropic' | 'openai';
