// Directives: a prompt that scripts the fake model, so end-to-end tests drive whole trees of
// sub-agents. Lines of the latest prompt that start with "@" say what the model does:
//   @task {"description": "...", "prompt": "...", "agent": "..."}   a Task call (one per line: a reply with several runs them in parallel)
//   @read path · @grep pattern · @glob pattern · @bash command · @recall query   a tool call
//   @call Name {"input": "as JSON"}   a call of any tool with any input (Bash run_in_background, Recall id, KillShell)
//   @then                        ends a step: the calls after it come in the next reply, once the results are back
//   @report text                 the final reply's text (default: "Done.")
//   @fail message                the request fails with a (not retried) invalid_request error
//   @slow ms                     every reply streams slowly (small chunks, ms between frames), for live views
// Directive lines may come in a file attached to the prompt (@path in the TUI): FileRead's
// line numbers in front of them are ignored.
// A Task call's prompt carries the child's own directives (as a JSON string, so its lines stay
// the child's). The reply is chosen by counting the assistant tool-call replies since the prompt.
// A request whose last message is a text without directives (a summary request) is not answered here.
import type { Block } from '../../src/llm/messages.js';
import type { Reply, RequestView, ToolCallReply } from './types.js';

const TOOL: Record<string, (arg: string) => ToolCallReply> = {
  '@read': (a) => ({ name: 'FileRead', input: { path: a } }),
  '@grep': (a) => ({ name: 'Grep', input: { pattern: a } }),
  '@glob': (a) => ({ name: 'Glob', input: { pattern: a } }),
  '@bash': (a) => ({ name: 'Bash', input: { command: a } }),
  '@recall': (a) => ({ name: 'Recall', input: { query: a } }),
  '@task': (a) => ({ name: 'Task', input: JSON.parse(a) as Record<string, unknown> }),
  '@call': (a) => {
    const space = a.indexOf(' ');
    return { name: a.slice(0, space), input: JSON.parse(a.slice(space + 1)) as Record<string, unknown> };
  },
};

const directiveLines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.replace(/^\s*\d+\t/, '').trim())
    .filter((l) => /^@(task|read|grep|glob|bash|recall|call|then|report|fail|slow)\b/.test(l));
const textOf = (blocks: Block[]): string => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

/** The reply the directives of the conversation's prompt call for, or undefined when it has none. */
export function directiveReply(view: RequestView): Reply | undefined {
  const msgs = view.messages;
  const last = msgs[msgs.length - 1];
  if (last?.role !== 'user') return undefined;
  const lastIsResults = last.blocks.some((b) => b.type === 'tool_result');
  if (!lastIsResults && directiveLines(textOf(last.blocks)).length === 0) return undefined;
  let at = msgs.length - 1;
  while (at >= 0 && !(msgs[at]!.role === 'user' && directiveLines(textOf(msgs[at]!.blocks)).length > 0)) at--;
  if (at < 0) return undefined;
  const lines = directiveLines(textOf(msgs[at]!.blocks));
  const fail = lines.find((l) => l.startsWith('@fail'));
  if (fail) return { type: 'error', error: 'invalid_request', message: fail.slice(5).trim() || 'the fake model was told to fail' };
  const steps: ToolCallReply[][] = [[]];
  let report = 'Done.';
  let slow: { chunkSize: number; jsonChunkSize: number; frameDelayMs: number } | undefined;
  for (const l of lines) {
    const [word = '', ...rest] = l.split(' ');
    const arg = rest.join(' ').trim();
    if (word === '@then') steps.push([]);
    else if (word === '@report') report = arg;
    else if (word === '@slow') slow = { chunkSize: 3, jsonChunkSize: 4, frameDelayMs: Number(arg) || 100 };
    else if (TOOL[word]) steps[steps.length - 1]!.push(TOOL[word](arg));
  }
  const done = msgs.slice(at + 1).filter((m) => m.role === 'assistant' && m.blocks.some((b) => b.type === 'tool_use')).length;
  const calls = steps.filter((s) => s.length > 0)[done];
  return { ...(calls ? { toolCalls: calls } : { text: report }), ...slow };
}
