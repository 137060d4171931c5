import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { rulesResponder, type Script } from './main.js';
import type { RecordedRequest, RequestView } from './types.js';
import { bundled } from '../bundled.js';
import { tempDir } from '../tempDirs.js';

const view = (over: Partial<RequestView>): RecordedRequest & { view: RequestView } => ({
  seq: 1,
  provider: 'anthropic',
  method: 'POST',
  path: '/v1/messages',
  headers: {},
  body: {},
  view: { model: 'm', system: '', messages: [], toolNames: [], stream: true, includeUsage: false, promptTokens: 0, ...over },
});

describe('script rules', () => {
  it('match on system, last user text, last tool result and provider; honour times; cycle arrays', () => {
    const respond = rulesResponder([
      { when: { systemIncludes: 'summarize' }, reply: { text: 'SUMMARY' } },
      { when: { lastToolResultIncludes: 'ENOENT' }, reply: { text: 'file missing' }, times: 1 },
      { when: { provider: 'openai' }, reply: [{ text: 'one' }, { text: 'two' }] },
    ]);
    expect(respond(view({ system: 'Please summarize this' }))).toEqual({ text: 'SUMMARY' });
    const withError = view({ messages: [{ role: 'user', blocks: [{ type: 'tool_result', toolUseId: 't', content: 'ENOENT: no such file', isError: true }] }] });
    expect(respond(withError)).toEqual({ text: 'file missing' });
    expect(respond(withError)).toBeUndefined();
    const oa = { ...view({}), provider: 'openai' as const };
    expect([respond(oa), respond(oa), respond(oa)]).toEqual([{ text: 'one' }, { text: 'two' }, { text: 'one' }]);
  });
});

describe('standalone server', () => {
  it('prints its URL, serves the script, and stops on SIGTERM', async () => {
    const dir = tempDir('fake-server-');
    const script: Script = {
      options: { contextWindow: 30 },
      replies: [{ text: 'from the script' }],
      rules: [{ when: { lastUserIncludes: 'ping' }, reply: { text: 'pong' } }],
    };
    const file = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify(script));
    // the server bundled (test/bundled.ts): plain node starts it without tsx compiling it
    const main = await bundled(resolve('test/fake-server/main.ts'));
    const child = spawn(process.execPath, [main, '--port', '0', '--script', file, '--quiet'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const rl = createInterface({ input: child.stdout! });
        rl.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
      const text = async (content: string) =>
        (await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] })).choices[0]!.message.content;
      expect(await text('ping')).toBe('pong');
      expect(await text('hello')).toBe('from the script');
      const err = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'word '.repeat(100) }] }).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe('context_length_exceeded');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    expect(child.exitCode === 0 || child.signalCode === 'SIGTERM').toBe(true);
  });
});
