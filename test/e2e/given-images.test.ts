import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ImageBlock } from '../../src/llm/messages.js';
import { MAX_LONG_SIDE } from '../../src/media/limits.js';
import { makeImage } from '../support/images.js';
import { acpClient } from './acpClient.js';
import { jsonLines, runAgent, useFakeServer, workspace } from './inprocess.js';

// Images handed over with a prompt (issue 49): from --input-format stream-json and from an ACP
// editor they reached the provider unchecked. Now they are checked as FileRead's and @'s are:
// corrupt data refuses the prompt with the reason (nothing sent), a JPEG labelled PNG goes as
// JPEG, one larger than the limits goes downscaled.

const server = useFakeServer();
const { withAgent } = acpClient(server);
let jpeg: Buffer;
let wide: Buffer;
// a PNG signature, then nothing an image is made of
const corrupt = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('not really an image at all '.repeat(20))]);
beforeAll(async () => {
  jpeg = await makeImage(120, 80, 'jpeg');
  wide = await makeImage(4000, 300);
});

/** The images of the last user message of each request. */
const sentImages = (): ImageBlock[][] => server.requests.map((q) => (q.view?.messages.at(-1)?.blocks ?? []).flatMap((b) => (b.type === 'image' ? [b] : [])));

const line = (text: string, image: Buffer, mediaType: string): string =>
  JSON.stringify({
    type: 'user',
    message: {
      role: 'user',
      content: [
        { type: 'text', text },
        { type: 'image', source: { type: 'base64', media_type: mediaType, data: image.toString('base64') } },
      ],
    },
  });

describe('images handed over with a prompt', () => {
  it('--input-format stream-json: corrupt data is refused with the reason, a JPEG labelled PNG goes as JPEG, a wide one downscaled', async () => {
    const ws = workspace();
    server.enqueue({ text: 'Saw the photo.' }, { text: 'Saw the wide one.' });
    const stdin = [line('look at this', corrupt, 'image/png'), line('and this', jpeg, 'image/png'), line('and this wide one', wide, 'image/png')].join('\n');
    const r = await runAgent(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], { ws, server, stdin: `${stdin}\n` });
    const results = jsonLines(r.stdout).filter((m) => m.type === 'result');
    expect(results).toHaveLength(3);
    expect(results[0]).toMatchObject({ is_error: true });
    expect(JSON.stringify(results[0])).toContain('the image sent with the prompt looks like an image (labelled image/png) but cannot be decoded');
    expect(results.slice(1).map((m) => m.result)).toEqual(['Saw the photo.', 'Saw the wide one.']);
    // the corrupt one never reached the provider
    expect(server.requests).toHaveLength(2);
    const [first, second] = sentImages();
    expect(first!.map((i) => i.mediaType)).toEqual(['image/jpeg']);
    const meta = await sharp(Buffer.from(second![0]!.data, 'base64')).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBeLessThanOrEqual(MAX_LONG_SIDE);
    expect(r.stderr).toBe('');
  });

  it('ACP: a corrupt image is refused with the reason told to the editor, nothing sent; a JPEG labelled PNG goes as JPEG', async () => {
    const ws = workspace();
    await withAgent(
      ws,
      () => 'allow_once',
      async (ctx, h) => {
        await ctx.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
        const session = await ctx.buildSession(ws.dir).start();
        await session.prompt([
          { type: 'text', text: 'look at this' },
          { type: 'image', mimeType: 'image/png', data: corrupt.toString('base64') },
        ]);
        const said = JSON.stringify(h.updates.map((n) => n.update));
        expect(said).toContain('cannot be decoded');
        expect(server.requests).toHaveLength(0);
        server.enqueue({ text: 'A photo.' });
        expect(
          (
            await session.prompt([
              { type: 'text', text: 'and this' },
              { type: 'image', mimeType: 'image/png', data: jpeg.toString('base64') },
            ])
          ).stopReason,
        ).toBe('end_turn');
        expect(sentImages()[0]!.map((i) => i.mediaType)).toEqual(['image/jpeg']);
      },
    );
  });
});
// Mutation: Session.prompt passing scope.images on unchecked (givenImages skipped) fails both: the corrupt image
// reaches the provider (3 requests; 1 in ACP) and the JPEG goes as image/png.
