import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { FileIndex, fuzzyScore } from '../../src/session/fileIndex.js';
import { attachMentions, findMentions, typedText } from '../../src/session/mentions.js';
import { createTools } from '../../src/tools/registry.js';
import { fillMention, mentionAt } from '../../src/ui/mention-completion.js';
import { tempDir } from '../tempDirs.js';

/** The text of an attachment block (an image block has none). */
const textAt = (blocks: readonly { type: string; text?: string }[], i: number): string => blocks[i]?.text ?? '';

function project(): string {
  const dir = tempDir('agent-mentions-');
  mkdirSync(join(dir, '.git'));
  mkdirSync(join(dir, 'src', 'ui'), { recursive: true });
  mkdirSync(join(dir, 'node_modules', 'lib'), { recursive: true });
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n*.log\n');
  writeFileSync(join(dir, 'src', 'cli.ts'), 'export const cli = 1;\n');
  writeFileSync(join(dir, 'src', 'ui', 'app.tsx'), 'export const App = 2;\n');
  writeFileSync(join(dir, 'node_modules', 'lib', 'index.js'), 'ignored\n');
  writeFileSync(join(dir, 'debug.log'), 'ignored\n');
  writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
  writeFileSync(join(dir, 'data.bin'), Buffer.from([0x00, 0x01, 0x02, 0xff, 0xfe, 0x00, 0x10, 0x00]));
  return dir;
}

const tools = createTools({ bash: { timeoutMs: 10_000, maxTimeoutMs: 10_000, maxOutputChars: 10_000 } });

describe('@ mentions', () => {
  it('finds the @words of a prompt, punctuation and e-mail addresses left out', () => {
    expect(findMentions('look at @src/cli.ts, and @src/ui/. mail me@example.com @')).toEqual(['src/cli.ts', 'src/ui/']);
  });

  it('attaches a file through FileRead, lists a directory without ignored entries, refuses a binary file and leaves unknown words alone', async () => {
    const dir = project();
    const ac = new AbortController();
    const r = await attachMentions('see @src/cli.ts and @./ and @data.bin and @logo.png and @decorator', tools, dir, ac.signal);
    expect(r.attached).toEqual(['src/cli.ts', './']);
    expect(r.readPaths).toEqual([join(dir, 'src', 'cli.ts')]);
    expect(textAt(r.blocks, 0)).toContain('     1\texport const cli = 1;');
    expect(textAt(r.blocks, 1)).toContain('src/');
    expect(textAt(r.blocks, 1)).not.toContain('node_modules');
    expect(textAt(r.blocks, 1)).not.toContain('debug.log');
    // a file that is no text is a warning; an image that cannot be read stops the prompt (refused)
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/^@data\.bin: not attached: /);
    expect(r.refused).toMatch(/^@logo\.png: the image could not be attached: .*PNG/);
  });

  it('attaches an image file as its description, then the image itself', async () => {
    const dir = project();
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    writeFileSync(join(dir, 'dot.png'), Buffer.from(png, 'base64'));
    const r = await attachMentions('what is in @dot.png', tools, dir, new AbortController().signal);
    expect(r.refused).toBeUndefined();
    expect(r.attached).toEqual(['dot.png']);
    expect(r.blocks.map((b) => b.type)).toEqual(['text', 'image']);
    expect(textAt(r.blocks, 0)).toMatch(/^\[Attached by the user with @dot\.png: read with FileRead\]/);
    expect(r.blocks[1]).toMatchObject({ type: 'image', mediaType: 'image/png' });
  });

  it('completes paths fuzzily from an index that respects .gitignore; dir/ lists the directory', async () => {
    const dir = project();
    const index = new FileIndex(dir);
    expect(await index.complete('')).toEqual(['src/', '.gitignore', 'data.bin', 'logo.png']);
    expect((await index.complete('app'))[0]).toBe('src/ui/app.tsx');
    expect((await index.complete('suiap'))[0]).toBe('src/ui/app.tsx');
    expect(await index.complete('src/')).toEqual(['src/ui/', 'src/cli.ts']);
    expect(await index.complete('index')).toEqual([]);
    expect(fuzzyScore('src/cli.ts', 'src')).toBeLessThan(fuzzyScore('a/src/cli.ts', 'src')!);
  });

  it('fills the chosen path in place of the @word', () => {
    const at = mentionAt('read @sr please', 8)!;
    expect(at).toEqual({ start: 5, query: 'sr' });
    expect(fillMention({ text: 'read @sr please', cursor: 8 }, at, 'src/cli.ts')).toEqual({ text: 'read @src/cli.ts please', cursor: 17 });
    expect(fillMention({ text: 'read @sr', cursor: 8 }, at, 'src/')).toEqual({ text: 'read @src/', cursor: 10 });
    expect(mentionAt('me@example', 10)).toBeNull();
  });

  it('what the person typed: the text without the blocks added to it, a custom command as typed', () => {
    const blocks: Message['blocks'] = [
      { type: 'text', text: 'review @a.ts please' },
      { type: 'text', text: '[Attached by the user with @a.ts]\nexport const a = 1;', origin: { kind: 'attachment', label: 'a.ts' } },
      { type: 'text', text: 'plan mode is on', origin: { kind: 'plan_note' } },
      { type: 'text', text: 'from a hook', origin: { kind: 'hook_context' } },
      { type: 'text', text: 'Review the file a.ts for bugs.', origin: { kind: 'typed_command', typed: '/review a.ts' } },
    ];
    const m: Message = { id: 'u1', role: 'user', kind: 'normal', blocks, createdAt: 0 };
    // mutation: `kind === 'typed_command'` flipped: the command left out (and each added block an empty line)
    expect(typedText(m)).toBe('review @a.ts please\n/review a.ts');
  });
});
