import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, withModel } from '../../src/config/config.js';
import { thinkingMark } from '../../src/config/thinking.js';
import { tempDir } from '../tempDirs.js';

// Thinking settings checked against what the model can do, before any request.

function withRc(rc: unknown): { home: string; cwd: string } {
  const root = tempDir('agent-thinking-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  writeFileSync(join(cwd, '.agentrc'), JSON.stringify(rc));
  return { home, cwd };
}
const load = (rc: unknown) => {
  const d = withRc(rc);
  return loadConfig({ cwd: d.cwd, home: d.home, env: { ANTHROPIC_API_KEY: 'x' }, flags: {} });
};
const refusal = (rc: unknown): string => {
  try {
    load(rc);
  } catch (e) {
    expect((e as Error).name).toBe('ConfigError');
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('thinking settings', () => {
  it('defaults to adaptive and summarized on the 5 family, and to none on 4.5', () => {
    expect(load({}).thinking).toEqual({ mode: 'adaptive', display: 'summarized' });
    expect(load({ model: 'claude-sonnet-4-5' }).thinking).toBeUndefined();
    expect(thinkingMark(load({ thinking: { effort: 'low' } }).thinking)).toBe('thinking low');
  });

  it('takes enabled with a budget on 4.5, and a per-model setting over the top level', () => {
    expect(
      refusal({
        model: 'claude-sonnet-4-5',
        thinking: { effort: 'low' },
        models: { 'claude-sonnet-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000, thinking: { mode: 'enabled', budgetTokens: 4_000 } } },
      }),
    ).toBe('thinking.effort: "low" is not supported by claude-sonnet-4-5 (it takes no effort setting)');
    const c = load({
      model: 'claude-sonnet-4-5',
      thinking: { display: 'omitted' },
      models: { 'claude-sonnet-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000, thinking: { mode: 'enabled', budgetTokens: 4_000 } } },
    });
    expect(c.thinking).toEqual({ mode: 'enabled', budgetTokens: 4_000, display: 'omitted' });
  });

  it('refuses what the model cannot take, naming the setting and the model', () => {
    expect(refusal({ model: 'claude-sonnet-4-5', thinking: { mode: 'enabled', budgetTokens: 1_000 } })).toBe(
      'thinking.budgetTokens: 1000 is under the minimum of 1024 (claude-sonnet-4-5)',
    );
    expect(refusal({ model: 'claude-sonnet-4-5', maxOutputTokens: 8_000, thinking: { mode: 'enabled', budgetTokens: 8_000 } })).toContain(
      'thinking.budgetTokens: 8000 is not below the output limit of 8000 tokens (claude-sonnet-4-5',
    );
    expect(refusal({ model: 'claude-sonnet-4-5', thinking: { mode: 'enabled' } })).toContain(
      'thinking.budgetTokens: required with mode "enabled" (claude-sonnet-4-5)',
    );
    expect(refusal({ thinking: { mode: 'off' } })).toBe('thinking.mode: "off" is not supported by claude-sonnet-5-5 (it cannot turn thinking off)');
    expect(refusal({ thinking: { mode: 'enabled', budgetTokens: 4_000 } })).toBe(
      'thinking.mode: "enabled" is not supported by claude-sonnet-5-5 (it takes adaptive)',
    );
    expect(refusal({ model: 'claude-sonnet-4-6', thinking: { effort: 'xhigh' } })).toBe(
      'thinking.effort: "xhigh" is not supported by claude-sonnet-4-6 (it takes low, medium, high, max)',
    );
    expect(refusal({ model: 'claude-sonnet-4-5', thinking: { mode: 'enabled', budgetTokens: 2_000, effort: 'low' } })).toContain(
      'thinking.effort: "low" is not supported by claude-sonnet-4-5',
    );
    expect(refusal({ thinking: { mode: 'sometimes' } })).toMatch(/thinking\.mode.*adaptive.*enabled.*off/);
  });

  // issue 30: a budget alone did nothing on a 4.5-era model (no mode, so no thinking was sent).
  // A budget asks for thinking with that budget; where the model takes no budget, it is an error
  // naming the setting. Dropping the budget's implied mode fails the first two expectations.
  it('a bare budgetTokens turns thinking on with that budget, or says why the model cannot take it', () => {
    expect(load({ model: 'claude-sonnet-4-5', thinking: { budgetTokens: 2_048 } }).thinking).toEqual({
      mode: 'enabled',
      budgetTokens: 2_048,
      display: 'summarized',
    });
    expect(thinkingMark(load({ model: 'claude-sonnet-4-6', thinking: { budgetTokens: 3_000 } }).thinking)).toBe('thinking 3k');
    expect(refusal({ thinking: { budgetTokens: 2_048 } })).toBe(
      'thinking.budgetTokens: a budget asks for mode "enabled", which claude-sonnet-5-5 does not take (it takes adaptive; set thinking.effort instead)',
    );
    expect(refusal({ model: 'claude-sonnet-4-5', thinking: { budgetTokens: 500 } })).toBe(
      'thinking.budgetTokens: 500 is under the minimum of 1024 (claude-sonnet-4-5)',
    );
    expect(load({ model: 'house-claude', provider: 'anthropic', thinking: { budgetTokens: 2_048 } }).thinking).toEqual({
      mode: 'enabled',
      budgetTokens: 2_048,
    });
  });

  it('lets .agentrc say what a model accepts, over the built-in table', () => {
    const c = load({
      thinking: { mode: 'off' },
      models: { 'claude-sonnet-5-5': { contextWindow: 1_000_000, maxOutputTokens: 128_000, thinkingModes: ['adaptive', 'off'] } },
    });
    expect(c.thinking).toEqual({ mode: 'off' });
    expect(c.capabilities?.source).toBe('config');
  });

  it('effort levels alone keep the thinking modes the model has (the built-in table), or all three for a model it lacks', () => {
    const entry = { contextWindow: 200_000, maxOutputTokens: 64_000, effortLevels: ['low', 'high'] };
    const builtIn = load({ model: 'claude-sonnet-4-5' }).capabilities;
    const own = load({ model: 'claude-sonnet-4-5', thinking: { mode: 'off' }, models: { 'claude-sonnet-4-5': entry } }).capabilities;
    expect(own).toMatchObject({ source: 'config', efforts: ['low', 'high'], types: builtIn?.types });
    expect(builtIn?.types).not.toContain('adaptive');
    const unknown = load({
      model: 'house-model',
      provider: 'anthropic',
      thinking: { mode: 'off' },
      models: { 'house-model': { ...entry, provider: 'anthropic' } },
    }).capabilities;
    // mutation: `base?.types ?? [...]` made `&&`: no modes at all for a model the table lacks, all three for one it has
    expect(unknown?.types).toEqual(['adaptive', 'enabled', 'disabled']);
  });

  it('a /model switch re-checks the setting for the new model', () => {
    const c = load({ model: 'claude-sonnet-4-5', thinking: { mode: 'enabled', budgetTokens: 4_000 } });
    expect(() => withModel(c, 'claude-opus-5-5')).toThrow('thinking.mode: "enabled" is not supported by claude-opus-5-5');
    expect(withModel(load({}), 'claude-sonnet-4-5').thinking).toBeUndefined();
  });
});
