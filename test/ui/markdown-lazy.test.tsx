import { render } from 'ink';
import stripAnsi from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { loadMarkdown, markdownShownPlain, renderMarkdownWhenLoaded } from '../../src/ui/markdown-lazy.js';
import { plainTheme } from '../../src/ui/theme.js';
import { FakeController, FakeStdin, SizedStdout, tick, waitFor } from './fakes.js';

// Fresh modules: it watches the Markdown renderer load (vitest.config.ts runs it isolated).
// The Markdown renderer (marked, marked-terminal, highlight.js) loads after the first frame.
// This file must not import ./helpers.js, which loads it up front; its tests run in order.

const reply = {
  id: 'a1',
  role: 'assistant' as const,
  kind: 'normal' as const,
  createdAt: 1,
  blocks: [{ type: 'text' as const, text: 'Use **bold** and `code`.' }],
};
const question = { id: 'u1', role: 'user' as const, kind: 'normal' as const, createdAt: 0, blocks: [{ type: 'text' as const, text: 'how?' }] };

describe('the Markdown renderer loads after the first frame', () => {
  it('a resumed reply shows plain on the first frame, then the transcript is printed again rendered', async () => {
    expect(markdownShownPlain()).toBe(false);
    const stdout = new SizedStdout(80, 24);
    const instance = render(<App controller={new FakeController(undefined, [question, reply])} theme={plainTheme} />, {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
      stderr: new SizedStdout(80, 24) as unknown as NodeJS.WriteStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    const first = stripAnsi(stdout.frames.join(''));
    expect(first).toContain('Use **bold** and `code`.');
    expect(markdownShownPlain()).toBe(true);
    await loadMarkdown();
    await waitFor(
      () => stdout.frames.join('').includes('\u001b[2J'),
      () => stdout.frames.join(''),
    );
    await tick(2);
    const last = stripAnsi(stdout.frames[stdout.frames.length - 1]!);
    expect(last.slice(last.lastIndexOf('how?'))).toContain('Use bold and `code`.');
    instance.unmount();
  });

  it('renders Markdown once loaded', () => {
    expect(renderMarkdownWhenLoaded('a **b** c', { width: 80, color: false })).toBe('a b c');
  });
});
