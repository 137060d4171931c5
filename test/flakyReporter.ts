import type { Reporter, TestCase } from 'vitest/node';

/**
 * Names every test that passed only on its retry (the end-to-end projects retry once: a
 * machine loaded by four workers can delay a keypress or a request past a test's window). A
 * retry hides nothing here: the run ends with the list, each with its first attempt's error.
 */
export default class FlakyReporter implements Reporter {
  private readonly flaky: TestCase[] = [];

  onTestCaseResult(testCase: TestCase): void {
    if (testCase.diagnostic()?.flaky) this.flaky.push(testCase);
  }

  onTestRunEnd(): void {
    if (this.flaky.length === 0) return;
    const lines = [`\n${this.flaky.length} test(s) passed only on their retry:`];
    for (const test of this.flaky) {
      lines.push(`  ${test.project.name} ${test.module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`);
      const first = test.result().errors?.[0];
      if (first) lines.push(`    first attempt: ${first.message.split('\n')[0]}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
