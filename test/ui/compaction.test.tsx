import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { CompactionRecord } from '../../src/history/compaction.js';
import { emptyUsage } from '../../src/llm/messages.js';
import { receiptText } from '../../src/ui/item-text.js';
import { FakeController, KEYS, msg, renderApp, text, waitFor } from './helpers.js';

afterEach(() => cleanup());

const record = (over: Partial<CompactionRecord> = {}): CompactionRecord => ({
  id: 'c1',
  trigger: 'auto',
  status: 'applied',
  tokensBefore: 171_200,
  tokensAfter: 19_800,
  archivedCount: 143,
  preservedCount: 12,
  summaryTokens: 2_100,
  durationMs: 6_100,
  model: 'claude-haiku-4-5',
  usage: emptyUsage(),
  createdAt: 1_700_000_000_000,
  ...over,
});

describe('compaction receipts', () => {
  it('applied', () => {
    expect(receiptText(record())).toBe('Compacted 171.2k → 19.8k tokens · archived 143 messages · kept 12 · 6.1s');
  });

  it('micro', () => {
    expect(receiptText(record({ trigger: 'micro', archivedCount: 6, tokensAfter: 150_000, durationMs: 40 }))).toBe(
      'Cleared 6 old tool outputs · 171.2k → 150.0k tokens · 40ms',
    );
  });

  it('failed: the reason and that nothing changed', () => {
    expect(receiptText(record({ status: 'failed', reason: 'summarizer: 529 overloaded' }))).toBe(
      'Compaction failed: summarizer: 529 overloaded — nothing was changed',
    );
  });

  it('ineffective: not applied, said so', () => {
    expect(receiptText(record({ status: 'ineffective', reason: 'the summary was larger than what it replaced' }))).toBe(
      'Compaction would not shrink the context (the summary was larger than what it replaced) — nothing was changed',
    );
  });
});

describe('compaction in the app', () => {
  it('shows the kind and stage while it runs, then the receipt', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'compaction_start', trigger: 'manual', focus: 'the parser', tokensBefore: 171_200 });
    await app.waitForText('Compacting 171.2k tokens…');
    c.emit({ type: 'compaction_progress', trigger: 'manual', stage: 'summarizing chunk 2 of 3' });
    await app.waitForText('Compacting 171.2k tokens · summarizing chunk 2 of 3…');
    c.emit({ type: 'compaction_end', record: record({ trigger: 'manual', focus: 'the parser', method: 'chunked' }) });
    await app.waitForText('✻ Compacted 171.2k → 19.8k tokens · archived 143 messages · kept 12 · 6.1s');
    expect(app.frame().replace(/\s+/g, ' ')).toContain('6.1s (manual, focus: the parser)');
    expect(app.frame()).toContain('summarized in chunks');
    await waitFor(() => !app.frame().includes('Compacting'), app.frame);
  });

  it('labels each trigger', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'compaction_start', trigger: 'reactive', tokensBefore: 210_000 });
    await app.waitForText('Context overflow — compacting 210.0k tokens');
    c.emit({ type: 'compaction_end', record: record({ trigger: 'reactive' }) }, { type: 'compaction_start', trigger: 'micro', tokensBefore: 100_000 });
    await app.waitForText('Clearing old tool outputs 100.0k tokens');
    c.emit({ type: 'compaction_end', record: record({ trigger: 'micro' }) }, { type: 'compaction_start', trigger: 'auto', tokensBefore: 100_000 });
    await app.waitForText('Auto-compacting 100.0k tokens');
  });

  it('Esc at rest stops a compaction written in the background, and interrupts nothing', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'compaction_start', trigger: 'auto', tokensBefore: 171_200, background: true });
    // mutation: the trigger's check flipped names an automatic one "compacting", a manual one "auto-compacting"
    await app.waitForText('✻ auto-compacting…');
    await app.press(KEYS.esc);
    await waitFor(() => c.compactionCancels === 1, app.frame);
    expect(c.interrupts).toBe(0);
  });
  // mutation: `c.background = false` for a background compaction_start (live-events.ts) fails it (Esc interrupts the "turn")

  it('a manual compaction in the background is named as such', async () => {
    const app = renderApp(new FakeController());
    app.controller.emit({ type: 'compaction_start', trigger: 'manual', tokensBefore: 171_200, background: true });
    await app.waitForText('✻ compacting…');
    expect(app.frame()).not.toContain('auto-compacting');
  });

  it('a failure says why and that nothing was changed', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'compaction_start', trigger: 'auto', tokensBefore: 171_200 });
    c.emit({ type: 'compaction_end', record: record({ status: 'failed', reason: 'the summarizer hit its context limit' }) });
    await app.waitForText('✗ Compaction failed: the summarizer hit its context limit — nothing was changed (auto)');
  });

  it('a skipped manual compaction is reported, a skipped automatic one is not', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit(
      { type: 'compaction_skipped', trigger: 'auto', reason: 'cooldown' },
      { type: 'compaction_skipped', trigger: 'manual', reason: 'nothing to compact yet' },
    );
    await app.waitForText('Compaction (manual) skipped: nothing to compact yet');
    expect(app.frame()).not.toContain('cooldown');
  });

  it('a checkpoint in a resumed history shows as such, with the receipt', async () => {
    const c = new FakeController();
    const checkpoint = msg('user', [text('# Checkpoint\n\nGoal: ship the parser\nDone: tokenizer\nNext: tests\nline\nline\nline\nline')], {
      kind: 'checkpoint',
      createdAt: 1_700_000_000_500,
    });
    c.transcript = [checkpoint, msg('user', [text('continue')], { createdAt: 1_700_000_001_000 })];
    const app = renderApp(c);
    await app.waitForText('⎔ Checkpoint — the conversation above this point was summarized');
    expect(app.frame()).toContain('Goal: ship the parser');
    expect(app.frame()).toContain('… 3 more lines in the summary');
    c.emit({ type: 'session', session: c.view, transcript: c.transcript, compactions: [record({ createdAt: 1_700_000_000_400 })] });
    await app.waitForText('✻ Compacted');
    const f = app.frame();
    const last = f.lastIndexOf('✻ Compacted');
    expect(last).toBeLessThan(f.lastIndexOf('⎔ Checkpoint'));
  });
});

describe('the compaction report', () => {
  const withReport = record({
    trigger: 'manual',
    report: {
      ledger: { tokens: 812, sections: [{ id: 'words', title: "The person's own words", shown: 9, listed: 2 }] },
      probes: {
        probed: 4,
        missed: [{ kind: 'modified', fact: 'src/retry-client.ts' }],
        retried: true,
        omitted: [{ kind: 'modified', fact: 'src/retry-client.ts' }],
      },
      archived: { first: 'm_first', last: 'm_last' },
    },
  });

  it('one line under the receipt: what the ledger carried, what the check found, how to undo; ctrl+o prints the whole report', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'compaction_end', record: withReport });
    await app.waitForText('ctrl+o for the report');
    const flat = app.frame().replace(/\s+/g, ' ');
    // mutation: a receipt without reportLine() shows none of this
    expect(flat).toContain(
      "ledger 812 tokens (the person's own words 11) · summary missed 1, asked again, 1 still missing, 1 restored by the appendix · /uncompact undoes it",
    );
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('Omitted by the summary, restored from the log by its appendix: src/retry-client.ts');
    const report = app.frame().replace(/\s+/g, ' ');
    expect(report).toContain('Archived: 143 messages (Recall ids m_first … m_last)');
    expect(report).toContain('Undo: /uncompact');
  });
});
