import { rgPath } from '@vscode/ripgrep';
import { describe, expect, it } from 'vitest';
import { resolveRg, runGrep } from '../../src/tools/grep.js';
import { ctx, tree } from './helpers.js';
import { tempDir } from '../tempDirs.js';

// An installed agent had no `rg` unless the person installed ripgrep: @vscode/ripgrep was only
// a devDependency, so Grep fell back to the JavaScript search (4.4× slower on a large tree).
// It is a runtime dependency now and its binary the default, before PATH and JavaScript.

describe('which ripgrep Grep uses', () => {
  it('by default the packaged binary, even with no rg on PATH', async () => {
    const path = process.env.PATH;
    process.env.PATH = tempDir('no-rg-'); // nothing on PATH
    try {
      expect(await resolveRg(undefined)).toBe(rgPath);
      const root = tree({ 'a.ts': 'const needle = 1;\n', 'b.ts': 'nothing\n' });
      const r = await runGrep({ pattern: 'needle' }, ctx(root), { maxFileBytes: 10 * 1024 * 1024, defaultMaxResults: 100 });
      expect(r.engine).toBe('rg');
      expect(r.output.content).toContain('a.ts');
    } finally {
      process.env.PATH = path;
    }
  });

  it('a configured path wins, and null means the JavaScript search', async () => {
    expect(await resolveRg('/opt/rg')).toBe('/opt/rg');
    expect(await resolveRg(null)).toBeNull();
    const root = tree({ 'a.ts': 'const needle = 1;\n' });
    expect((await runGrep({ pattern: 'needle' }, ctx(root), { rgPath: null, maxFileBytes: 1e7, defaultMaxResults: 100 })).engine).toBe('js');
  });

  it('is a runtime dependency of the package', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { dependencies: Record<string, string> };
    expect(pkg.dependencies['@vscode/ripgrep']).toBeDefined();
  });
});
