import { render } from 'ink';
import stripAnsi from 'strip-ansi';
import { describe, expect, it } from 'vitest';
import { App } from '../../src/ui/app.js';
import { loadMarkdown, markdownShownPlain } from '../../src/ui/markdown-lazy.js';
import { plainTheme } from '../../src/ui/theme.js';
import { FakeController, FakeStdin, SizedStdout, tick } from './fakes.js';

// The Markdown renderer loads after the first frame (markdown-lazy.test.tsx has the reprint of a
// reply that reads differently rendered). A reply that reads the same rendered is not printed
// again: the reprint clears the visible screen only, and tmux kept the first copy in its history,
// so a resumed transcript showed twice there (issue 30 item 14). Its own file: the renderer is
// loaded once per process.

const reply = {
  id: 'a1',
  role: 'assistant' as const,
  kind: 'normal' as const,
  createdAt: 1,
  blocks: [{ type: 'text' as const, text: 'Started here, with a sentence long enough to wrap at forty columns when rendered.' }],
};
const question = { id: 'u1', role: 'user' as const, kind: 'normal' as const, createdAt: 0, blocks: [{ type: 'text' as const, text: 'start here' }] };

describe('a plain reply once the Markdown renderer loads', () => {
  it('is not printed again', async () => {
    const stdout = new SizedStdout(40, 24);
    const instance = render(<App controller={new FakeController(undefined, [question, reply])} theme={plainTheme} />, {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: new FakeStdin() as unknown as NodeJS.ReadStream,
      stderr: new SizedStdout(40, 24) as unknown as NodeJS.WriteStream,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    expect(stripAnsi(stdout.frames.join(''))).toContain('Started here');
    await loadMarkdown();
    // mutation: markdownShownPlain() true whenever anything was shown plain clears and prints again
    expect(markdownShownPlain()).toBe(false);
    await tick(5);
    expect(stdout.frames.join('')).not.toContain('\u001b[2J');
    instance.unmount();
  });
});
