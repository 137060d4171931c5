// Real image files for the tests, made with sharp: a noisy gradient (so PNG cannot shrink it to
// nothing) of a given size and format.
import sharp from 'sharp';

/** An image of `width`×`height` in `format`, its pixels a pattern that compresses like a screenshot's. */
export async function makeImage(width: number, height: number, format: 'png' | 'jpeg' | 'gif' | 'webp' | 'tiff' = 'png'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7 + (i >> 12)) & 255;
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}
