import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Block, ImageBlock } from '../../src/llm/messages.js';
import { MAX_LONG_SIDE, MAX_PIXELS } from '../../src/media/limits.js';
import { makeImage } from '../support/images.js';
import { runAgent, useFakeServer, workspace, type ProviderKind } from './harness.js';
import { describeFor } from './regime.js';

// Images end to end: the built CLI against the fake provider, which decodes what it is sent.
// `read shot.png` (the model's FileRead) and `@shot.png` (the person's mention) reach Anthropic
// as image blocks and OpenAI (Responses and Chat Completions) as image inputs; a 6000×4000 PNG
// arrives downscaled within the limits, with its original size said.

const server = useFakeServer();
let shot: Buffer;
let big: Buffer;
beforeAll(async () => {
  shot = await makeImage(120, 80);
  big = await makeImage(6000, 4000);
});

/** Every image of request n (1-based), in a tool result's or a message's blocks. */
const imagesIn = (n: number): ImageBlock[] =>
  (server.requests[n - 1]?.view?.messages ?? []).flatMap((m) =>
    m.blocks.flatMap((b: Block) => (b.type === 'image' ? [b] : b.type === 'tool_result' ? (b.images ?? []) : [])),
  );

const setups: Array<{ name: string; provider: ProviderKind; rc: Record<string, unknown> }> = [
  { name: 'Anthropic', provider: 'anthropic', rc: {} },
  { name: 'OpenAI Responses', provider: 'openai', rc: { api: 'responses' } },
  { name: 'OpenAI Chat Completions', provider: 'openai', rc: {} },
];

for (const { name, provider, rc } of setups) {
  describeFor(provider)(`images ('${name}')`, () => {
    it('read shot.png sends the image to the model', async () => {
      const ws = workspace(rc);
      writeFileSync(join(ws.dir, 'shot.png'), shot);
      server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'shot.png' } }] }, { text: 'a chart' });
      const r = await runAgent(['-p', 'read shot.png'], { ws, server, provider });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('a chart');
      const sent = imagesIn(2);
      // mutation: FileRead refusing images as binary (the old behaviour) leaves no image here
      expect(sent).toHaveLength(1);
      expect(sent[0]!.mediaType).toBe('image/png');
      expect(Buffer.from(sent[0]!.data, 'base64').equals(shot)).toBe(true);
      const texts = JSON.stringify(server.requests[1]!.view!.messages);
      expect(texts).toContain('Image shot.png: PNG, 120×80');
    });

    it('@shot.png attaches the image to the message', async () => {
      const ws = workspace(rc);
      writeFileSync(join(ws.dir, 'shot.png'), shot);
      server.enqueue({ text: 'seen' });
      const r = await runAgent(['-p', 'what is in @shot.png'], { ws, server, provider });
      expect(r.code, r.stderr).toBe(0);
      const sent = imagesIn(1);
      // mutation: attaching only the FileRead text of an image file leaves no image here
      expect(sent).toHaveLength(1);
      expect(Buffer.from(sent[0]!.data, 'base64').equals(shot)).toBe(true);
    });
  });
}

describe('a large image', () => {
  it('a 6000×4000 PNG is sent downscaled within the limits, its original size said', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'big.png'), big);
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'big.png' } }] }, { text: 'ok' });
    const r = await runAgent(['-p', 'read big.png'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const [img] = imagesIn(2);
    const meta = await sharp(Buffer.from(img!.data, 'base64')).metadata();
    // mutation: sending the file as it is (6000×4000) fails both
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(MAX_LONG_SIDE);
    expect(meta.width! * meta.height!).toBeLessThanOrEqual(MAX_PIXELS);
    expect(JSON.stringify(server.requests[1]!.view!.messages.at(-1)!.blocks)).toMatch(/PNG, 6000×4000, .*sent downscaled to \d+×\d+/);
  });

  it('a corrupt PNG comes back to the model as a clear error and the turn goes on', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'bad.png'), shot.subarray(0, 60));
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'bad.png' } }] }, { text: 'it is broken' });
    const r = await runAgent(['-p', 'read bad.png'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const result = server.requests[1]!.view!.messages.at(-1)!.blocks[0];
    expect(result).toMatchObject({ type: 'tool_result', isError: true });
    expect((result as { content: string }).content).toMatch(/bad\.png looks like a PNG image but cannot be decoded/);
  });

  it('a prompt whose @image cannot be read is not sent: the reason, and nothing reaches the provider', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'bad.png'), shot.subarray(0, 60));
    const before = server.requests.length;
    const r = await runAgent(['-p', 'what is wrong in @bad.png ?'], { ws, server });
    // mutation: the image dropped with a warning, the prompt sent anyway (the model answers blind)
    expect(server.requests).toHaveLength(before);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/@bad\.png: the image could not be attached: bad\.png looks like a PNG image but cannot be decoded/);
    expect(r.stderr).toContain('Your message was not sent');
  });
});

describe('a model that reads no images', () => {
  // a local OpenAI-compatible server with a text-only model: .agentrc says so (models.<name>.images: false)
  it('gets a note naming the image instead of the image, on FileRead and @mentions', async () => {
    const model = 'local-text';
    const ws = workspace({ models: { [model]: { contextWindow: 32_000, maxOutputTokens: 2_048, provider: 'openai', images: false } } });
    writeFileSync(join(ws.dir, 'shot.png'), shot);
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'shot.png' } }] }, { text: 'I cannot see it' });
    const r = await runAgent(['-p', 'compare @shot.png with what FileRead shows', '--model', model], { ws, server, provider: 'openai' });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]!.path).toContain('/chat/completions');
    // mutation: sending images whatever the model's entry says fails these
    expect(imagesIn(1)).toEqual([]);
    expect(imagesIn(2)).toEqual([]);
    const sent = JSON.stringify(server.requests[1]!.view!.messages);
    expect(sent.match(/\[image \(PNG 120×80\) not sent: local-text takes no images \(models\.local-text\.images is false in \.agentrc\)\]/g)).toHaveLength(2);
    // the tool result still says what the file is
    expect(sent).toContain('Image shot.png: PNG, 120×80');
  });
});
