import { describe, expect, it } from 'vitest';
import { checkSummary } from '../../src/compaction/ledgerStep.js';
import type { SummaryResult } from '../../src/compaction/summarize.js';
import type { LedgerFacts } from '../../src/ledger/types.js';

const facts: LedgerFacts = { modified: ['src/a.ts', 'src/b.ts'], failures: [], pendingRequest: undefined };
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
const draft = (text: string): SummaryResult => ({ text, method: 'single', usage, requests: 1, verified: false });

async function check(first: string, second: string) {
  const progress: string[] = [];
  const r = await checkSummary(
    draft(first),
    facts,
    async () => draft(second),
    (s) => progress.push(s),
    new AbortController().signal,
  );
  return { ...r, progress };
}

describe("the summary's retry", () => {
  it('commits the second draft when it misses no more facts than the first (a tie goes to the retry)', async () => {
    // both drafts miss one modified file, each a different one
    const r = await check('## Goal\n## Next Steps\nsrc/a.ts (first draft)', '## Goal\n## Next Steps\nsrc/b.ts (second draft)');
    expect(r.probes.retried).toBe(true);
    expect(r.summary.text).toContain('(second draft)');
    expect(r.probes.omitted).toEqual([{ kind: 'modified', fact: 'src/a.ts' }]);
    expect(r.summary.requests).toBe(2);
  });

  it('keeps the first draft when the retry misses more, and appends what it still misses', async () => {
    const r = await check('## Goal\n## Next Steps\nsrc/a.ts (first draft)', '## Goal\n(second draft)');
    expect(r.summary.text).toContain('(first draft)');
    expect(r.summary.text).toContain('- Modified file: src/b.ts');
    expect(r.summary.requests).toBe(2);
  });
});
// Mutation checked: `second.missed.length <= first.missed.length` made `<` in ledgerStep.ts fails the
// first case (the first draft is committed on a tie).
