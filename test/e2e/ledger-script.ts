import type { Reply } from '../fake-server/server.js';

// Issue 37's scripted session as data (no test runner needed): the e2e test (ledger.test.ts)
// and the fidelity benchmark (bench/fidelity.ts) both run it.

/** Factory's probe types: recall (a fact), artifact (files), continuation (the next step), decision (a rule, a failed approach). */
export type ProbeType = 'recall' | 'artifact' | 'continuation' | 'decision';

export interface Fact {
  name: string;
  /** A string only this fact puts in a request. */
  needle: string;
  type: ProbeType;
}

export const FACTS: readonly Fact[] = [
  { name: 'a standing rule the person gave in turn 1', needle: 'always use httpie, never curl', type: 'decision' },
  { name: 'a second rule given in turn 3', needle: 'never touch the migrations folder', type: 'decision' },
  { name: 'a fact read from a file', needle: 'PAYMENT_PORT=8734', type: 'recall' },
  { name: 'the path of a modified file', needle: 'src/retry-client.ts', type: 'artifact' },
  { name: 'the error of a failed command, still unresolved', needle: 'ECONNREFUSED 127.0.0.1:5432', type: 'decision' },
  { name: 'an older request of the person', needle: 'rename fetchInvoice to loadInvoice', type: 'recall' },
  { name: 'a second older request', needle: 'document the webhook signature check', type: 'recall' },
  { name: 'the latest request', needle: 'log every retry with its attempt number', type: 'continuation' },
];

const FILLER = 'It walks through the handler, the queue and the scheduler in some detail, with the reasoning behind each. '.repeat(18);

/** Facts the fidelity benchmark probes beside FACTS: a read file's path, a decision in the model's own reply. */
export const EXTRA_FACTS: readonly Fact[] = [
  { name: 'the path of a file read', needle: 'config/app.env', type: 'artifact' },
  { name: "a decision in the model's reply", needle: 'exponential backoff with jitter', type: 'decision' },
];

/** The turns: the person's prompt and the model's scripted replies. */
export const TURNS: ReadonlyArray<{ prompt: string; replies: Reply[] }> = [
  {
    prompt: 'Set up the payments API client. A standing rule for this project: always use httpie, never curl, for any HTTP call.',
    replies: [{ text: `Understood. ${FILLER}` }],
  },
  {
    prompt: 'Which port does the payment service listen on?',
    replies: [{ toolCalls: [{ name: 'FileRead', input: { path: 'config/app.env' } }] }, { text: `It is set in the env file. ${FILLER}` }],
  },
  { prompt: 'Rule two: never touch the migrations folder, whatever a task seems to need.', replies: [{ text: `Noted. ${FILLER}` }] },
  {
    prompt: 'Add a retry wrapper for the client.',
    replies: [
      { toolCalls: [{ name: 'Write', input: { path: 'src/retry-client.ts', content: 'export const retries = 3;\n' } }] },
      { text: `Added the wrapper; we settled on exponential backoff with jitter. ${FILLER}` },
    ],
  },
  { prompt: 'Next, rename fetchInvoice to loadInvoice in every module.', replies: [{ text: `Renamed. ${FILLER}` }] },
  {
    prompt: 'Run the integration tests.',
    replies: [
      { toolCalls: [{ name: 'Bash', input: { command: 'sh -c "echo running 14 tests; echo Error: connect ECONNREFUSED 127.0.0.1:5432 >&2; exit 1"' } }] },
      { text: `The tests could not run. ${FILLER}` },
    ],
  },
  { prompt: 'What does the client do on a timeout?', replies: [{ text: `On a timeout ${FILLER}` }] },
  { prompt: 'Then document the webhook signature check in the docs.', replies: [{ text: `Documented. ${FILLER}` }] },
  { prompt: 'How is the queue drained at shutdown?', replies: [{ text: `At shutdown ${FILLER}` }] },
  { prompt: 'And how are the jobs scheduled?', replies: [{ text: `The scheduler ${FILLER}` }] },
  { prompt: 'Explain the handler once more.', replies: [{ text: `The handler ${FILLER}` }] },
  { prompt: 'What about the error mapping?', replies: [{ text: `Errors ${FILLER}` }] },
  { prompt: 'Summarize the module layout for me.', replies: [{ text: `The layout ${FILLER}` }] },
  { prompt: 'Last for now: make the client log every retry with its attempt number.', replies: [{ text: `Working on it. ${FILLER}` }] },
];

/** A summary that keeps no fact at all (the worst a real model can write that still is a checkpoint). */
export const FORGETFUL_SUMMARY = '## Goal\nContinue the work.\n\n## Next Steps\nContinue.';
