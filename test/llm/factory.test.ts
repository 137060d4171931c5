import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createProvider } from '../../src/llm/factory.js';
import { bundled } from '../bundled.js';
import { tempDir } from '../tempDirs.js';

const exec = promisify(execFile);

// A child process logs every SDK module it resolves, via a module resolve hook. It imports the
// factory bundled (test/bundled.ts: its adapters in chunks loaded on demand, as in dist/, the
// SDKs from node_modules), which plain `node` starts in a fraction of tsx's compiling.
async function sdkModulesLoaded(body: string): Promise<{ before: string[]; after: string[] }> {
  const dir = tempDir('factory-lazy-');
  const factory = await bundled(resolve('src/llm/factory.ts'));
  const script = join(dir, 'probe.mjs');
  writeFileSync(
    script,
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  "export async function resolve(s, c, n) { const r = await n(s, c); if (/node_modules\\\\/(@anthropic-ai\\\\/sdk|openai)\\\\//.test(r.url)) process.stderr.write('SDK ' + r.url + '\\\\n'); return r; }"));
const f = await import(${JSON.stringify(factory)});
process.stderr.write('MARK\\n');
${body}
`,
  );
  const { stderr } = await exec(process.execPath, [script], { cwd: process.cwd() });
  const [before = '', after = ''] = stderr.split('MARK\n');
  const sdk = (s: string) => s.split('\n').filter((l) => l.startsWith('SDK '));
  return { before: sdk(before), after: sdk(after) };
}

describe('createProvider', () => {
  it('does not load an SDK on import or creation, only on the first use of the chosen one', async () => {
    const { before, after } = await sdkModulesLoaded(`
const p = f.createProvider({ provider: 'anthropic', apiKey: 'k' });
process.stderr.write(p.name + '\\n');
await p.preload();
`);
    expect(before).toEqual([]);
    expect(after.some((l) => l.includes('@anthropic-ai/sdk'))).toBe(true);
    expect(after.some((l) => l.includes('/openai/'))).toBe(false);
  });

  it('reports its provider name and preloads its adapter', async () => {
    const p = createProvider({ provider: 'openai', apiKey: 'k' });
    expect(p.name).toBe('openai');
    await Promise.all([p.preload(), p.preload()]);
  });
});
