import { describe } from 'vitest';
import { compactionCases } from './compaction-cases.js';
import { useFakeServer } from './harness.js';

// The compaction end-to-end cases with OpenAI (see compaction-cases.ts); a file of its own so
// that it runs beside the Anthropic ones.

const server = useFakeServer();

describe('compaction with openai', () => compactionCases(server, 'openai'));
