import { appendFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, type TestContext } from 'vitest';
import { anthropicModelsAsked } from '../fake-server/server.js';

// The e2e files run in two regimes: first on claude-sonnet-5-5 (adaptive thinking), then again
// with AGENT_E2E_ANTHROPIC_MODEL=claude-sonnet-4-5 (a 4.5-era model, thinking enabled with a
// budget). The second regime changes two things only: the harness's MODEL.anthropic (the model a
// run gets when the test names none, and what tests pass where they mean "the suite's model"),
// and the thinking settings the harness writes for claude-sonnet-4-5 into a suite workspace's
// .agentrc. A test that uses neither (an OpenAI run, a model of its own) sends the same bytes in
// both regimes; it is marked regime-free (describeRegimeFree, itRegimeFree, and the OpenAI half
// of describeEachProvider / itEachProvider) and runs once. The mark is checked, not trusted: in
// the first regime a regime-free test fails if it read MODEL.anthropic, or asked the fake server
// for claude-sonnet-4-5 after making a suite workspace (what its file did outside any test
// counts for every test in it).

export const FIRST_REGIME_MODEL = 'claude-sonnet-5-5';
/** The model of the second regime whose thinking the harness sets in a suite workspace. */
export const SECOND_REGIME_MODEL = 'claude-sonnet-4-5';
export const SECOND_REGIME = process.env.AGENT_E2E_ANTHROPIC_MODEL !== undefined;
/** The Anthropic model of this regime (the harness's MODEL.anthropic reads it through noteRegimeModelRead). */
export const REGIME_MODEL = process.env.AGENT_E2E_ANTHROPIC_MODEL ?? FIRST_REGIME_MODEL;

export type ProviderKind = 'anthropic' | 'openai';

/**
 * Tests are told apart from the file around them (collection, hooks of its own): what the file
 * does outside them counts for every test. testSetup.ts (the setup file of the e2e projects)
 * says when a test runs: expect's currentTestName is not cleared between the files a worker
 * runs, so the next file's collection would pass for the last test of the one before.
 */
let inTest = false;
export function noteTestRunning(running: boolean): void {
  inTest = running;
}
/**
 * The file running. The e2e files of a worker share this module (isolate: false), so what a file
 * did outside its tests is kept by file: it must not count against the next file's tests.
 */
const currentFile = (): string => expect.getState().testPath ?? '';

/** Workspaces that got (or in the second regime would get) the suite's thinking for claude-sonnet-4-5: made in tests, and the files that made one outside them. */
let suiteWorkspaces = 0;
const suiteWorkspaceOutsideTests = new Set<string>();
export function noteSuiteWorkspace(): void {
  if (inTest) suiteWorkspaces++;
  else suiteWorkspaceOutsideTests.add(currentFile());
}

/** Reads of MODEL.anthropic in tests, and the files that read it outside them. */
let modelReads = 0;
const modelReadOutsideTests = new Set<string>();
export function noteRegimeModelRead(): void {
  if (inTest) modelReads++;
  else modelReadOutsideTests.add(currentFile());
}

/** Where a test stands when it starts: what it does after this is its own. */
export interface RegimeMark {
  asked: number;
  reads: number;
  suites: number;
}
export const regimeMark = (): RegimeMark => ({ asked: anthropicModelsAsked.length, reads: modelReads, suites: suiteWorkspaces });

/** What the test since `mark` used that the second regime would change (empty: regime-free); `file` is the test's file. */
export function regimeUseSince(mark: RegimeMark, file = currentFile()): string[] {
  const uses: string[] = [];
  if (modelReadOutsideTests.has(file) || modelReads > mark.reads) uses.push(`MODEL.anthropic (${REGIME_MODEL})`);
  const suite = suiteWorkspaceOutsideTests.has(file) || suiteWorkspaces > mark.suites;
  if (suite && anthropicModelsAsked.slice(mark.asked).includes(SECOND_REGIME_MODEL))
    uses.push(`${SECOND_REGIME_MODEL} in a workspace with the suite's thinking`);
  return uses;
}

