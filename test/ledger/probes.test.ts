import { describe, expect, it } from 'vitest';
import { APPENDIX_TITLE, omittedAppendix, probeSummary, retryInstruction } from '../../src/ledger/probes.js';
import type { LedgerFacts } from '../../src/ledger/types.js';

const facts: LedgerFacts = {
  modified: ['src/retry-client.ts', 'docs/webhooks.md'],
  failures: ['npm run test:integration'],
  pendingRequest: 'Make the client log every retry with its attempt number.\nAnd keep it quiet otherwise.',
};
const SECTIONS = ['Goal', 'Next Steps'];

describe("the summary's probes", () => {
  it('pass a summary that has the sections and names every fact (any case, any Markdown)', () => {
    const good = [
      '## Goal',
      'Payments client.',
      '## Files and Symbols',
      '- `src/retry-client.ts`, docs/webhooks.md',
      '## Errors and Fixes',
      '- `npm run test:integration` fails: ECONNREFUSED',
      '## Pending User Requests',
      '> Make the client log every retry with its attempt number.',
      '## Next Steps:',
      '1. go',
    ].join('\n');
    expect(probeSummary(good, facts, SECTIONS)).toEqual({ probed: 6, missed: [] });
  });

  it('name each miss by kind: a section, a modified file, the pending request, a standing failure', () => {
    const r = probeSummary('## Goal\nwork on docs/webhooks.md', facts, SECTIONS);
    // mutation: a probe that checks nothing (or only headings) reports fewer misses
    expect(r.missed).toEqual([
      { kind: 'section', fact: 'Next Steps' },
      { kind: 'modified', fact: 'src/retry-client.ts' },
      { kind: 'request', fact: facts.pendingRequest },
      { kind: 'failure', fact: 'npm run test:integration' },
    ]);
    expect(retryInstruction(r.missed)).toContain('- the modified file: src/retry-client.ts');
    expect(retryInstruction(r.missed)).toContain("- the person's latest request, quoted verbatim: Make the client log every retry");
  });

  it('restore what is still missing in a deterministic appendix of the facts (sections cannot be restored)', () => {
    const { missed } = probeSummary('## Goal\nx', facts, SECTIONS);
    const appendix = omittedAppendix(missed);
    expect(appendix).toBe(
      [
        `## ${APPENDIX_TITLE}`,
        'Restored from the session log (the summary left these out):',
        '- Modified file: src/retry-client.ts',
        '- Modified file: docs/webhooks.md',
        "- The person's latest request:\n  > Make the client log every retry with its attempt number.\n  > And keep it quiet otherwise.",
        '- Failure still standing: npm run test:integration',
      ].join('\n'),
    );
    expect(omittedAppendix([{ kind: 'section', fact: 'Next Steps' }])).toBe('');
  });
});
