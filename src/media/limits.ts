// What an image may be when it is sent, and what it costs: the providers' limits as numbers, the
// size an image is fitted to, and its token count by Anthropic's formula. Pure and synchronous
// (the gauge counts with it); decoding and downscaling live in prepare.ts.
import { imageSize } from 'image-size';

/** The image types both providers read (Anthropic's list; OpenAI reads the same four). */
export const IMAGE_MEDIA_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * Anthropic resizes an image whose long side passes 1,568 pixels or whose tokens pass ~1,600
 * (w×h/750 ≤ 1,600: 1.2 megapixels) before the model sees it; OpenAI fits into 2,048 and then
 * 768 on the short side. An image fitted to Anthropic's box loses nothing either provider keeps.
 */
export const MAX_LONG_SIDE = 1568;
export const MAX_PIXELS = 1_200_000;
/** Anthropic refuses an image over 5 MB of base64 (5,242,880 characters); raw bytes × 4/3 must stay under it. */
export const MAX_BASE64_CHARS = 5 * 1024 * 1024;
export const MAX_IMAGE_BYTES = Math.floor((MAX_BASE64_CHARS * 3) / 4);
/** Anthropic refuses an image with a side over 8,000 pixels. */
export const MAX_SIDE_ACCEPTED = 8000;
/** Pixels per token in Anthropic's formula (tokens = width × height / 750). */
export const PIXELS_PER_TOKEN = 750;

export interface Size {
  width: number;
  height: number;
}

/** The size an image is sent at: itself when it fits, else scaled down (aspect kept) to the long side and pixel limits. */
export function fitSize(s: Size): Size {
  const scale = Math.min(1, MAX_LONG_SIDE / Math.max(s.width, s.height), Math.sqrt(MAX_PIXELS / (s.width * s.height)));
  if (scale >= 1) return { width: s.width, height: s.height };
  return { width: Math.max(1, Math.floor(s.width * scale)), height: Math.max(1, Math.floor(s.height * scale)) };
}

export const fits = (s: Size): boolean => {
  const f = fitSize(s);
  return f.width === s.width && f.height === s.height;
};

/** Anthropic's count for an image: its size as the model sees it (fitted), width × height / 750, rounded up. */
export const imageTokens = (s: Size): number => {
  const f = fitSize(s);
  return Math.ceil((f.width * f.height) / PIXELS_PER_TOKEN);
};

/** What an image costs when its size cannot be read (an unreadable block): the most a fitted image costs. */
export const UNKNOWN_IMAGE_TOKENS = Math.ceil(MAX_PIXELS / PIXELS_PER_TOKEN);

/** The pixel size in an image's header, or undefined when the bytes are no image it knows. */
export function imageSizeOf(bytes: Uint8Array): Size | undefined {
  try {
    const s = imageSize(bytes);
    return s.width && s.height ? { width: s.width, height: s.height } : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens of an image block (base64 data), by its header's size; unreadable: the most a fitted image costs. */
export function base64ImageTokens(data: string): number {
  const size = imageSizeOf(Buffer.from(data, 'base64'));
  return size ? imageTokens(size) : UNKNOWN_IMAGE_TOKENS;
}
