import type { Reporter, TestCase } from 'vitest/node';

/**
 * Ends a run with what a reader of its last lines needs (CI shows only the tail of a long log):
 * every test that failed, by name, and the passed tests that took over half of their time limit,
 * the next ones to fail on a slower machine. No project retries a failed test (a flaky test is a
 * defect to fix at its cause, not to retry).
 */
export default class EndOfRunReporter implements Reporter {
  private readonly tests: FinishedTest[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const result = testCase.result();
    if (result.state !== 'passed' && result.state !== 'failed') return;
    const diagnostic = testCase.diagnostic();
    this.tests.push({
      name: `${testCase.project.name} ${testCase.module.moduleId.replace(`${process.cwd()}/`, '')} > ${testCase.fullName}`,
      failed: result.state === 'failed',
      durationMs: diagnostic?.duration ?? 0,
      timeoutMs: testCase.options.timeout ?? 0,
    });
  }

  onTestRunEnd(): void {
    const lines = endOfRunLines(this.tests);
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  }
}

/** What the reporter keeps of a finished test. */
export interface FinishedTest {
  /** Project, file and full name. */
  name: string;
  failed: boolean;
  durationMs: number;
  /** Its time limit (0: none known). */
  timeoutMs: number;
}

/** How many of the tests nearest their limit are named. */
const NEAR_LIMIT_SHOWN = 10;

export function endOfRunLines(tests: readonly FinishedTest[]): string[] {
  const lines: string[] = [];
  const failed = tests.filter((t) => t.failed);
  if (failed.length > 0) lines.push(`\n${failed.length} test(s) failed:`, ...failed.map((t) => `  ${t.name}`));
  const share = (t: FinishedTest): number => t.durationMs / t.timeoutMs;
  const near = tests.filter((t) => !t.failed && t.timeoutMs > 0 && share(t) > 0.5).sort((a, b) => share(b) - share(a));
  if (near.length > 0) {
    lines.push(
      `\n${near.length} passed test(s) took over half of their time limit${near.length > NEAR_LIMIT_SHOWN ? ` (the ${NEAR_LIMIT_SHOWN} nearest)` : ''}:`,
    );
    for (const t of near.slice(0, NEAR_LIMIT_SHOWN))
      lines.push(`  ${Math.round(share(t) * 100)}% (${(t.durationMs / 1000).toFixed(1)} s of ${t.timeoutMs / 1000} s) ${t.name}`);
  }
  return lines;
}
