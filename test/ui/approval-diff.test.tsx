import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { computeDiff } from '../../src/tools/fileDiff.js';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { FakeController, renderAppSized } from './helpers.js';

// What is approved must be visible (issue 26, defect 3): long diff lines wrap in the approval box
// at any width, Ctrl+O prints the whole diff while the prompt is open, and a whole-file Write
// says what the new content is and scrolls with Home/End.

afterEach(() => cleanup());

const LONG = 'if (!config.apiKey) { console.error("no API key: set ANTHROPIC_API_KEY or add apiKey to .agentrc"); process.exit(1); }';
const before = 'const a = 1;\nconst b = 2;\n';
const after = `const a = 1;\n${LONG}\nconst b = 2;\n`;

const edit = (over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  toolName: 'Edit',
  toolUseId: 'tu-edit',
  input: { path: 'src/main.ts' },
  summary: 'src/main.ts',
  diff: computeDiff('src/main.ts', before, after),
  ...over,
});

function ask(req: ApprovalRequest, columns: number, rows = 30) {
  const c = new FakeController();
  const app = renderAppSized(c, columns, rows);
  const decisions: ApprovalDecision[] = [];
  c.emit(
    { type: 'turn_start', turnId: 't' },
    { type: 'tool_start', id: req.toolUseId, name: req.toolName, input: req.input, summary: req.summary },
    { type: 'approval', request: req, respond: (d) => decisions.push(d) },
  );
  return { c, app, decisions };
}

/** The frame's text with the box's borders and the line breaks taken out: what a reader sees, joined up. */
const joined = (frame: string): string => frame.replace(/[│╭╮╰╯─]/g, '').replace(/\s+/g, ' ');

describe('the edit approval diff', () => {
  for (const columns of [120, 60]) {
    it(`wraps a long new line at ${columns} columns instead of cutting it`, async () => {
      const { app } = ask(edit(), columns);
      await app.waitForText('Edit wants to change src/main.ts');
      const f = app.frame();
      const box = f.slice(f.indexOf('╭'), f.indexOf('╰'));
      expect(box).not.toContain('…');
      expect(joined(box)).toContain(LONG.replace(/\s+/g, ' '));
      // no line is wider than the terminal
      for (const line of f.split('\n')) expect([...line].length).toBeLessThanOrEqual(columns);
    });
  }

  it('Ctrl+O prints the whole diff above the open prompt, which stays open', async () => {
    const big = Array.from({ length: 80 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    const { app, decisions } = ask(edit({ diff: computeDiff('src/main.ts', undefined, big) }), 100, 24);
    await app.waitForText('Edit wants to create src/main.ts');
    expect(app.frame()).not.toContain('+ row 80');
    expect(app.frame()).toContain('ctrl+o: print the whole diff above');
    await app.press('\u000f');
    await app.waitForText('+ row 80');
    const f = app.frame();
    expect(f).toContain('Proposed, not applied yet: src/main.ts +80 −0');
    for (const n of [1, 40, 80]) expect(f).toContain(`+ row ${n}\n`);
    expect(f).toContain('Edit wants to create src/main.ts');
    expect(decisions).toEqual([]);
    // again: printed once, the second press says where it is (mutation: `e && 'item' in e` made `||` appends nothing and says nothing)
    await app.press('\u000f');
    await app.waitForText('The whole diff is printed above');
    expect(app.frame().split('Proposed, not applied yet').length).toBe(2);
  });

  it('a whole-file Write says what the new content is first, and Home/End jump through its diff', async () => {
    const content = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const req: ApprovalRequest = {
      toolName: 'Write',
      toolUseId: 'tu-write',
      input: { path: 'big.txt', content },
      summary: 'big.txt',
      diff: computeDiff('big.txt', 'old\n', content),
    };
    const { app, decisions } = ask(req, 100, 30);
    await app.waitForText('Write wants to change big.txt');
    expect(app.frame()).toContain(`Replaces the whole file with: 3,000 lines, ${(Buffer.byteLength(content) / 1024).toFixed(1)} KB`);
    expect(app.frame()).not.toContain('+ line 3000');
    await app.press('\u001b[F');
    await app.waitForText('+ line 3000');
    expect(app.frame()).not.toContain('+ line 1\n');
    await app.press('\u001b[H');
    await app.waitForText('- old');
    expect(app.frame()).not.toContain('+ line 3000');
    expect(decisions).toEqual([]);
  });
});
