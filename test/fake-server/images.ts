// The image checks the real services make before a model sees an image, shared by the fake's
// three protocols (each words the refusal as its service does): valid base64, a known format
// whose bytes match the declared media type, Anthropic's 5 MB and 8,000-pixel limits.
import { imageSizeOf, MAX_BASE64_CHARS, MAX_SIDE_ACCEPTED } from '../../src/media/limits.js';

export type ImageProblem =
  | { kind: 'base64' }
  | { kind: 'too-large'; bytes: number }
  | { kind: 'mismatch'; declared: string; actual: string }
  | { kind: 'unreadable' }
  | { kind: 'too-wide'; width: number; height: number };

const SIGNATURES: Array<[string, number[], number]> = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47], 0],
  ['image/jpeg', [0xff, 0xd8, 0xff], 0],
  ['image/gif', [0x47, 0x49, 0x46, 0x38], 0],
  ['image/webp', [0x57, 0x45, 0x42, 0x50], 8],
];

const typeOf = (bytes: Buffer): string | undefined => SIGNATURES.find(([, sig, at]) => sig.every((b, i) => bytes[at + i] === b))?.[0];

export function imageProblem(mediaType: string, data: string): ImageProblem | undefined {
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { kind: 'base64' };
  if (data.length > MAX_BASE64_CHARS) return { kind: 'too-large', bytes: data.length };
  const bytes = Buffer.from(data, 'base64');
  const actual = typeOf(bytes);
  if (!actual) return { kind: 'unreadable' };
  if (actual !== mediaType) return { kind: 'mismatch', declared: mediaType, actual };
  const size = imageSizeOf(bytes);
  if (!size) return { kind: 'unreadable' };
  if (size.width > MAX_SIDE_ACCEPTED || size.height > MAX_SIDE_ACCEPTED) return { kind: 'too-wide', ...size };
  return undefined;
}

/** Anthropic's wording, under `where` (e.g. "messages.0.content.1.image.source.base64"). */
export function anthropicImageError(where: string, p: ImageProblem): string {
  switch (p.kind) {
    case 'base64':
      return `${where}.data: The image data is not valid base64`;
    case 'too-large':
      return `${where}: image exceeds 5 MB maximum: ${p.bytes} bytes > ${MAX_BASE64_CHARS} bytes`;
    case 'mismatch':
      return `${where}.data: The image was specified using the ${p.declared} media type, but the image appears to be a ${p.actual} image`;
    case 'unreadable':
      return `${where}.data: Could not process image`;
    case 'too-wide':
      return `${where}.data: At least one of the image dimensions exceed max allowed size: ${MAX_SIDE_ACCEPTED} pixels`;
  }
}

/** OpenAI's wording (Chat Completions and Responses alike): one message for every image it cannot read. */
export const OPENAI_IMAGE_ERROR =
  "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one the following formats: ['png', 'jpeg', 'gif', 'webp'].";

/** An OpenAI image URL: a data: URL is checked as an image; an http(s) URL is taken as the service would fetch it. */
export function openaiImageProblem(url: string): ImageProblem | undefined {
  if (/^https?:\/\//.test(url)) return undefined;
  const d = /^data:(image\/[a-z]+);base64,(.*)$/s.exec(url);
  if (!d) return { kind: 'unreadable' };
  const problem = imageProblem(d[1]!, d[2]!);
  // OpenAI reads the bytes, not the declared type, and takes images up to 20 MB and any side
  return problem?.kind === 'mismatch' || problem?.kind === 'too-wide' || (problem?.kind === 'too-large' && problem.bytes < 20 * 1024 * 1024 * (4 / 3))
    ? undefined
    : problem;
}
