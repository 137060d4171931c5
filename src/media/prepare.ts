// An image file made ready for the model: checked that it decodes, downscaled to the providers'
// limits (limits.ts) when it is larger, and described in one line that names its original size.
// sharp (libvips, a prebuilt binary from npm) does the decoding and scaling: ~165 ms for a
// 6000×4000 PNG here, where pure-JS jimp took 2.3 s and twice the memory. It is imported on
// first use only (it costs start-up time a session without images never pays).
import { fits, fitSize, IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, type Size } from './limits.js';

export interface PreparedImage {
  mediaType: string;
  /** base64 */
  data: string;
  width: number;
  height: number;
  bytes: number;
  original: { mediaType: string; width: number; height: number; bytes: number };
  /** True when the image was re-encoded to fit (smaller, or another format). */
  resized: boolean;
}

export type PrepareResult = { ok: true; image: PreparedImage } | { ok: false; why: string };

type Sharp = typeof import('sharp').default;
let sharpModule: Promise<Sharp> | undefined;
const loadSharp = (): Promise<Sharp> => (sharpModule ??= import('sharp').then((m) => m.default));

const FORMAT_TYPES: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };
/** JPEG qualities tried in turn when an image is still over the byte limit at its fitted size. */
const JPEG_QUALITIES = [85, 70, 50];

