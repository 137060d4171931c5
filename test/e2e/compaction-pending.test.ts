import { describe, expect, it } from 'vitest';
import type { RequestView } from '../fake-server/types.js';
import { isSummarizer, runAgent, useFakeServer, workspace } from './inprocess.js';

// Auto compaction fires before the model call of a new prompt. The summary must be written
// from the history before that prompt (a prompt in the summary request is what the model
// answers), and a reply that is no checkpoint must never replace the history.

const server = useFakeServer();
const model = 'small-16k';
const LONG = 'Prose about the project that fills the small window turn after turn. '.repeat(160);
const SUMMARY = '## Goal\nKeep talking about the project.\n## Next Steps\nAnswer the next question.';

const textOfView = (v: RequestView): string => v.messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []))).join('\n');
const isInPlace = (v: RequestView): boolean => isSummarizer(v) && !v.system.includes('context checkpoints');

/** Runs prompts ASK-0, ASK-1, … (each --continue) until a compaction was asked for; returns the number of the prompt it fired on. */
async function talkUntilCompaction(ws: ReturnType<typeof workspace>): Promise<number> {
  for (let i = 0; i < 10; i++) {
    const r = await runAgent(['-p', `ASK-${i}: tell me more`, '--model', model, ...(i ? ['--continue'] : [])], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    if (server.requests.some((q) => q.view && isSummarizer(q.view))) return i;
  }
  throw new Error('no compaction happened');
}

function setup(summarize: (v: RequestView, pending: () => string) => string): { ws: ReturnType<typeof workspace>; pending: () => string } {
  // the synchronous auto compaction, before the pending prompt's model call (the background one writes its summary on the same path: headSummary.ts)
  const ws = workspace({ models: { [model]: { contextWindow: 16_384, maxOutputTokens: 1024, provider: 'anthropic' } }, compaction: { background: false } });
  server.settings.contextWindow = { [model]: 16_384 };
  let asked = '';
  const pending = (): string => asked;
  server.respondWith((req) => {
    const v = req.view!;
    if (isSummarizer(v)) return { text: summarize(v, pending) };
    asked =
      /ASK-\d+/.exec(
        textOfView(v)
          .split('\n')
          .reverse()
          .find((l) => /ASK-\d+/.test(l)) ?? '',
      )?.[0] ?? '';
    return { text: `Answer to ${asked}. ${LONG}` };
  });
  return { ws, pending };
}

/** The turn request sent after the compaction (the first one that starts with a checkpoint). */
const afterCompaction = (): RequestView | undefined =>
  server.requests.map((q) => q.view).find((v): v is RequestView => v !== undefined && !isSummarizer(v) && /context checkpoint|## Goal/.test(textOfView(v)));

describe('auto compaction as a prompt arrives', () => {
  it('summarizes the history before the pending prompt, then sends the prompt', async () => {
    // like a model, the fake answers the newest question it sees instead of summarizing
    const { ws } = setup((v) => (pendingNow(v) ? 'Sure! The answer to your question is 42.' : SUMMARY));
    const fired = await talkUntilCompaction(ws);
    const summaries = server.requests.map((q) => q.view!).filter(isSummarizer);
    for (const s of summaries) expect(textOfView(s), 'the pending prompt is not in the summary request').not.toContain(`ASK-${fired}: tell me more`);
    expect(summaries.some(isInPlace), 'the in-place path was used').toBe(true);
    const next = afterCompaction();
    expect(next, 'a turn was sent after the compaction').toBeDefined();
    const text = textOfView(next!);
    expect(text).toContain('Keep talking about the project');
    expect(text).not.toContain('The answer to your question is 42');
    // the prompt itself went to the model after the checkpoint
    expect(text.lastIndexOf(`ASK-${fired}: tell me more`)).toBeGreaterThan(text.indexOf('Keep talking about the project'));
  });

  it('a reply that is no checkpoint is retried once through the transcript path', async () => {
    const { ws } = setup((v) => (isInPlace(v) ? 'Happy to help! What would you like to do next?' : SUMMARY));
    await talkUntilCompaction(ws);
    const summaries = server.requests.map((q) => q.view!).filter(isSummarizer);
    expect(summaries.map(isInPlace)).toEqual([true, false]);
    const text = textOfView(afterCompaction()!);
    expect(text).toContain('Keep talking about the project');
    expect(text).not.toContain('Happy to help');
  });

  it('when no reply is a checkpoint, nothing is replaced', async () => {
    const { ws } = setup(() => 'I cannot summarize that.');
    const fired = await talkUntilCompaction(ws);
    const summaries = server.requests.map((q) => q.view!).filter(isSummarizer);
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    const turns = server.requests.map((q) => q.view!).filter((v) => !isSummarizer(v));
    const last = textOfView(turns.at(-1)!);
    expect(last).not.toContain('I cannot summarize that');
    expect(last).toContain('ASK-0: tell me more'); // the history is all there
    expect(last).toContain(`ASK-${fired}: tell me more`);
  });
});

/** The in-place request carries the pending prompt when its last user text holds both the prompt and the instruction. */
function pendingNow(v: RequestView): boolean {
  const lastUser = [...v.messages].reverse().find((m) => m.role === 'user');
  const t = lastUser?.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n') ?? '';
  return /ASK-\d+: tell me more/.test(t) && t.includes('Compaction request');
}
