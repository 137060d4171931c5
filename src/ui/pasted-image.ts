// Images into the prompt: a pasted path of an image file (what a terminal pastes when a file is
// dropped on it: bare, quoted, with escaped spaces, or a file:// URL) and Ctrl+V (an image on the
// clipboard, read with wl-paste, xclip or pngpaste). Each becomes an "[Image #n]" chip that is
// sent as an @"path" mention, so the image goes the way of any @image: read, checked and
// downscaled by FileRead, attached to the message.
import { homeDir, world } from '../runtime/world.js';
import { scratchFile } from '../runtime/scratchDir.js';
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

const IMAGE_EXT = /\.(png|jpe?g|gif|webp)$/i;

/** The words of a pasted line as a shell reads them: quotes and backslash escapes undone. */
function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      if (close === -1) return undefined;
      word = (word ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === '\\' && i + 1 < line.length) word = (word ?? '') + line[++i];
    else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** A word as a local path: file:// URLs decoded, ~ expanded; undefined when it is not absolute. */
function localPath(word: string): string | undefined {
  let p = word;
  if (p.startsWith('file://')) {
    try {
      p = decodeURIComponent(new URL(p).pathname);
    } catch {
      return undefined;
    }
  }
  if (p.startsWith('~/')) p = join(homeDir(), p.slice(2));
  return isAbsolute(p) ? p : undefined;
}

/** The image files a paste names, when it is nothing but paths of existing images (one line); else undefined. */
export function pastedImagePaths(text: string): string[] | undefined {
  const line = text.trim();
  if (line === '' || line.includes('\n') || line.length > 4096) return undefined;
  const words = shellWords(line);
  if (!words || words.length === 0) return undefined;
  const paths: string[] = [];
  for (const w of words) {
    const p = localPath(w);
    if (!p || !IMAGE_EXT.test(p)) return undefined;
    try {
      if (!statSync(p).isFile()) return undefined;
    } catch {
      return undefined;
    }
    paths.push(p);
  }
  return paths;
}

/** How a chip's image is sent: an @mention, quoted when the path has a blank or a quote in it. */
export const imageMention = (path: string): string => (/[\s"\\]/.test(path) ? `@"${path.replace(/["\\]/g, '\\$&')}"` : `@${path}`);

/** A program on PATH, or undefined. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {}
  }
  return undefined;
}

/** The clipboard readers tried in turn: the first whose program is installed (and whose display is set) is used. */
const READERS: Array<{ name: string; args: string[]; when: (env: NodeJS.ProcessEnv) => boolean }> = [
  { name: 'wl-paste', args: ['--no-newline', '--type', 'image/png'], when: (env) => Boolean(env.WAYLAND_DISPLAY) },
  { name: 'xclip', args: ['-selection', 'clipboard', '-t', 'image/png', '-o'], when: (env) => Boolean(env.DISPLAY) || process.platform !== 'darwin' },
  // pbpaste reads text only: macOS's image clipboard needs pngpaste (brew install pngpaste)
  { name: 'pngpaste', args: ['-'], when: () => process.platform === 'darwin' },
];

/** One line under the prompt (fits 110 columns): which tools Ctrl+V uses, and the other way in. */
export const NO_CLIPBOARD_TOOL = 'Ctrl+V reads images with wl-paste, xclip or pngpaste; none is installed (or drop the image file here).';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** The clipboard's image saved to a file (its path), or why there is none. */
export async function clipboardImage(env: NodeJS.ProcessEnv = world().env): Promise<{ path: string } | { why: string }> {
  const reader = READERS.find((r) => r.when(env) && onPath(r.name, env));
  if (!reader) return { why: NO_CLIPBOARD_TOOL };
  const out = await new Promise<{ bytes: Buffer; code: number | null; err: string }>((resolve) => {
    const child = spawn(reader.name, reader.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', (e) => resolve({ bytes: Buffer.alloc(0), code: -1, err: e.message }));
    child.on('close', (code) => resolve({ bytes: Buffer.concat(chunks), code, err }));
  });
  if (out.code !== 0 || out.bytes.length === 0 || !out.bytes.subarray(0, 4).equals(PNG_MAGIC)) {
    const said = out.err.trim().split('\n')[0]?.slice(0, 60);
    return { why: `The clipboard holds no image (${reader.name}${said ? `: ${said}` : ' found none'}). Copy an image, or drop its file here.` };
  }
  const path = scratchFile('clipboard', '.png');
  writeFileSync(path, out.bytes);
  return { path };
}
