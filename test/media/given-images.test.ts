import { describe, expect, it } from 'vitest';
import { prepareGivenImages } from '../../src/media/prepare.js';
import { makeImage } from '../support/images.js';

// Images a front end hands over with a prompt (stream-json input, an ACP editor) are checked as a
// file's are before they reach the provider: refused with the reason, sent as what they are.

const given = (data: Buffer | string, mediaType = 'image/png') => ({ mediaType, data: typeof data === 'string' ? data : data.toString('base64') });

describe('images sent with a prompt', () => {
  it('a good one goes as it is, with no note', async () => {
    const png = await makeImage(40, 30);
    const r = await prepareGivenImages([given(png)]);
    expect(r).toEqual({ ok: true, images: [{ mediaType: 'image/png', data: png.toString('base64') }], notes: [] });
  });

  it('a JPEG labelled PNG is sent as JPEG, and the note says so', async () => {
    const jpeg = await makeImage(40, 30, 'jpeg');
    const r = await prepareGivenImages([given(jpeg, 'image/png')]);
    if (!r.ok) throw new Error(r.why);
    expect(r.images.map((i) => i.mediaType)).toEqual(['image/jpeg']);
    expect(r.notes).toEqual(['the image sent with the prompt was labelled image/png but is image/jpeg; it was sent as what it is.']);
  });

  it('corrupt data or text that is not base64 is refused with the reason, naming which image', async () => {
    const png = await makeImage(40, 30);
    const corrupt = await prepareGivenImages([given(png), given(Buffer.from('not an image at all, only text'))]);
    expect(corrupt.ok).toBe(false);
    if (corrupt.ok) return;
    expect(corrupt.why).toMatch(/^image 2 sent with the prompt/);
    const text = await prepareGivenImages([given('%%% not base64 %%%')]);
    expect(text).toEqual({ ok: false, why: 'the image sent with the prompt is not base64 data' });
  });
});
