// What a summarizer is sent in place of images: a short text naming each one, never its bytes.
// Summarizing reads the history to write text; an image's pixels would only cost tokens (and, with
// many, make the request too large: Claude Code's "Request too large", fixed by stripping them).
import type { Block, ImageBlock, Message } from '../llm/messages.js';
import { imageSizeOf } from '../media/limits.js';

/** "PNG 800×600": an image's type and size as its header says. */
export const imageLabel = (b: Pick<ImageBlock, 'mediaType' | 'data'>): string => {
  const size = imageSizeOf(Buffer.from(b.data, 'base64'));
  return `${b.mediaType.replace(/^image\//, '').toUpperCase()}${size ? ` ${size.width}×${size.height}` : ''}`;
};

/** `[image (PNG 800×600) not shown to the summarizer]` */
export const imageNote = (b: ImageBlock): string => `[image (${imageLabel(b)}) not shown to the summarizer]`;

function blockWithout(b: Block): Block {
  if (b.type === 'image') return { type: 'text', text: imageNote(b) };
  if (b.type === 'tool_result' && b.images && b.images.length > 0) {
    const { images, ...rest } = b;
    return { ...rest, content: `${b.content}\n${images.map(imageNote).join('\n')}` };
  }
  return b;
}

/** The messages with every image (a message's, a tool result's) replaced by a note; messages without images are the same objects. */
export function withoutImages(messages: readonly Message[]): Message[] {
  return messages.map((m) =>
    m.blocks.some((b) => b.type === 'image' || (b.type === 'tool_result' && (b.images?.length ?? 0) > 0)) ? { ...m, blocks: m.blocks.map(blockWithout) } : m,
  );
}
