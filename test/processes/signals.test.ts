import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { holdSigint, onTerminatingSignals, terminate, terminatingSignal } from '../../src/processes/signals.js';
import { inWorld, type World, world } from '../../src/runtime/world.js';
import { until, within } from '../support/deadline.js';

// What a terminating signal does, in a world of the test's own (its signals an emitter, its exit
// recorded, its state in its own slots): the end-to-end files send real ones (e2e/signals.test.ts).

function ownWorld(): { w: World; signals: EventEmitter; exits: number[] } {
  const signals = new EventEmitter();
  const exits: number[] = [];
  const w: World = Object.assign(Object.create(world()) as World, { signals, exit: (code: number) => void exits.push(code), slots: new Map() });
  return { w, signals, exits };
}

/**
 * The timers made while `run` runs, and a check that none of them still holds the event loop: each
 * cleared or unref'd. (A count of the worker's active timers would also see other files' timers end
 * meanwhile: the unit files share their worker.)
 */
function timersOf(run: () => void): { made: NodeJS.Timeout[]; holding: () => NodeJS.Timeout[] } {
  const made: NodeJS.Timeout[] = [];
  const cleared = new Set<unknown>();
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const set = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((...args: Parameters<typeof setTimeout>) => {
    const t = realSet(...args);
    made.push(t);
    return t;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation((t) => {
    cleared.add(t);
    realClear(t);
  });
  try {
    run();
  } finally {
    set.mockRestore();
  }
  return {
    made,
    holding: () => {
      vi.mocked(globalThis.clearTimeout).mockRestore();
      return made.filter((t) => !cleared.has(t) && t.hasRef());
    },
  };
}

describe('a terminating signal', () => {
  it('runs the shutdown and exits with 128 + its number; a second one exits at once', async () => {
    const { w, signals, exits } = ownWorld();
    const shut: string[] = [];
    let release = (): void => undefined;
    inWorld(w, () =>
      onTerminatingSignals(['SIGINT', 'SIGTERM'], (signal) => {
        shut.push(signal);
        return new Promise<void>((r) => (release = r));
      }),
    );
    const shutdownTimers = timersOf(() => signals.emit('SIGINT', 'SIGINT'));
    // mutation: the shutdown's deadline never made leaves nothing to check below
    expect(shutdownTimers.made).toHaveLength(1);
    expect(shut).toEqual(['SIGINT']);
    expect(inWorld(w, terminatingSignal)).toBe('SIGINT');
    // the shutdown still runs: a second signal ends it now, with the first one's code
    signals.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([130]);
    release();
    await until(() => exits.length === 2, 'the first signal ends the run');
    expect(exits).toEqual([130, 130]);
    // nothing of it keeps the event loop alive once it has ended
    expect(shutdownTimers.holding()).toEqual([]);
    // the process's own state is untouched
    expect(terminatingSignal()).toBeUndefined();
  });

  it('while an editor holds the terminal, SIGINT is its Ctrl+C, not the end; SIGTERM still ends the run', async () => {
    const { w, signals, exits } = ownWorld();
    const shut: string[] = [];
    const off = inWorld(w, () => onTerminatingSignals(['SIGINT', 'SIGTERM'], (signal) => void shut.push(signal)));
    inWorld(w, () => holdSigint(true));
    signals.emit('SIGINT', 'SIGINT');
    expect(shut).toEqual([]);
    // let go: the hold ends after a moment (the editor's own Ctrl+C is handled by then)
    inWorld(w, () => holdSigint(false));
    await until(() => {
      signals.emit('SIGINT', 'SIGINT');
      return shut.length > 0;
    }, 'SIGINT ends the run again once the hold is let go');
    expect(shut).toEqual(['SIGINT']);
    await until(() => exits.length === 1, 'the run exits');
    expect(exits).toEqual([130]);
    off();
    expect(signals.listenerCount('SIGINT')).toBe(0);
  });

  it('a shutdown that throws still ends the run', async () => {
    const { w, exits } = ownWorld();
    await within(
      inWorld(w, () =>
        terminate('SIGHUP', () => {
          throw new Error('broken');
        }),
      ),
      'terminate',
    );
    expect(exits).toEqual([129]);
  });
});
