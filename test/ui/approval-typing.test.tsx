import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { computeDiff } from '../../src/tools/fileDiff.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { FakeController, KEYS, renderApp, tick } from './helpers.js';

// Typing into an approval prompt is not an answer (issue 26): the text is shown as ignored and the
// Enter that follows it dismisses that note instead of applying the edit.

afterEach(() => cleanup());

const req: ApprovalRequest = {
  toolName: 'Edit',
  toolUseId: 'tu-edit',
  input: { path: 'a.ts' },
  summary: 'a.ts',
  diff: computeDiff('a.ts', 'a\n', 'b\n'),
};

describe('text typed at the approval prompt', () => {
  it('is shown as ignored, and the next Enter does not apply the edit', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    const decisions: ApprovalDecision[] = [];
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'approval', request: req, respond: (d) => decisions.push(d) });
    await app.waitForText('Edit wants to change a.ts');
    await app.press(...'also fix the tests'.split(''));
    await app.waitForText('Typed text is not an answer and was ignored: “also fix the tests”');
    await app.press(KEYS.enter);
    await tick(50);
    expect(decisions).toEqual([]);
    expect(app.frame()).toContain('Edit wants to change a.ts');
    expect(app.frame()).not.toContain('Typed text is not an answer');
    await app.press(KEYS.enter);
    await tick(50);
    expect(decisions).toEqual([{ kind: 'allow_once' }]);
    // none of it reached the prompt
    expect(app.frame()).not.toContain('also fix');
  });
});
