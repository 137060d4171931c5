import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImage } from '../support/images.js';
import { startFakeServer, type FakeServer } from './server.js';

// The fake takes image blocks as the services do and refuses the malformed ones with their
// wording (test/fake-server/images.ts); it counts an image by its pixels, as the gauge does.

let server: FakeServer;
let anthropic: Anthropic;
let openai: OpenAI;
let png = '';

beforeAll(async () => {
  server = await startFakeServer();
  anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'sk-test', baseURL: server.openaiBaseURL, maxRetries: 0 });
  png = (await makeImage(300, 150)).toString('base64');
});
afterAll(() => server.close());

const anthropicWith = (media_type: 'image/png' | 'image/jpeg', data: string) =>
  anthropic.messages.create({
    model: 'claude-sonnet-5-5',
    max_tokens: 100,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', source: { type: 'base64', media_type, data } },
        ],
      },
    ],
  });

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof Anthropic.APIError || e instanceof OpenAI.APIError) return `${e.status} ${e.message}`;
    throw e;
  }
  throw new Error('expected an error');
}

describe('images at the fake provider', () => {
  it("accepts a valid image block and counts it by Anthropic's w×h/750", async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    await anthropicWith('image/png', png);
    const withImage = server.requests.at(-1)!.view!.promptTokens;
    await anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }] }] });
    // mutation: a fixed cost per image (the fake's old 1,000) fails this
    expect(withImage - server.requests.at(-1)!.view!.promptTokens).toBe(60);
  });

  it('refuses bad base64, bytes of another type than declared, and an image that is no image, as Anthropic words it', async () => {
    expect(await errorOf(anthropicWith('image/png', 'not base64!'))).toMatch(
      /^400 .*messages\.0\.content\.1\.image\.source\.base64\.data: The image data is not valid base64/,
    );
    expect(await errorOf(anthropicWith('image/jpeg', png))).toMatch(
      /specified using the image\/jpeg media type, but the image appears to be a image\/png image/,
    );
    expect(await errorOf(anthropicWith('image/png', Buffer.from('hello world!').toString('base64')))).toMatch(/Could not process image/);
  });

  it('refuses an image over 8,000 pixels on a side and over 5 MB, as Anthropic does', async () => {
    const wide = (await makeImage(8100, 10)).toString('base64');
    expect(await errorOf(anthropicWith('image/png', wide))).toMatch(/exceed max allowed size: 8000 pixels/);
    const huge = Buffer.concat([Buffer.from(png, 'base64'), Buffer.alloc(6 * 1024 * 1024)]).toString('base64');
    expect(await errorOf(anthropicWith('image/png', huge))).toMatch(/image exceeds 5 MB maximum: \d+ bytes > 5242880 bytes/);
  });

  it('OpenAI: takes a data: URL image in Chat Completions and Responses, refuses one that is no image', async () => {
    server.enqueue({ text: 'a' }, { text: 'b' });
    await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } }] }],
    });
    await openai.responses.create({
      model: 'gpt-4o',
      input: [{ role: 'user', content: [{ type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${png}` }] }],
    });
    const bad = `data:image/png;base64,${Buffer.from('hello world!').toString('base64')}`;
    expect(
      await errorOf(
        openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: bad } }] }] }),
      ),
    ).toMatch(/^400 (400 )?You uploaded an unsupported image/);
    expect(
      await errorOf(
        openai.responses.create({ model: 'gpt-4o', input: [{ role: 'user', content: [{ type: 'input_image', detail: 'auto', image_url: bad }] }] }),
      ),
    ).toMatch(/^400 (400 )?You uploaded an unsupported image/);
  });
});
