import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readConfigFile } from '../../src/config/config.js';
import { tempDir } from '../tempDirs.js';

// .agentrc is JSONC as editors read it (VS Code's settings.json): trailing commas and comments
// are fine, an empty file holds no settings, and every problem names its line and column.

function rc(text: string): { file: string; home: string; cwd: string } {
  const root = tempDir('agent-jsonc-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  const file = join(cwd, '.agentrc');
  writeFileSync(file, text);
  return { file, home, cwd };
}

const thrown = (f: () => unknown): Error => {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('nothing was thrown');
};

describe('.agentrc as JSONC', () => {
  it('accepts trailing commas in objects and arrays, with comments', () => {
    const { file } = rc('{\n  // the model\n  "model": "gpt-4o",\n  "permissions": { "allowBash": ["ls", "git status",], },\n}\n');
    expect(readConfigFile(file)).toMatchObject({ model: 'gpt-4o', permissions: { allowBash: ['ls', 'git status'] } });
  });

  it('reads an empty file (or one holding only comments) as no settings', () => {
    for (const text of ['', '  \n', '// nothing yet\n']) {
      const d = rc(text);
      expect(readConfigFile(d.file), JSON.stringify(text)).toEqual({});
      expect(loadConfig({ cwd: d.cwd, home: d.home, env: { ANTHROPIC_API_KEY: 'x' }, flags: {} }).sources).toEqual([d.file]);
    }
  });

  it('names the line and column of a syntax error', () => {
    const { file } = rc('{\n  "model": "gpt-4o",\n  "maxSteps": 3 3\n}\n');
    const e = thrown(() => readConfigFile(file));
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message).toBe(`${file}: not valid JSON at line 3, column 17: expected ","`);
  });

  it('reports every schema problem, each with its line and column', () => {
    const { file } = rc('{\n  "maxSteps": 0,\n  "modle": "x",\n  "compaction": {\n    "tailTurns": "many"\n  }\n}\n');
    const e = thrown(() => readConfigFile(file));
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.message.split('\n')).toEqual([
      `${file}: 3 problems:`,
      expect.stringMatching(/^ {2}line 2, column 3: field "maxSteps": Too small/),
      expect.stringMatching(/^ {2}line 5, column 5: field "compaction\.tailTurns": Invalid input: expected number/),
      '  line 3, column 3: field "modle": unknown key (see .agentrc.example for the keys)',
    ]);
  });
});
