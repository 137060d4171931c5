// One background summary job (compaction/background.ts BackgroundJob): when it settles it tells the
// session, which may be at rest and waiting for that to swap the draft in. A summary that ends
// (written or failed) and one the deadline cancelled tell it; one the session cancelled does not
// (nothing is left to swap in, and the session already knows).
import { describe, expect, it } from 'vitest';
import { BackgroundJob, type JobStart } from '../../src/compaction/background.js';
import type { HeadDraft } from '../../src/compaction/headSummary.js';
import { bareRecord, CANCELLED, type Outcome } from '../../src/compaction/outcome.js';

const failedOutcome = (reason: string): Outcome => ({ record: bareRecord(0, 'auto', 0, 0, { status: 'failed', reason }) });

function start(run: JobStart['run'], settled: () => void): JobStart {
  return { trigger: 'auto', startedAt: 0, deadlineMs: 60_000, run, emit: () => undefined, settled };
}

/** A run that ends only when its signal aborts (at once when it was aborted before the run began). */
const hanging: JobStart['run'] = (signal) =>
  new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

describe('a background job', () => {
  it('tells the session when its summary ends normally', async () => {
    let settled = 0;
    const job = new BackgroundJob(
      start(
        async () => failedOutcome('the summarizer said no'),
        () => settled++,
      ),
      60_000,
    );
    await job.done;
    expect(settled).toBe(1);
    expect(job.settledNow()).toBe(true);
    expect(job.ended()?.record.reason).toBe('the summarizer said no');
    expect(job.ended()?.record).toEqual(expect.objectContaining({ status: 'failed', trigger: 'auto', tokensBefore: 0, tokensAfter: 0 }));
  });

  it('tells it when the deadline cancelled the summary, and names the deadline as the reason', async () => {
    let settled = 0;
    const job = new BackgroundJob(
      start(hanging, () => settled++),
      5,
    );
    await job.done;
    expect(job.timedOut).toBe(true);
    expect(settled).toBe(1);
    expect(job.ended()?.record.reason).toBe('the summarizer did not answer within 0 s: cancelled, tried again later');
  });

  it('does not tell it when the session cancelled the job', async () => {
    let settled = 0;
    const job = new BackgroundJob(
      start(hanging, () => settled++),
      60_000,
    );
    job.cancel();
    await job.done;
    expect(settled).toBe(0);
    expect(job.timedOut).toBe(false);
    expect(job.ended()?.record.reason).toBe(CANCELLED);
    // a job that threw (here, its cancel) records no token count: it never measured one
    expect(job.ended()?.record).toEqual(expect.objectContaining({ status: 'failed', trigger: 'auto', tokensBefore: 0, tokensAfter: 0 }));
  });

  it('shows its trigger, when it started and, once its draft is written, that it is ready', async () => {
    let finish: (d: HeadDraft) => void = () => undefined;
    const run: JobStart['run'] = () => new Promise<HeadDraft>((r) => (finish = r));
    const job = new BackgroundJob({ ...start(run, () => undefined), trigger: 'manual', startedAt: 1_234 }, 60_000);
    expect(job.view()).toEqual({ trigger: 'manual', startedAt: 1_234, ready: false });
    await new Promise((r) => setImmediate(r));
    finish({ snapshot: [] } as unknown as HeadDraft);
    await job.done;
    expect(job.view()).toEqual({ trigger: 'manual', startedAt: 1_234, ready: true });
    expect(job.ended()).toBeUndefined();
  });
});
