import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isKnownModel } from '../../src/commands/modelChoices.js';
import { loadConfig } from '../../src/config/config.js';
import { resolveModel } from '../../src/config/models.js';
import { tempDir } from '../tempDirs.js';

// A made-up name that starts like a known one ("claude-opus-4.8") used to resolve to the known
// family by prefix: /model said "Switched to …" and -m ran it with the family's limits.

function dirs(): { home: string; cwd: string } {
  const root = tempDir('agent-models-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  return { home, cwd };
}
const env = { ANTHROPIC_API_KEY: 'x', OPENAI_API_KEY: 'y' };

describe('model names', () => {
  it('only a dated snapshot (or -latest) extends a known name', () => {
    for (const dated of [
      'claude-sonnet-4-5-20250929',
      'claude-sonnet-4-5@20250929',
      'gpt-4o-2024-08-06',
      'gpt-4o-mini-2024-07-18',
      'claude-3-5-haiku-latest',
    ]) {
      expect(resolveModel(dated).source, dated).toBe('builtin');
    }
    for (const madeUp of ['claude-opus-4.8', 'claude-opus-4-9', 'claude-sonnet-4.5', 'claude-opus-4-8-turbo', 'gpt-4o-2024', 'gpt-5.4-pro-max']) {
      expect(resolveModel(madeUp).source, madeUp).toBe('default');
    }
  });

  it('/model refuses them; a custom base URL still accepts any name', () => {
    const d = dirs();
    const c = loadConfig({ cwd: d.cwd, home: d.home, env, flags: {} });
    for (const name of ['claude-opus-4.8', 'claude-opus-4-9', 'claude-sonnet-4.5']) expect(isKnownModel(c, name), name).toBe(false);
    expect(isKnownModel(c, 'claude-opus-4-8')).toBe(true);
    expect(isKnownModel(c, 'claude-sonnet-4-5-20250929')).toBe(true);
    expect(isKnownModel({ ...c, baseURL: 'http://localhost:8080/v1' }, 'claude-opus-4.8')).toBe(true);
  });

  it('-m (and "model" in .agentrc) refuses them with the near names; a wholly unknown name still runs with a warning', () => {
    const d = dirs();
    const load = (flags: object, e: NodeJS.ProcessEnv = env) => loadConfig({ cwd: d.cwd, home: d.home, env: e, flags });
    expect(() => load({ model: 'claude-opus-4.8' })).toThrow(
      /--model: unknown model "claude-opus-4\.8" — did you mean claude-opus-4-8\b.*claude-opus-4-YYYYMMDD/,
    );
    expect(() => load({ model: 'claude-sonnet-4.5' })).toThrow(/did you mean claude-sonnet-4-5/);
    expect(load({ model: 'claude-opus-4-8-20260101' }).model).toMatchObject({ source: 'builtin', contextWindow: 200_000 });
    expect(load({ model: 'claude-opus-4.8', baseURL: 'http://localhost:8080/v1' }).model.source).toBe('default');
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ model: 'claude-opus-4-9' }));
    expect(() => load({})).toThrow(/field "model" \(\.agentrc\): unknown model "claude-opus-4-9"/);
    writeFileSync(join(d.cwd, '.agentrc'), '{}');
    expect(load({ model: 'qwen-local', provider: 'openai' }).warnings[0]).toMatch(/Unknown model "qwen-local"/);
  });
});
