import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attachBudget, attachMentions, type MentionSpill } from '../../src/session/mentions.js';
import type { FullOutput } from '../../src/tools/spill.js';
import { createTools } from '../../src/tools/registry.js';
import type { SpillSink } from '../../src/tools/types.js';
import { tempDir } from '../tempDirs.js';

/** The text of an attachment block (an image block has none). */
const textAt = (blocks: readonly { type: string; text?: string }[], i: number): string => blocks[i]?.text ?? '';

// A mentioned file over the message's attachment budget goes through the spill rule: archived
// whole, its preview and handle attached (issue 26, defect 7; the rule of issue 21).

const tools = createTools({ bash: { timeoutMs: 10_000, maxTimeoutMs: 10_000, maxOutputChars: 10_000 } });

function sink(): { sink: SpillSink; archived: Array<{ toolUseId: string; summary: string; full: FullOutput }> } {
  const archived: Array<{ toolUseId: string; summary: string; full: FullOutput }> = [];
  return {
    archived,
    sink: {
      thresholdFor: () => 2_000,
      archive: (o) => {
        archived.push(o);
        return `o${archived.length}`;
      },
    },
  };
}

function files(): string {
  const dir = tempDir('agent-mention-spill-');
  // about 1,500 tokens each (4 characters a token), and one of 6,000 lines (about 40,000 tokens)
  writeFileSync(join(dir, 'a.txt'), `${Array.from({ length: 60 }, () => 'a'.repeat(99)).join('\n')}\n`);
  writeFileSync(join(dir, 'b.txt'), `${Array.from({ length: 60 }, () => 'b'.repeat(99)).join('\n')}\n`);
  writeFileSync(join(dir, 'big.txt'), `${Array.from({ length: 6_000 }, (_, i) => `row ${i + 1} ${'x'.repeat(12)}`).join('\n')}\n`);
  return dir;
}

describe('a mention over the attachment budget', () => {
  it('is archived whole (every line, beyond FileRead’s own cuts) and attached as a preview naming its handle, with the last line', async () => {
    const dir = files();
    const s = sink();
    const spill: MentionSpill = { sink: s.sink, budgetTokens: 25_000, messageId: 'm1' };
    const r = await attachMentions('look at @big.txt', tools, dir, new AbortController().signal, undefined, spill);
    expect(s.archived).toHaveLength(1);
    expect(s.archived[0]!.toolUseId).toBe('m1@big.txt');
    expect(s.archived[0]!.summary).toBe('@big.txt');
    expect(s.archived[0]!.full.totalLines).toBe(6_000);
    expect(s.archived[0]!.full.text).toContain(`  6000\trow 6000 ${'x'.repeat(12)}`);
    const text = textAt(r.blocks, 0);
    expect(text).toMatch(/^\[Attached by the user with @big\.txt: too large to attach whole, archived as o1\]\n\[output o1: 6,000 lines, /);
    expect(text.trimEnd().endsWith(`row 6000 ${'x'.repeat(12)}`)).toBe(true);
    expect(text.length).toBeLessThan(6_000);
    expect(r.attached).toEqual(['big.txt']);
  });

  it('shares the budget between the mentions of one message: the first fits whole, the second is spilled', async () => {
    const dir = files();
    const s = sink();
    const r = await attachMentions('@a.txt and @b.txt', tools, dir, new AbortController().signal, undefined, {
      sink: s.sink,
      budgetTokens: 2_000,
      messageId: 'm2',
    });
    expect(textAt(r.blocks, 0)).toMatch(/^\[Attached by the user with @a\.txt: read with FileRead\]\n {5}1\ta{99}\n/);
    expect(
      textAt(r.blocks, 0)
        .trimEnd()
        .endsWith(`    60\t${'a'.repeat(99)}`),
    ).toBe(true);
    expect(textAt(r.blocks, 1)).toMatch(/^\[Attached by the user with @b\.txt: too large to attach whole, archived as o1\]/);
    expect(s.archived.map((a) => a.summary)).toEqual(['@b.txt']);
  });

  it('without a spill sink (a read-only store) attaches as FileRead reads it; the budget is a quarter of the window, at most 25,000', async () => {
    const dir = files();
    const r = await attachMentions('@big.txt', tools, dir, new AbortController().signal);
    expect(textAt(r.blocks, 0)).toContain('Read more with offset=2001');
    expect(attachBudget(16_000)).toBe(4_000);
    expect(attachBudget(1_000_000)).toBe(25_000);
  });
});
