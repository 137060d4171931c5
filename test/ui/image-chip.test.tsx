import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { Key } from 'ink';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { findMentions } from '../../src/session/mentions.js';
import { clipboardImage, imageMention, NO_CLIPBOARD_TOOL, pastedImagePaths } from '../../src/ui/pasted-image.js';
import { PromptModel } from '../../src/ui/prompt-model.js';
import { NO_KEY } from '../../src/ui/typed-keys.js';
import { makeImage } from '../support/images.js';
import { tempDir } from '../tempDirs.js';
import { COMMANDS, FakeController, KEYS, renderApp, waitFor } from './helpers.js';

// Images into the prompt: a dropped file's path (as terminals paste it) becomes an [Image #n]
// chip, deleted whole by Backspace, sent as an @"path" mention; Ctrl+V reads the clipboard's image
// with the tool installed (a fake xclip here), or says that none is.

afterEach(() => cleanup());
const k = (over: Partial<Key> = {}): Key => ({ ...NO_KEY, ...over });

let dir: string;
let shot: string;
let spaced: string;
let png: Buffer;
beforeAll(async () => {
  dir = tempDir('image-chip-');
  png = await makeImage(40, 30);
  shot = join(dir, 'shot.png');
  mkdirSync(join(dir, 'my shots'));
  spaced = join(dir, 'my shots', "it's here.png");
  writeFileSync(shot, png);
  writeFileSync(spaced, png);
  writeFileSync(join(dir, 'notes.txt'), 'text');
});

describe('a pasted path of an image', () => {
  it('is read as terminals paste a dropped file: bare, quoted, with escaped blanks, as a file:// URL, several at once', () => {
    expect(pastedImagePaths(shot)).toEqual([shot]);
    expect(pastedImagePaths(`${shot} `)).toEqual([shot]);
    expect(pastedImagePaths(`'${dir}/my shots/it'\\''s here.png'`)).toEqual([spaced]);
    expect(pastedImagePaths(spaced.replace(/([ '])/g, '\\$1'))).toEqual([spaced]);
    expect(pastedImagePaths(`"${spaced}"`)).toEqual([spaced]);
    expect(pastedImagePaths(`file://${encodeURI(spaced).replace(/'/g, '%27')}`)).toEqual([spaced]);
    expect(pastedImagePaths(`${shot} "${spaced}"`)).toEqual([shot, spaced]);
    // under the home directory, as ~/… (mutation: `startsWith('~/')` made `endsWith`: read as relative, text)
    const inHome = (text: string) => inWorld({ ...processWorld(), env: { HOME: dir }, slots: new Map<symbol, unknown>() }, () => pastedImagePaths(text));
    expect(inHome('~/shot.png')).toEqual([shot]);
    expect(inHome("'~/my shots/it'\\''s here.png'")).toEqual([spaced]);
  });

  it('is text when it is anything else: a missing file, another kind of file, a relative path, words around it', () => {
    expect(pastedImagePaths(join(dir, 'gone.png'))).toBeUndefined();
    expect(pastedImagePaths(join(dir, 'notes.txt'))).toBeUndefined();
    expect(pastedImagePaths('shot.png')).toBeUndefined();
    expect(pastedImagePaths(`look at ${shot}`)).toBeUndefined();
    expect(pastedImagePaths(`${shot}\n${shot}`)).toBeUndefined();
  });

  it('is sent as a mention the session reads back to the same path, quoted when it must be', () => {
    expect(imageMention(shot)).toBe(`@${shot}`);
    // mutation: an unquoted mention of a path with a blank attaches nothing (findMentions stops at the blank)
    expect(findMentions(`see ${imageMention(spaced)} now`)).toEqual([spaced]);
    expect(findMentions(`${imageMention('/a/b"c d.png')}`)).toEqual(['/a/b"c d.png']);
  });

  it('becomes an [Image #n] chip; Backspace at its end removes it whole; Enter sends the mention', () => {
    const sent: string[] = [];
    const m = new PromptModel({ history: [], commands: () => COMMANDS, onSubmit: (t) => sent.push(t) });
    for (const ch of 'see ') m.handleKey(ch, k());
    m.handleKey(`"${spaced}"`, k());
    m.handleKey(shot, k());
    expect(m.state.text).toBe('see [Image #1][Image #2]');
    // mutation: a chip that is plain text loses one character to Backspace
    m.handleKey('', k({ backspace: true }));
    expect(m.state.text).toBe('see [Image #1]');
    m.handleKey('\r', k({ return: true }));
    expect(sent).toEqual([`see ${imageMention(spaced)}`]);
  });

  it('through the terminal (a bracketed paste): the chip shows in the input and is sent as the mention', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press('q', ' ', `\u001b[200~${shot.replace(/\//g, '/')}\u001b[201~`);
    await app.waitForText('q [Image #1]');
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual([`q @${shot}`]);
  });
});

describe('Ctrl+V', () => {
  const fakeTool = (name: string, body: string): string => {
    const bin = tempDir('clip-bin-');
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
    return bin;
  };

  it('reads the image with xclip where it is installed, into a file the chip names', async () => {
    const bin = fakeTool('xclip', `[ "$*" = "-selection clipboard -t image/png -o" ] && /bin/cat '${shot}'`);
    const r = await clipboardImage({ PATH: bin, DISPLAY: ':0' });
    expect('path' in r && (await import('node:fs')).readFileSync(r.path).equals(png)).toBe(true);
  });

  it('says there is no image when the clipboard holds text, and names the tools when none is installed', async () => {
    const bin = fakeTool('xclip', 'echo "Error: target image/png not available" >&2; exit 1');
    expect(await clipboardImage({ PATH: bin, DISPLAY: ':0' })).toEqual({
      why: 'The clipboard holds no image (xclip: Error: target image/png not available). Copy an image, or drop its file here.',
    });
    // mutation: trying xclip without looking for it first fails with a spawn error instead of this
    expect(await clipboardImage({ PATH: dir, DISPLAY: ':0' })).toEqual({ why: NO_CLIPBOARD_TOOL });
  });

  it('in the prompt: the clipboard image becomes a chip; without a tool the note under the prompt says why', async () => {
    const bin = fakeTool('xclip', `/bin/cat '${shot}'`);
    const saved = { PATH: process.env.PATH, DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
    try {
      Object.assign(process.env, { PATH: bin, DISPLAY: ':0' });
      delete process.env.WAYLAND_DISPLAY;
      const m = new PromptModel({ history: [], commands: () => COMMANDS, onSubmit: () => undefined });
      m.handleKey('v', k({ ctrl: true }));
      await waitFor(
        () => m.state.text === '[Image #1]',
        () => m.state.text,
      );
      process.env.PATH = dir;
      m.handleKey('v', k({ ctrl: true }));
      await waitFor(
        () => m.state.note === NO_CLIPBOARD_TOOL,
        () => String(m.state.note),
      );
      expect(m.state.text).toBe('[Image #1]');
    } finally {
      for (const [key, v] of Object.entries(saved))
        if (v === undefined) delete process.env[key];
        else process.env[key] = v;
    }
  });
});
