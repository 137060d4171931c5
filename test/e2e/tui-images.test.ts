import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Block, ImageBlock } from '../../src/llm/messages.js';
import { makeImage } from '../support/images.js';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Images and the web in a real terminal: a dropped image file's path (pasted by tmux as terminals
// paste it) becomes an [Image #n] chip that Backspace removes whole and Enter sends as an image;
// Ctrl+V takes the clipboard's image through xclip (a fake one on PATH), or says none can be read;
// the row of a WebFetch shows the URL and the size.

const server = useFakeServer();
let term: Tmux | undefined;
let png: Buffer;
let bin: string;
let web: Server;
let base = '';
beforeAll(async () => {
  png = await makeImage(64, 48);
  bin = mkdtempSync(join(tmpdir(), 'tui-images-bin-'));
  web = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<html><head><title>Changelog</title></head><body><main><h1>Changelog</h1>${'<p>Fixed a bug in the parser.</p>'.repeat(100)}</main></body></html>`);
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  rmSync(bin, { recursive: true, force: true });
  await new Promise<void>((r) => web.close(() => r()));
});
afterEach(() => {
  term?.kill();
  term = undefined;
});

const imagesIn = (n: number): ImageBlock[] =>
  (server.requests[n - 1]?.view?.messages ?? []).flatMap((m) => m.blocks.flatMap((b: Block) => (b.type === 'image' ? [b] : [])));

function start(env: Record<string, string | undefined>, rc: Record<string, unknown> = {}) {
  const ws = workspace(rc);
  term = new Tmux({
    // tmux gives a new session its own PATH whatever -e says: env sets the one the program sees
    command: [...(env.PATH ? ['env', `PATH=${env.PATH}`] : []), process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-5'],
    cwd: ws.dir,
    env: { ...agentEnv({ ws, server }), TERM: 'xterm-256color', ...env },
    width: 120,
    height: 30,
  });
  return { ws, term };
}

describe.skipIf(!hasTmux)('images in a real terminal', () => {
  it('a pasted image path becomes a chip, Backspace removes it whole, Enter sends the image', async () => {
    const { ws, term } = start({});
    mkdirSync(join(ws.dir, 'my shots'));
    const shot = join(ws.dir, 'my shots', 'screen shot.png');
    writeFileSync(shot, png);
    await term.waitFor('Ask for a change');
    term.type('what is in ');
    // what a terminal pastes for a dropped file whose path has blanks: quoted
    term.paste(`'${shot}' `);
    await term.waitFor('what is in [Image #1]');
    term.keys('BSpace');
    await term.waitFor(/what is in *│/);
    term.paste(shot.replace(/ /g, '\\ '));
    await term.waitFor('what is in [Image #2]');
    server.enqueue({ text: 'A noisy gradient.' });
    term.keys('Enter');
    await term.waitFor('A noisy gradient.');
    // mutation: a path pasted as text (no chip) reaches the model as a path, with no image
    const sent = imagesIn(1);
    expect(sent).toHaveLength(1);
    expect(Buffer.from(sent[0]!.data, 'base64').equals(png)).toBe(true);
  });

  it('Ctrl+V reads the clipboard with xclip into a chip; without a clipboard tool it says so', async () => {
    writeFileSync(join(bin, 'xclip'), `#!/bin/sh\n[ "$*" = "-selection clipboard -t image/png -o" ] && exec /bin/cat '${join(bin, 'clip.png')}'\nexit 1\n`);
    chmodSync(join(bin, 'xclip'), 0o755);
    writeFileSync(join(bin, 'clip.png'), png);
    const { term } = start({ PATH: `${bin}:${process.env.PATH ?? ''}`, DISPLAY: ':0', WAYLAND_DISPLAY: undefined });
    await term.waitFor('Ask for a change');
    term.type('see ');
    term.keys('C-v');
    await term.waitFor('see [Image #1]');
    server.enqueue({ text: 'The clipboard image.' });
    term.keys('Enter');
    await term.waitFor('The clipboard image.');
    expect(imagesIn(1).map((i) => Buffer.from(i.data, 'base64').equals(png))).toEqual([true]);
    term.kill();

    // no clipboard tool on PATH (only node's directory)
    const bare = start({ PATH: join(process.execPath, '..'), DISPLAY: ':0', WAYLAND_DISPLAY: undefined }).term;
    await bare.waitFor('Ask for a change');
    bare.type('see ');
    await bare.waitFor('❯ see');
    bare.keys('C-v');
    // mutation: a note longer than the row is cut before it says what is missing
    await bare.waitFor('Ctrl+V reads images with wl-paste, xclip or pngpaste; none is installed (or drop the image file here).');
  });
});

describe.skipIf(!hasTmux)('the WebFetch row in a real terminal', () => {
  it('shows the URL and the size', async () => {
    const { term } = start({}, { web: { allowPrivate: ['127.0.0.1'] }, permissions: { allowTools: ['WebFetch(domain:127.0.0.1)'] } });
    await term.waitFor('Ask for a change');
    server.enqueue({ toolCalls: [{ name: 'WebFetch', input: { url: `${base}/changelog`, prompt: 'what was fixed?' } }] }, { text: 'A parser bug.' });
    term.type('what changed?');
    term.keys('Enter');
    const screen = await term.waitFor('A parser bug.');
    // mutation: a first line that puts the size after the URL and type (cut off at the row's end) fails this
    expect(screen).toContain(`WebFetch ${base}/changelog`);
    expect(screen).toMatch(/⎿ Fetched 3\.\d KB, HTTP 200, text\/html: http:\/\/127\.0\.0\.1:\d+\/changelog/);
  });
});
