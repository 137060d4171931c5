import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, withModel, type Config } from '../../src/config/config.js';
import { lifecycleNotice, limitsOf, outputLimitWarning } from '../../src/config/learnedModel.js';
import type { ModelDescription, Provider } from '../../src/llm/provider.js';
import { withLearnedModel } from '../../src/modelLearning.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../tempDirs.js';

// What the provider's models endpoint says of a model beyond thinking: its limits (over the
// built-in table, never over .agentrc) and its lifecycle (a deprecated model is told once).

function load(rc: Record<string, unknown>, model = 'claude-sonnet-4-5'): Config {
  const root = tempDir('agent-learned-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  writeFileSync(join(cwd, '.agentrc'), JSON.stringify(rc));
  return loadConfig({ cwd, home, env: { ANTHROPIC_API_KEY: 'x', AGENT_DB: join(root, 'agent.db') }, flags: { model } });
}

const SMALL: ModelDescription = { thinkingTypes: ['enabled', 'disabled'], efforts: [], maxInputTokens: 50_000, maxOutputTokens: 8_000, lifecycle: 'active' };
const DEPRECATED: ModelDescription = { ...SMALL, lifecycle: 'deprecated', deprecatedAt: '2026-09-01T00:00:00Z', retiresAt: '2027-03-01T00:00:00Z' };

/** A provider whose models endpoint answers `d` (the only part start-up calls). */
function describing(d: ModelDescription): Provider & { asked: number } {
  const p = {
    name: 'anthropic' as const,
    asked: 0,
    stream: () => {
      throw new Error('no request expected');
    },
    describeModel: async () => {
      p.asked++;
      return d;
    },
  };
  return p;
}

/** A provider whose models endpoint answers only when the test calls `answer`. */
function describingLater(): { slow: Provider; answer: (d: ModelDescription) => void } {
  let answer: (d: ModelDescription) => void = () => {};
  const slow: Provider = {
    name: 'anthropic',
    stream: () => {
      throw new Error('no request expected');
    },
    describeModel: () => new Promise((r) => (answer = r)),
  };
  return { slow, answer: (d) => answer(d) };
}

describe('the limits a provider states', () => {
  it('are the window and the output cap where .agentrc does not describe the model', () => {
    const c = withModel(load({}), 'claude-sonnet-4-5', { limits: limitsOf(SMALL) });
    expect(c.model).toMatchObject({ contextWindow: 50_000, maxOutputTokens: 8_000, source: 'provider' });
    expect(c.maxOutputTokens).toBe(8_000);
    // a /model switch away and back keeps them
    const back = withModel(withModel(c, 'claude-opus-4-8'), 'claude-sonnet-4-5');
    expect(back.model.contextWindow).toBe(50_000);
  });

  it('never override a window set in .agentrc', () => {
    const c = withModel(load({ models: { 'claude-sonnet-4-5': { contextWindow: 150_000, maxOutputTokens: 20_000 } } }), 'claude-sonnet-4-5', {
      limits: limitsOf(SMALL),
    });
    expect(c.model).toMatchObject({ contextWindow: 150_000, maxOutputTokens: 20_000, source: 'config' });
  });

  it('cap maxOutputTokens, with a warning naming the setting and the limit', () => {
    const c = withModel(load({ maxOutputTokens: 20_000 }), 'claude-sonnet-4-5', { limits: limitsOf(SMALL) });
    expect(c.maxOutputTokens).toBe(8_000);
    expect(outputLimitWarning(c.model, c.maxOutputSetting)).toBe(
      "maxOutputTokens: 20,000 is above claude-sonnet-4-5's output limit of 8,000 tokens (as its provider describes it); replies are capped at 8,000.",
    );
    expect(outputLimitWarning(c.model, 8_000)).toBeUndefined();
  });

  it('refuse a thinking budget that the stated output limit no longer leaves room for, naming the budget and the description', async () => {
    const config = load({ thinking: { mode: 'enabled', budgetTokens: 10_000 } });
    const store = openStore(config.dbPath);
    try {
      store.saveModelCapabilities('anthropic', 'claude-sonnet-4-5', JSON.stringify(SMALL), Date.now());
      await expect(withLearnedModel(store, config, describing(SMALL), () => {})).rejects.toThrow(
        /thinking\.budgetTokens: 10000 is not below the output limit of 8000 tokens .*as anthropic described the model on \d{4}-\d{2}-\d{2}/,
      );
    } finally {
      store.close();
    }
  });
});

describe('a deprecated model', () => {
  it('is described with its dates, and an active one not at all', () => {
    expect(lifecycleNotice('claude-sonnet-4-5', 'anthropic', DEPRECATED)).toBe(
      'claude-sonnet-4-5 is deprecated since 2026-09-01 (anthropic): it retires on 2027-03-01, after which requests naming it fail. Choose another model with /model or --model.',
    );
    expect(lifecycleNotice('claude-sonnet-4-5', 'anthropic', { ...DEPRECATED, lifecycle: 'retired' })).toContain('is retired since 2027-03-01');
    expect(lifecycleNotice('claude-sonnet-4-5', 'anthropic', SMALL)).toBeUndefined();
  });

  it('is told at start where the first start waits for it (a maxOutputTokens set), read from the database after, never told twice', async () => {
    const config = load({ maxOutputTokens: 8_000 });
    const store = openStore(config.dbPath);
    try {
      const told: string[] = [];
      const p = describing(DEPRECATED);
      const first = await withLearnedModel(store, config, p, (m) => told.push(m));
      expect(p.asked).toBe(1);
      expect(first.warnings.filter((w) => w.includes('claude-sonnet-4-5 is deprecated since 2026-09-01'))).toHaveLength(1);
      expect(first.model.contextWindow).toBe(50_000);
      const next = await withLearnedModel(store, config, p, (m) => told.push(m));
      expect(p.asked).toBe(1);
      expect(next.warnings.filter((w) => w.includes('is deprecated'))).toHaveLength(1);
      expect(next.model.contextWindow).toBe(50_000);
      expect(told).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('is told when a first description comes after the wait, and then serves the next start', async () => {
    const config = load({ maxOutputTokens: 8_000 });
    const store = openStore(config.dbPath);
    try {
      const told: string[] = [];
      const { slow, answer } = describingLater();
      const first = await withLearnedModel(store, config, slow, (m) => told.push(m), 20);
      // the start went on with the built-in table
      expect(first.model).toMatchObject({ contextWindow: 200_000, source: 'builtin' });
      expect(first.warnings.filter((w) => w.includes('deprecated'))).toEqual([]);
      answer(DEPRECATED);
      await new Promise((r) => setTimeout(r, 10));
      expect(told).toEqual([expect.stringContaining('claude-sonnet-4-5 is deprecated since 2026-09-01')]);
      const next = await withLearnedModel(store, config, slow, (m) => told.push(m), 20);
      expect(next.model.contextWindow).toBe(50_000);
      expect(told).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('does not hold up the first start of a model the table knows, with nothing configured that its limit could refuse', async () => {
    const config = load({});
    const store = openStore(config.dbPath);
    try {
      const told: string[] = [];
      const { slow, answer } = describingLater();
      // an hour's wait would time the test out
      const first = await withLearnedModel(store, config, slow, (m) => told.push(m), 3_600_000);
      expect(first.model.source).toBe('builtin');
      answer(DEPRECATED);
      await new Promise((r) => setTimeout(r, 10));
      expect(told).toEqual([expect.stringContaining('is deprecated')]);
    } finally {
      store.close();
    }
  });

  it('does not hold a start offline: a failed description leaves the built-in table', async () => {
    const config = load({ maxOutputTokens: 8_000 });
    const store = openStore(config.dbPath);
    try {
      const offline: Provider = {
        name: 'anthropic',
        stream: () => {
          throw new Error('no request expected');
        },
        describeModel: () => Promise.reject(new Error('ECONNREFUSED')),
      };
      const c = await withLearnedModel(store, config, offline, () => {});
      expect(c.model).toMatchObject({ contextWindow: 200_000, source: 'builtin' });
      expect(store.modelCapabilities('anthropic', 'claude-sonnet-4-5')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
