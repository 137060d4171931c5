import type { EventEmitter } from 'node:events';
import { useInput, useStdin } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkinToneQuestion } from '../../src/ui/emoji-probe.js';
import { useSkinToneReplies } from '../../src/ui/skin-tone-replies.js';
import { onSkinToneColumns, setSkinToneColumns } from '../../src/ui/stringWidth.js';

// The app's input passed to the start's question (skin-tone-replies.ts) and the width's listeners
// (stringWidth.ts): who is offered which event, and who stops listening when (pinsK).

afterEach(() => {
  cleanup();
  setSkinToneColumns(undefined);
});

/** A question that records what it is offered and counts as answered after `needed` offers. */
function question(needed = Number.POSITIVE_INFINITY): SkinToneQuestion & { offers: string[] } {
  const offers: string[] = [];
  return {
    offers,
    get answered() {
      return offers.length >= needed;
    },
    offer: (s) => void offers.push(s),
    handOver: () => {},
    cancel: () => {},
  };
}

let input: EventEmitter | undefined;
function Probe({ q }: { q: SkinToneQuestion | undefined }) {
  input = useStdin().internal_eventEmitter;
  // the app's keys take stdin in raw mode; without a reader Ink reads nothing
  useInput(() => {});
  useSkinToneReplies(q);
  return null;
}

describe("the app's input offered to the start's question", () => {
  it('offers each event to the question in the props, and no longer to the one it replaced', async () => {
    const a = question();
    const b = question();
    const app = render(<Probe q={a} />);
    const base = input!.listenerCount('input');
    app.stdin.write('\u001b[3;1R');
    await vi.waitFor(() => expect(a.offers).toEqual(['\u001b[3;1R']));
    app.rerender(<Probe q={b} />);
    app.stdin.write('x');
    await vi.waitFor(() => expect(b.offers).toEqual(['x']));
    // mutation: the effect's cleanup not removing its listener keeps offering to the old question
    expect(a.offers).toEqual(['\u001b[3;1R']);
    expect(input!.listenerCount('input')).toBe(base);
    app.unmount();
    expect(input!.listenerCount('input')).toBe(0);
  });

  it('stops listening once the question is answered, and never listens for an answered one or none', async () => {
    const q = question(2);
    const app = render(<Probe q={q} />);
    const listening = input!.listenerCount('input');
    app.stdin.write('\u001b[3;1R');
    app.stdin.write('\u001b[3;5R');
    await vi.waitFor(() => expect(q.answered).toBe(true));
    expect(input!.listenerCount('input')).toBe(listening - 1);
    app.rerender(<Probe q={undefined} />);
    expect(input!.listenerCount('input')).toBe(listening - 1);
    const done = question(0);
    app.rerender(<Probe q={done} />);
    app.stdin.write('y');
    expect(input!.listenerCount('input')).toBe(listening - 1);
    expect(done.offers).toEqual([]);
  });
});

describe("the learned width's listeners", () => {
  it('are called on a change only, and not after they unsubscribed', () => {
    let calls = 0;
    const off = onSkinToneColumns(() => {
      calls++;
    });
    setSkinToneColumns(4);
    expect(calls).toBe(1);
    setSkinToneColumns(4);
    expect(calls).toBe(1);
    setSkinToneColumns(2);
    expect(calls).toBe(2);
    off();
    // mutation: an unsubscribe that deletes nothing calls a listener whose box is gone
    setSkinToneColumns(undefined);
    expect(calls).toBe(2);
  });
});
