import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import * as z from 'zod/mini';
import '../zodEnglish.js';
import type { ImageBlock } from '../llm/messages.js';

// `--input-format stream-json`: Claude Code's user messages, one JSON object per line of stdin,
// {"type":"user","message":{"role":"user","content":"…" | [text and image blocks]}}. Each line is
// one turn of the same session; EOF ends the run. zod/mini, as every schema of ours: classic zod
// would load with every -p run (test/e2e/startup.test.ts).

const MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

const Block = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('image'),
    source: z.object({ type: z.literal('base64'), media_type: z.enum(MEDIA_TYPES), data: z.string().check(z.minLength(1)) }),
  }),
]);

const UserLine = z.object({
  type: z.literal('user'),
  message: z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(Block)]) }),
});

export interface InputTurn {
  text: string;
  images: ImageBlock[];
}

/** Parses one line; the error names the line and the field. */
export function parseInputLine(line: string, n: number): InputTurn | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (e) {
    return { error: `--input-format stream-json: line ${n} is not JSON (${(e as Error).message})` };
  }
  const parsed = UserLine.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the message';
    return {
      error: `--input-format stream-json: line ${n}: ${where}: ${issue?.message ?? 'invalid'} (expected {"type":"user","message":{"role":"user","content":…}} with text and base64 image blocks)`,
    };
  }
  const content = parsed.data.message.content;
  if (typeof content === 'string') return { text: content, images: [] };
  const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n\n');
  const images = content.flatMap((b): ImageBlock[] => (b.type === 'image' ? [{ type: 'image', mediaType: b.source.media_type, data: b.source.data }] : []));
  return { text, images };
}

/** The input's turns in order; blank lines are skipped, a bad line yields its error. */
export async function* readInputLines(input: Readable): AsyncGenerator<InputTurn | { error: string }> {
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    n++;
    if (line.trim()) yield parseInputLine(line, n);
  }
}
