import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/llm/messages.js';
import { withoutSecrets } from '../../src/session/sessionLog.js';
import { shellNote } from '../../src/session/shellNote.js';

// A key typed or echoed never enters the history; an image's base64 is pixels, not text, and is
// never scanned (a run of it looked like a key and was cut: the provider then refused the image).
describe('withoutSecrets', () => {
  it('redacts a key in text and leaves image data alone, in a message and in a tool result', () => {
    const key = `sk-ant-api03-${'Ab1'.repeat(30)}`;
    const data = `iVBORw0KGgo${key}AAAA`;
    const msg: Message = {
      id: 'm',
      role: 'user',
      kind: 'normal',
      createdAt: 0,
      blocks: [
        { type: 'text', text: `my key is ${key}` },
        { type: 'image', mediaType: 'image/png', data },
        { type: 'tool_result', toolUseId: 't', content: `echo ${key}`, isError: false, images: [{ type: 'image', mediaType: 'image/png', data: `${data}B` }] },
      ],
    };
    const out = withoutSecrets(msg);
    expect(JSON.stringify(out.blocks[0])).not.toContain(key);
    expect(JSON.stringify(out.blocks[2]).includes(`echo ${key}`)).toBe(false);
    // mutation: scanning the whole JSON (the old way) cuts both images
    expect(out.blocks[1]).toEqual({ type: 'image', mediaType: 'image/png', data });
    expect(out.blocks[2]!.type === 'tool_result' && out.blocks[2]!.images).toEqual([{ type: 'image', mediaType: 'image/png', data: `${data}B` }]);
  });

  it("redacts a key in a `!command`'s origin (its command and output, kept again for the views)", () => {
    const key = `sk-ant-api03-${'Cd2'.repeat(30)}`;
    const note = shellNote({ command: `echo ${key}`, output: key, isError: false }, 'done');
    const out = withoutSecrets(note);
    expect(JSON.stringify(out)).not.toContain(key);
    // mutation: withoutSecrets scanning the blocks alone leaves the key in the origin
    expect(out.origin).toMatchObject({ kind: 'shell', status: 'done' });
  });
});
