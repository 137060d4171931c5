import { appendFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, it, type TestContext } from 'vitest';
import { anthropicModelsAsked } from '../fake-server/server.js';

// The e2e files run in two regimes: first on claude-sonnet-5-5 (adaptive thinking), then again
// with AGENT_E2E_ANTHROPIC_MODEL=claude-sonnet-4-5 (a 4.5-era model, thinking enabled with a
// budget). The second regime changes two things only: the Anthropic model a run gets when the
// test names none (the harness's MODEL.anthropic), and the thinking settings the harness writes
// for claude-sonnet-4-5 into a suite workspace's .agentrc. A test whose runs ask for neither
// model would send the same bytes in both regimes; it is marked regime-free (describeRegimeFree,
// itRegimeFree, and the OpenAI half of describeEachProvider / itEachProvider) and runs once.
// The mark is checked, not trusted: in the first regime, a regime-free test that asks the fake
// server for either model fails, naming what it asked for.

export const FIRST_REGIME_MODEL = 'claude-sonnet-5-5';
/** The model of the second regime whose thinking the harness sets in a suite workspace. */
export const SECOND_REGIME_MODEL = 'claude-sonnet-4-5';
export const SECOND_REGIME = process.env.AGENT_E2E_ANTHROPIC_MODEL !== undefined;

export type ProviderKind = 'anthropic' | 'openai';

/** Set once a workspace in this file got (or in the second regime would get) the suite's thinking for claude-sonnet-4-5. */
let suiteWorkspaceMade = false;
export function noteSuiteWorkspace(): void {
  suiteWorkspaceMade = true;
}

/** What the test since `from` asked for that the second regime would change (empty: regime-free). */
function regimeModelsSince(from: number): string[] {
  const asked = new Set(anthropicModelsAsked.slice(from));
  return [...asked].filter((m) => m === FIRST_REGIME_MODEL || (m === SECOND_REGIME_MODEL && suiteWorkspaceMade));
}

/** Throws when the test named `name`, marked regime-free, asked since `from` for a model the second regime changes. */
export function checkedRegimeFree(name: string, from: number): void {
  const models = regimeModelsSince(from);
  if (models.length > 0)
    throw new Error(
      `"${name}" is marked regime-free (it runs once, not again with AGENT_E2E_ANTHROPIC_MODEL) but asked the fake server for ${models.join(', ')}, which the second regime changes: declare it with describe/it instead`,
    );
}

/** A describe block whose tests the second regime would not change: run in the first regime (checked), skipped in the second. */
export function describeRegimeFree(title: string, body: () => void): void {
  if (SECOND_REGIME) {
    describe.skip(title, body);
    return;
  }
  describe(title, () => {
    let from = 0;
    beforeEach(() => {
      from = anthropicModelsAsked.length;
    });
    afterEach((ctx) => checkedRegimeFree(ctx.task.name, from));
    body();
  });
}

/** One regime-free test: run in the first regime (checked), skipped in the second. */
export function itRegimeFree(title: string, body: (ctx: TestContext) => Promise<void> | void, timeout?: number): void {
  if (SECOND_REGIME) {
    it.skip(title, body, timeout);
    return;
  }
  it(
    title,
    async (ctx) => {
      const from = anthropicModelsAsked.length;
      await body(ctx);
      checkedRegimeFree(title, from);
    },
    timeout,
  );
}

/** describe for a block that asks for Anthropic models, describeRegimeFree for an OpenAI one. */
export const describeFor = (provider: ProviderKind): ((title: string, body: () => void) => void) => (provider === 'openai' ? describeRegimeFree : describe);

const PROVIDERS: readonly ProviderKind[] = ['anthropic', 'openai'];
const titled = (title: string, provider: ProviderKind): string => title.replaceAll('%s', provider);

/** describe.each over both providers; the OpenAI block is regime-free (its runs never reach the Anthropic model the regimes change). */
export function describeEachProvider(title: string, body: (provider: ProviderKind) => void): void {
  for (const provider of PROVIDERS)
    if (provider === 'openai') describeRegimeFree(titled(title, provider), () => body(provider));
    else describe(titled(title, provider), () => body(provider));
}

/** it.each over both providers; the OpenAI test is regime-free. */
export function itEachProvider(title: string, body: (provider: ProviderKind) => Promise<void> | void, timeout?: number): void {
  for (const provider of PROVIDERS)
    if (provider === 'openai') itRegimeFree(titled(title, provider), () => body(provider), timeout);
    else it(titled(title, provider), () => body(provider), timeout);
}

/**
 * AGENT_E2E_REGIME_REPORT=<file>: every test of the first regime appends a line saying whether it
 * asked for a model the second regime changes ("regime") or not ("free"): a way to find tests to
 * mark regime-free, each then checked by the mark itself.
 */
const REPORT = process.env.AGENT_E2E_REGIME_REPORT;
if (REPORT && !SECOND_REGIME) {
  let from = 0;
  beforeEach(() => {
    from = anthropicModelsAsked.length;
  });
  afterEach((ctx) => {
    const models = regimeModelsSince(from);
    appendFileSync(REPORT, `${ctx.task.file.name}\t${ctx.task.fullName}\t${models.length > 0 ? `regime ${models.join(',')}` : 'free'}\n`);
  });
}