/** Throws when the test named `name`, marked regime-free, used since `mark` what the second regime changes. */
export function checkedRegimeFree(name: string, mark: RegimeMark): void {
  const uses = regimeUseSince(mark);
  if (uses.length > 0)
    throw new Error(
      `"${name}" is marked regime-free (it runs once, not again with AGENT_E2E_ANTHROPIC_MODEL) but used ${uses.join(' and ')}, which the second regime changes: declare it with describe/it instead`,
    );
}

/**
 * The other half of the check, in the second regime: a test that runs again there (not marked
 * regime-free) must have used what the regime changes, else its second run sent the first's bytes
 * and could not fail differently: it fails, naming the mark to use. testSetup.ts calls it after
 * each test of the second regime.
 */
export function checkedRegimeBound(name: string, mark: RegimeMark): void {
  if (!SECOND_REGIME || regimeUseSince(mark).length > 0) return;
  throw new Error(
    `"${name}" ran again in the second regime (AGENT_E2E_ANTHROPIC_MODEL=${REGIME_MODEL}) but used neither MODEL.anthropic nor ${SECOND_REGIME_MODEL} in a workspace with the suite's thinking, so it sent what it sent in the first: declare it with describeRegimeFree/itRegimeFree, or take the file's "// Both regimes:" line out when none of its tests needs the second run`,
  );
}

/** A describe block whose tests the second regime would not change: run in the first regime (checked), skipped in the second. */
export function describeRegimeFree(title: string, body: () => void): void {
  if (SECOND_REGIME) {
    describe.skip(title, body);
    return;
  }
  describe(title, () => {
    let mark = regimeMark();
    beforeEach(() => {
      mark = regimeMark();
    });
    afterEach((ctx) => checkedRegimeFree(ctx.task.name, mark));
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
      const mark = regimeMark();
      await body(ctx);
      checkedRegimeFree(title, mark);
    },
    timeout,
  );
}

/** describe for a block that asks for Anthropic models, describeRegimeFree for an OpenAI one. */
export const describeFor = (provider: ProviderKind): ((title: string, body: () => void) => void) => (provider === 'openai' ? describeRegimeFree : describe);
/** it for a test that asks for Anthropic models, itRegimeFree for an OpenAI one. */
const itFor = (provider: ProviderKind): typeof itRegimeFree => (provider === 'openai' ? itRegimeFree : it);

const PROVIDERS: readonly ProviderKind[] = ['anthropic', 'openai'];
const titled = (title: string, provider: ProviderKind): string => title.replaceAll('%s', provider);

/** describe.each over both providers; the OpenAI block is regime-free (its runs never reach the Anthropic model the regimes change). */
export function describeEachProvider(title: string, body: (provider: ProviderKind) => void): void {
  for (const provider of PROVIDERS) describeFor(provider)(titled(title, provider), () => body(provider));
}

/** it.each over both providers; the OpenAI test is regime-free. */
export function itEachProvider(title: string, body: (provider: ProviderKind) => Promise<void> | void, timeout?: number): void {
  for (const provider of PROVIDERS) itFor(provider)(titled(title, provider), () => body(provider), timeout);
}

/**
 * AGENT_E2E_REGIME_REPORT=<file>: every test of the first regime appends a line saying whether it
 * used what the second regime changes ("regime") or not ("free"): a way to find tests to
 * mark regime-free, each then checked by the mark itself.
 */
const REPORT = process.env.AGENT_E2E_REGIME_REPORT;
if (REPORT && !SECOND_REGIME) {
  let mark = regimeMark();
  beforeEach(() => {
    mark = regimeMark();
  });
  afterEach((ctx) => {
    const uses = regimeUseSince(mark);
    appendFileSync(REPORT, `${ctx.task.file.name}\t${ctx.task.fullName}\t${uses.length > 0 ? `regime ${uses.join('; ')}` : 'free'}\n`);
  });
}
