import { compactionCases } from './compaction-cases.js';
import { useFakeServer } from './inprocess.js';
import { describeRegimeFree } from './regime.js';

// The compaction end-to-end cases with OpenAI (see compaction-cases.ts); a file of its own so
// that it runs beside the Anthropic ones.

const server = useFakeServer();

describeRegimeFree('compaction with openai', () => compactionCases(server, 'openai'));
