// Messages with their images replaced by a short text naming each one, never its bytes: what a
// summarizer is sent (it writes text; an image's pixels would only cost tokens and, with many,
// make the request too large: Claude Code's "Request too large", fixed by stripping them), and
// what a model that reads no images is sent (models.<name>.images: false, a local text model).
import type { Block, ImageBlock, Message } from './messages.js';
import { imageSizeOf } from '../media/limits.js';

/** "PNG 800×600": an image's type and size as its header says. */
export const imageLabel = (b: Pick<ImageBlock, 'mediaType' | 'data'>): string => {
  const size = imageSizeOf(Buffer.from(b.data, 'base64'));
  return `${b.mediaType.replace(/^image\//, '').toUpperCase()}${size ? ` ${size.width}×${size.height}` : ''}`;
};

/** `[image (PNG 800×600) not shown to the summarizer]` */
export const summarizerNote = (b: ImageBlock): string => `[image (${imageLabel(b)}) not shown to the summarizer]`;

/** What a model that reads no images gets in place of one. */
export const noImagesNote =
  (model: string) =>
  (b: ImageBlock): string =>
    `[image (${imageLabel(b)}) not sent: ${model} takes no images (models.${model}.images is false in .agentrc)]`;

function blockWithout(b: Block, note: (b: ImageBlock) => string): Block {
  if (b.type === 'image') return { type: 'text', text: note(b) };
  if (b.type === 'tool_result' && b.images && b.images.length > 0) {
    const { images, ...rest } = b;
    return { ...rest, content: `${b.content}\n${images.map(note).join('\n')}` };
  }
  return b;
}

/** The messages with every image (a message's, a tool result's) replaced by `note`; messages without images are the same objects. */
export function withoutImages(messages: readonly Message[], note: (b: ImageBlock) => string = summarizerNote): Message[] {
  return messages.map((m) =>
    m.blocks.some((b) => b.type === 'image' || (b.type === 'tool_result' && (b.images?.length ?? 0) > 0))
      ? { ...m, blocks: m.blocks.map((b) => blockWithout(b, note)) }
      : m,
  );
}
