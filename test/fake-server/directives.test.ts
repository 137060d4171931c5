import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/llm/messages.js';
import { directiveReply } from './directives.js';
import type { RequestView } from './types.js';

// The fake model's directives: what each request of a scripted conversation gets.

type Msg = RequestView['messages'][number];
const view = (...messages: Msg[]): RequestView => ({ model: 'm', system: 's', messages, toolNames: [], stream: true, includeUsage: false, promptTokens: 1 });
const user = (text: string): Msg => ({ role: 'user', blocks: [{ type: 'text', text }] });
const calls = (...names: string[]): Msg => ({ role: 'assistant', blocks: names.map((name, i): Block => ({ type: 'tool_use', id: `t${i}`, name, input: {} })) });
const results = (n: number): Msg => ({
  role: 'user',
  blocks: Array.from({ length: n }, (_, i): Block => ({ type: 'tool_result', toolUseId: `t${i}`, content: 'ok', isError: false })),
});

describe('directives', () => {
  const prompt = user('Do it.\n@task {"description":"d","prompt":"@read x\\n@report inner"}\n@read a.txt\n@then\n@bash echo hi\n@report all done');
  it('answer step by step: the calls of each step once the previous results are back, then the report', () => {
    expect(directiveReply(view(prompt))).toEqual({
      toolCalls: [
        { name: 'Task', input: { description: 'd', prompt: '@read x\n@report inner' } },
        { name: 'FileRead', input: { path: 'a.txt' } },
      ],
    });
    expect(directiveReply(view(prompt, calls('Task', 'FileRead'), results(2)))).toEqual({ toolCalls: [{ name: 'Bash', input: { command: 'echo hi' } }] });
    expect(directiveReply(view(prompt, calls('Task', 'FileRead'), results(2), calls('Bash'), results(1)))).toEqual({ text: 'all done' });
  });

  it('leave a request without directives to the script (a summary request, an ordinary prompt), read them in an attached file, fail and slow down on request', () => {
    expect(
      directiveReply(view(prompt, calls('Task'), results(1), { role: 'assistant', blocks: [{ type: 'text', text: 'x' }] }, user('Summarize the conversation'))),
    ).toBeUndefined();
    expect(directiveReply(view(user('hello')))).toBeUndefined();
    expect(directiveReply(view(user('[Attached by the user with @plan.txt]\n     1\t@report from the file')))).toEqual({ text: 'from the file' });
    expect(directiveReply(view(user('@fail broke')))).toEqual({ type: 'error', error: 'invalid_request', message: 'broke' });
    expect(directiveReply(view(user('@slow 50\n@report s')))).toEqual({ text: 's', chunkSize: 3, jsonChunkSize: 4, frameDelayMs: 50 });
  });
});
