import type { Reporter, TestCase } from 'vitest/node';

/**
 * Ends a run with what a reader of its last lines needs (CI shows only the tail of a long log):
 * every test that failed, by name, and every test that passed only on its retry (the end-to-end
 * projects retry once: a machine loaded by four workers can delay a keypress or a request past
 * a test's window), with the start of its first attempt's error (a tmux test's screen included).
 * A retry hides nothing here.
 */
export default class FlakyReporter implements Reporter {
  private readonly flaky: TestCase[] = [];
  private readonly failed: TestCase[] = [];

  onTestCaseResult(testCase: TestCase): void {
    if (testCase.result().state === 'failed') this.failed.push(testCase);
    else if (testCase.diagnostic()?.flaky) this.flaky.push(testCase);
  }

  onTestRunEnd(): void {
    const name = (test: TestCase): string => `${test.project.name} ${test.module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`;
    const lines: string[] = [];
    if (this.failed.length > 0) lines.push(`\n${this.failed.length} test(s) failed:`, ...this.failed.map((test) => `  ${name(test)}`));
    if (this.flaky.length > 0) {
      lines.push(`\n${this.flaky.length} test(s) passed only on their retry:`);
      for (const test of this.flaky) {
        lines.push(`  ${name(test)}`);
        const firstError = test.result().errors?.[0]?.message.split('\n').slice(0, 40) ?? [];
        lines.push(...firstError.map((line) => `    ${line}`));
      }
    }
    if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
  }
}