const kb = (n: number): string => (n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/**
 * Decodes `bytes` (named `label` in errors, which say it was taken for `seenAs`), and returns what to send: the file as it is when it
 * fits the limits, else a downscaled copy (PNG stays PNG unless that is still too large; GIF's
 * first frame becomes PNG; JPEG and WebP keep their format), as JPEG at falling quality when
 * that is what it takes to get under the byte limit.
 */
export async function prepareImage(bytes: Buffer, label: string, seenAs = 'an image'): Promise<PrepareResult> {
  const sharp = await loadSharp();
  let meta: { format?: string | undefined; width?: number | undefined; height?: number | undefined; pages?: number | undefined };
  try {
    meta = await sharp(bytes).metadata();
  } catch (e) {
    return { ok: false, why: `${label} looks like ${seenAs} but cannot be decoded (${reason(e)})` };
  }
  const mediaType = meta.format ? FORMAT_TYPES[meta.format] : undefined;
  if (!mediaType || !IMAGE_MEDIA_TYPES.has(mediaType))
    return { ok: false, why: `${label} is a ${meta.format ?? 'unknown'} image; the models read PNG, JPEG, GIF and WebP only` };
  if (!meta.width || !meta.height) return { ok: false, why: `${label} has no width or height in its header` };
  const original = { mediaType, width: meta.width, height: meta.height, bytes: bytes.length };
  const size: Size = { width: meta.width, height: meta.height };
  try {
    // decoding the whole image catches a truncated or corrupt file that a header alone would pass
    if (fits(size) && bytes.length <= MAX_IMAGE_BYTES) {
      await sharp(bytes, { failOn: 'error' }).raw().toBuffer();
      return { ok: true, image: { mediaType, data: bytes.toString('base64'), ...size, bytes: bytes.length, original, resized: false } };
    }
    const target = fitSize(size);
    const resize = (): ReturnType<Sharp> => sharp(bytes, { failOn: 'error' }).rotate().resize(target.width, target.height, { fit: 'fill' });
    let out: Buffer;
    let outType: string;
    if (mediaType === 'image/jpeg') [out, outType] = [await resize().jpeg({ quality: 85 }).toBuffer(), 'image/jpeg'];
    else if (mediaType === 'image/webp') [out, outType] = [await resize().webp({ quality: 85 }).toBuffer(), 'image/webp'];
    else [out, outType] = [await resize().png({ compressionLevel: 9 }).toBuffer(), 'image/png'];
    for (const quality of JPEG_QUALITIES) {
      if (out.length <= MAX_IMAGE_BYTES) break;
      [out, outType] = [await resize().flatten({ background: '#ffffff' }).jpeg({ quality }).toBuffer(), 'image/jpeg'];
    }
    if (out.length > MAX_IMAGE_BYTES) return { ok: false, why: `${label} is still ${kb(out.length)} after downscaling; the limit is ${kb(MAX_IMAGE_BYTES)}` };
    return { ok: true, image: { mediaType: outType, data: out.toString('base64'), ...target, bytes: out.length, original, resized: true } };
  } catch (e) {
    return { ok: false, why: `${label} looks like a ${mediaType.slice(6).toUpperCase()} image but cannot be decoded (${reason(e)})` };
  }
}

/** sharp's messages, on one line, without its "Input buffer" preamble. */
const reason = (e: unknown): string =>
  (e instanceof Error ? e.message : String(e))
    .replace(/^Input buffer (has |contains )?/i, '')
    .split('\n')[0]!
    .trim();

/** The line the model and the person read about an image: its size, and what was sent when it was downscaled. */
export function describeImage(label: string, img: PreparedImage): string {
  const o = img.original;
  const name = o.mediaType.slice(6).toUpperCase();
  const head = `Image ${label}: ${name}, ${o.width}×${o.height}, ${kb(o.bytes)}`;
  if (!img.resized) return `${head}.`;
  return `${head}; sent downscaled to ${img.width}×${img.height} (${img.mediaType.slice(6).toUpperCase()}, ${kb(img.bytes)}) to fit the model's image limits.`;
}

/**
 * Images a tool returned (an MCP server's, base64), made ready as a file's are: each downscaled
 * when larger than the limits, a corrupt one left out. `notes` says what was changed or left out.
 */
export async function prepareToolImages(
  images: readonly { mediaType: string; data: string }[],
  label: string,
): Promise<{ images: { mediaType: string; data: string }[]; notes: string[] }> {
  const out: { mediaType: string; data: string }[] = [];
  const notes: string[] = [];
  for (const [i, img] of images.entries()) {
    const name = images.length === 1 ? `the image of ${label}` : `image ${i + 1} of ${label}`;
    const r = await prepareImage(Buffer.from(img.data, 'base64'), name, `an ${img.mediaType} image`);
    if (!r.ok) notes.push(`[${r.why}: not shown to the model]`);
    else {
      out.push({ mediaType: r.image.mediaType, data: r.image.data });
      if (r.image.resized) notes.push(`[${describeImage(name, r.image).replace(/^Image /, '')}]`);
    }
  }
  return { images: out, notes };
}

/**
 * Images a front end handed over with a prompt (print mode's --input-format stream-json, an ACP
 * editor's), checked as a file's are: each decoded (corrupt data is refused with the reason),
 * sent as what it is whatever its label said (a JPEG labelled PNG goes as JPEG), downscaled when
 * larger than the limits. `notes` says what was changed; the first refusal ends the check.
 */
export async function prepareGivenImages(
  images: readonly { mediaType: string; data: string }[],
): Promise<{ ok: true; images: { mediaType: string; data: string }[]; notes: string[] } | { ok: false; why: string }> {
  const out: { mediaType: string; data: string }[] = [];
  const notes: string[] = [];
  for (const [i, img] of images.entries()) {
    const name = images.length === 1 ? 'the image sent with the prompt' : `image ${i + 1} sent with the prompt`;
    if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(img.data)) return { ok: false, why: `${name} is not base64 data` };
    const r = await prepareImage(Buffer.from(img.data, 'base64'), name, `an image (labelled ${img.mediaType})`);
    if (!r.ok) return { ok: false, why: r.why };
    out.push({ mediaType: r.image.mediaType, data: r.image.data });
    if (r.image.original.mediaType !== img.mediaType)
      notes.push(`${name} was labelled ${img.mediaType} but is ${r.image.original.mediaType}; it was sent as what it is.`);
    if (r.image.resized) notes.push(describeImage(name, r.image));
  }
  return { ok: true, images: out, notes };
}
