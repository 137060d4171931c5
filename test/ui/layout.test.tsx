import { afterEach, describe, expect, it } from 'vitest';
import stripAnsi from 'strip-ansi';
import { liveToolRows, promptMaxLines, promptViewport, streamRowsFor } from '../../src/ui/layout-budget.js';
import { FakeController, KEYS, msg, renderAppSized, text, usage, waitFor } from './helpers.js';

let unmount: (() => void) | undefined;
afterEach(() => unmount?.());

const longLine = 'This sentence is deliberately long so that it has to wrap several times on a narrow terminal window. '.repeat(3);

function scenario(): FakeController {
  const c = new FakeController();
  c.usageView = usage({ state: 'warning', percentLeft: 15, notice: 'Auto compaction paused: it failed 3 times in a row' });
  c.transcript = [
    msg('user', [text(longLine)]),
    msg('assistant', [
      text(`## Heading\n\n${longLine}\n\n- a list item that is also rather long, longer than sixty columns for sure\n\n\`\`\`\n${'x'.repeat(90)}\n\`\`\``),
    ]),
    msg('assistant', [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: `grep -rn "something" ${'src/very/deep/path/'.repeat(4)}` } }]),
    msg('user', [{ type: 'tool_result', toolUseId: 't', content: `${'y'.repeat(200)}\nsecond`, isError: false }]),
  ];
  return c;
}

const widest = (frame: string): number =>
  Math.max(
    ...stripAnsi(frame)
      .split('\n')
      .map((l) => [...l].length),
  );

describe('narrow terminals and resizing', () => {
  it('nothing is wider than 60 columns', async () => {
    const c = scenario();
    const app = renderAppSized(c, 60, 30);
    unmount = app.unmount;
    await app.waitForText('context left');
    c.emit(
      { type: 'turn_start', turnId: 't' },
      { type: 'text_delta', text: longLine },
      { type: 'tool_start', id: 'r', name: 'Bash', input: {}, summary: longLine },
    );
    await app.waitForText('esc to interrupt');
    expect(widest(app.rawFrame())).toBeLessThanOrEqual(60);
    expect(app.frame()).toContain('15% context left');
    expect(app.frame()).toContain('Auto compaction paused');
  });

  it('re-lays out the live region on resize', async () => {
    const c = scenario();
    const app = renderAppSized(c, 100, 30);
    unmount = app.unmount;
    await app.waitForText('context left');
    const border = (): number =>
      [
        ...(app
          .frame()
          .split('\n')
          .find((l) => l.startsWith('╭')) ?? ''),
      ].length;
    expect(border()).toBe(100);
    app.sized.resize(50);
    await waitFor(() => border() === 50, app.frame);
    expect(widest(app.stdout.frames[app.stdout.frames.length - 1]!.split('\n').slice(-8).join('\n'))).toBeLessThanOrEqual(50);
  });

  it('a streaming reply longer than the terminal shows only its tail', async () => {
    const c = new FakeController();
    const app = renderAppSized(c, 60, 20);
    unmount = app.unmount;
    await app.waitForText('context left');
    const reply = Array.from({ length: 200 }, (_, i) => `streamed line ${i}`).join('\n');
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'text_delta', text: reply });
    await app.waitForText('streamed line 199');
    const f = app.frame();
    expect(f).not.toContain('streamed line 150');
    expect(f).toContain('⋮');
    // The whole live region fits the terminal, so Ink never has to repaint the screen.
    expect(f.split('\n').length).toBeLessThan(20);
  });

  it('the live region stays shorter than the terminal when everything happens at once', async () => {
    const c = new FakeController();
    const app = renderAppSized(c, 80, 24);
    unmount = app.unmount;
    await app.waitForText('context left');
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'text_delta', text: Array.from({ length: 100 }, (_, i) => `code line ${i}`).join('\n') });
    for (let i = 0; i < 8; i++) c.emit({ type: 'tool_start', id: `t${i}`, name: 'FileRead', input: {}, summary: `src/file${i}.ts` });
    for (let i = 0; i < 12; i++) await app.press(`line ${i}`, KEYS.ctrlJ);
    await app.waitForText(/and \d+ more/);
    expect(app.frame()).toContain('code line 99');
    expect(app.frame().split('\n').length).toBeLessThan(24);
  });
});

describe('the live region budget', () => {
  it('a long prompt shows a window around the cursor, markers included', () => {
    expect(promptViewport(5, 4, 10)).toEqual({ first: 0, count: 5, above: 0, below: 0 });
    expect(promptViewport(30, 0, 10)).toEqual({ first: 0, count: 8, above: 0, below: 22 });
    expect(promptViewport(30, 29, 10)).toEqual({ first: 22, count: 8, above: 22, below: 0 });
    expect(promptViewport(30, 15, 10)).toEqual({ first: 11, count: 8, above: 11, below: 11 });
  });

  it('shares fewer rows on a short terminal', () => {
    expect(promptMaxLines(60)).toBe(10);
    expect(promptMaxLines(24)).toBe(4);
    expect(liveToolRows(60)).toBe(5);
    expect(liveToolRows(24)).toBe(2);
    expect(streamRowsFor(60, 4)).toBe(16);
    expect(streamRowsFor(24, 6)).toBe(4);
    expect(streamRowsFor(10, 0)).toBe(2);
  });
});
