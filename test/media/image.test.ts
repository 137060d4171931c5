import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { base64ImageTokens, fitSize, imageTokens, MAX_IMAGE_BYTES, MAX_LONG_SIDE, MAX_PIXELS } from '../../src/media/limits.js';
import { describeImage, prepareImage } from '../../src/media/prepare.js';
import { createFileReadTool } from '../../src/tools/fileRead.js';
import type { AnyTool } from '../../src/tools/types.js';
import { makeImage } from '../support/images.js';
import { call, ctx, tree } from '../tools/helpers.js';

const fileRead = createFileReadTool() as AnyTool;

describe('image limits', () => {
  it("fits an image into Anthropic's box (long side 1,568, 1.2 megapixels) and counts w×h/750 of the fitted size", () => {
    expect(fitSize({ width: 800, height: 600 })).toEqual({ width: 800, height: 600 });
    const big = fitSize({ width: 6000, height: 4000 });
    expect(big.width * big.height).toBeLessThanOrEqual(MAX_PIXELS);
    expect(Math.max(big.width, big.height)).toBeLessThanOrEqual(MAX_LONG_SIDE);
    expect(big.width / big.height).toBeCloseTo(1.5, 2);
    expect(fitSize({ width: 4000, height: 100 })).toEqual({ width: 1568, height: 39 });
    expect(imageTokens({ width: 750, height: 2 })).toBe(2);
    expect(imageTokens({ width: 1092, height: 1092 })).toBe(1590); // Anthropic's documented figure for 1092×1092
    expect(imageTokens({ width: 6000, height: 4000 })).toBeLessThanOrEqual(1600);
    // mutation: counting the base64 length instead of the pixels fails this
    expect(imageTokens({ width: 200, height: 100 })).toBe(27);
  });

  it('reads the size of an image block from its header, and costs an unreadable one the most a fitted image costs', async () => {
    const png = await makeImage(300, 150);
    expect(base64ImageTokens(png.toString('base64'))).toBe(60);
    expect(base64ImageTokens(Buffer.from('not an image').toString('base64'))).toBe(1600);
  });
});

describe('prepareImage', () => {
  it('sends an image that fits as it is, and says its size', async () => {
    const png = await makeImage(320, 200);
    const r = await prepareImage(png, 'a.png');
    if (!r.ok) throw new Error(r.why);
    expect(r.image).toMatchObject({ mediaType: 'image/png', width: 320, height: 200, resized: false });
    expect(Buffer.from(r.image.data, 'base64').equals(png)).toBe(true);
    expect(describeImage('a.png', r.image)).toMatch(/^Image a\.png: PNG, 320×200, \d+ KB\.$/);
  });

  it('downscales a 6000×4000 PNG within the limits and names the original size', async () => {
    const png = await makeImage(6000, 4000);
    const r = await prepareImage(png, 'big.png');
    if (!r.ok) throw new Error(r.why);
    const sent = await sharp(Buffer.from(r.image.data, 'base64')).metadata();
    expect(sent.width! * sent.height!).toBeLessThanOrEqual(MAX_PIXELS);
    expect(Math.max(sent.width!, sent.height!)).toBeLessThanOrEqual(MAX_LONG_SIDE);
    expect(r.image.bytes).toBeLessThanOrEqual(MAX_IMAGE_BYTES);
    expect({ w: sent.width, h: sent.height }).toEqual({ w: r.image.width, h: r.image.height });
    expect(describeImage('big.png', r.image)).toMatch(/^Image big\.png: PNG, 6000×4000, .*; sent downscaled to \d+×\d+ \((PNG|JPEG), .*\) to fit/);
  });

  it("turns a large GIF's first frame into PNG, keeps JPEG and WebP as they are", async () => {
    for (const [format, sent] of [
      ['gif', 'image/png'],
      ['jpeg', 'image/jpeg'],
      ['webp', 'image/webp'],
    ] as const) {
      const r = await prepareImage(await makeImage(1600, 200, format), `x.${format}`);
      if (!r.ok) throw new Error(r.why);
      expect([format, r.image.mediaType, r.image.resized]).toEqual([format, sent, true]);
    }
  });

  it('refuses a truncated image, and a format the models do not read, with what it is', async () => {
    const png = await makeImage(400, 400);
    const cut = await prepareImage(png.subarray(0, 200), 'cut.png', 'a PNG image');
    expect(cut).toMatchObject({ ok: false });
    if (!cut.ok) expect(cut.why).toMatch(/^cut\.png looks like a PNG image but cannot be decoded \(.+\)$/);
    const tiff = await prepareImage(await makeImage(10, 10, 'tiff'), 'a.tiff');
    expect(tiff).toEqual({ ok: false, why: 'a.tiff is a tiff image; the models read PNG, JPEG, GIF and WebP only' });
  });
});

describe('FileRead of an image', () => {
  it('returns the image for the model with a line describing it', async () => {
    const root = tree({});
    writeFileSync(join(root, 'shot.png'), await makeImage(64, 48));
    const out = await call(fileRead, { path: 'shot.png' }, ctx(root));
    expect(out.isError).toBe(false);
    expect(out.content).toMatch(/^Image shot\.png: PNG, 64×48, 1 KB\.$/);
    expect(out.images).toHaveLength(1);
    expect(out.images![0]!.mediaType).toBe('image/png');
    // mutation: returning the binary refusal for images fails this
    expect((await sharp(Buffer.from(out.images![0]!.data, 'base64')).metadata()).width).toBe(64);
  });

  it('names a corrupt image file', async () => {
    const root = tree({});
    writeFileSync(join(root, 'bad.jpg'), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 7)]));
    const out = await call(fileRead, { path: 'bad.jpg' }, ctx(root));
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^bad\.jpg looks like a JPEG image but cannot be decoded/);
  });
});
