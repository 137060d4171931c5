import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { dumbTheme } from '../../src/ui/theme.js';
import { SPINNER } from '../../src/ui/components/LiveRegion.js';
import { FakeController, KEYS, msg, renderApp, renderAppSized, text, tick, waitFor } from './helpers.js';
import { shellNote } from '../../src/session/shellNote.js';
import type { TextOrigin } from '../../src/llm/messages.js';

/** An attachment block's origin, as session/mentions.ts sets it (the transcript reads the label there, not in the text). */
const attachment = (label: string): TextOrigin => ({ kind: 'attachment', label });

// The conventions and defect fixes of issue #14, as the person meets them in the app.

afterEach(() => cleanup());

const type = (s: string): string[] => s.split('');

describe('a prompt that starts with a path', () => {
  it('is queued as a prompt while the agent works, not sent as a command; a real command still goes at once', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('context left');
    c.emit({ type: 'busy', busy: true });
    await app.waitForText('esc to interrupt');
    await app.press(...type('/etc/hosts is it fine?'));
    expect(app.frame()).not.toContain('Unknown command');
    await app.press(KEYS.enter);
    expect(c.submitted).toEqual([]);
    await app.waitForText('queued: /etc/hosts is it fine?');
    await app.press(...type('/cost'), KEYS.enter);
    expect(c.submitted).toEqual(['/cost']);
    await tick(1);
  });
});

describe('the footer', () => {
  it('shows the new model after /model switches', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('claude-sonnet-4-5');
    c.view = { ...c.view, model: 'gpt-4o', provider: 'openai' };
    c.emit({ type: 'command_output', command: '/model gpt-4o', output: { kind: 'text', text: 'Switched to gpt-4o' } }, { type: 'context', usage: c.usageView });
    await app.waitForText('gpt-4o ·');
    expect(app.frame()).not.toContain('claude-sonnet-4-5 ·');
  });
});

describe('keys people expect', () => {
  it('Ctrl+C during a running tool interrupts it without arming exit', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' }, { type: 'tool_start', id: 'x', name: 'Bash', input: {}, summary: 'sleep 100' });
    await app.waitForText('Bash sleep 100');
    await app.press(KEYS.ctrl('c'));
    expect(c.interrupts).toBe(1);
    expect(app.frame()).not.toContain('Press Ctrl-C again to exit');
    // the tool takes a moment to stop: a second Ctrl+C interrupts again, and does not exit
    await app.press(KEYS.ctrl('c'));
    await tick(20);
    expect(c.interrupts).toBe(2);
    expect(c.exits).toBe(0);
    c.emit(
      { type: 'turn_end', reason: 'aborted', steps: 1, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, text: '' },
      { type: 'busy', busy: false },
    );
    await waitFor(() => !app.frame().includes('esc to interrupt'), app.frame);
    // idle again: Ctrl+C arms, a second one exits
    await app.press(KEYS.ctrl('c'));
    await app.waitForText('Press Ctrl-C again to exit');
    await app.press(KEYS.ctrl('c'));
    await waitFor(() => c.exits === 1, app.frame);
  });

  it('Ctrl+D on an empty prompt exits; with text it deletes under the cursor', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press('a', 'b', KEYS.left, KEYS.ctrl('d'));
    await app.waitForText('❯ a');
    expect(c.exits).toBe(0);
    await app.press(KEYS.ctrl('u'), KEYS.ctrl('d'));
    await waitFor(() => c.exits === 1, app.frame);
  });

  it('Ctrl+L clears the screen and prints the transcript again', async () => {
    const c = new FakeController();
    c.transcript = [msg('user', [text('an earlier question')]), msg('assistant', [text('an earlier answer')])];
    const app = renderApp(c);
    await app.waitForText('an earlier answer');
    await app.press(KEYS.ctrl('l'));
    await waitFor(() => app.stdout.frames.some((f) => f.startsWith('\u001b[2J')), app.frame);
    const frames = app.stdout.frames;
    const cleared = frames.findIndex((f) => f.startsWith('\u001b[2J'));
    await waitFor(() => app.stdout.frames.slice(cleared + 1).some((f) => f.includes('an earlier answer')), app.frame);
  });
});

describe('resizing', () => {
  it('clears the screen once the size settles and redraws everything, so no copy of the prompt box is left', async () => {
    const c = new FakeController();
    c.transcript = [msg('user', [text('before the resize')])];
    const app = renderAppSized(c, 100, 30);
    await app.waitForText('before the resize');
    const start = app.sized.frames.length;
    app.sized.resize(70);
    await tick(5);
    app.sized.resize(50);
    await waitFor(() => app.sized.frames.slice(start).some((f) => f.includes('\u001b[2J')), app.frame);
    const clears = app.sized.frames.slice(start).filter((f) => f.includes('\u001b[2J'));
    expect(clears).toHaveLength(1); // one redraw for the whole drag
    await waitFor(() => app.frame().includes('before the resize') && app.frame().includes('Ask for a change'), app.frame);
    app.unmount();
  });
});

describe('a dumb terminal', () => {
  it('draws no box borders and no spinner', async () => {
    const c = new FakeController();
    const app = renderApp(c, { theme: dumbTheme });
    await app.waitForText('Ask for a change');
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' });
    await app.waitForText('Thinking');
    await tick(300);
    const f = app.frame();
    expect(f).not.toMatch(/[╭╮╰╯│─]/);
    for (const s of SPINNER) expect(f).not.toContain(s);
    expect(f).toContain('* Thinking');
  });

  it('shows the elapsed time once a second, on the second', async () => {
    // the ticker's interval and the clock it reads are fake; Ink's own timers and the waits stay real
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    try {
      const c = new FakeController();
      const app = renderApp(c, { theme: dumbTheme });
      // app.waitForText's bound reads Date.now(), which stands still here: this one reads the real clock
      const shown = async (pattern: RegExp): Promise<void> => {
        const until = performance.now() + 3000;
        while (!pattern.test(app.frame())) {
          if (performance.now() > until) throw new Error(`${String(pattern)} not shown in 3 s:\n${app.frame()}`);
          await tick(5);
        }
      };
      await shown(/Ask for a change/);
      c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' });
      await shown(/\* Thinking/);
      expect(app.frame()).toMatch(/\b0s\b/);
      // mutation: a dumb terminal's tick of 1,001 ms (fresh sample of 7 Dec, 15:55) shows 0s here still
      vi.advanceTimersByTime(1000);
      await shown(/\b1s\b/);
      vi.advanceTimersByTime(2000);
      await shown(/\b3s\b/);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the slash-command menu', () => {
  it('/co lists every match; ↑↓ move the highlight and Enter runs the highlighted command', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press(...type('/co'));
    await app.waitForText('/cost');
    for (const name of ['/compact', '/context', '/cost']) expect(app.frame()).toContain(name);
    expect(app.frame()).not.toContain('more (');
    expect(app.frame()).toContain('▸ /compact');
    await app.press(KEYS.down, KEYS.down);
    await app.waitForText('▸ /cost');
    expect(app.frame()).toContain('❯ /co'); // the text stays as typed while choosing
    await app.press(KEYS.up);
    await app.waitForText('▸ /context');
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['/context']);
  });

  it('a lone / with Enter runs nothing (the first entry would be /clear)', async () => {
    const c = new FakeController();
    c.commandList = [{ name: 'clear', description: 'start a new session' }, ...c.commandList];
    const app = renderApp(c);
    await app.press('/');
    await app.waitForText('/clear');
    await app.press(KEYS.enter);
    await tick(20);
    expect(c.submitted).toEqual([]);
    await app.press(KEYS.down, KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['/compact']);
  });

  it('Enter on a command that needs an argument fills it in and waits', async () => {
    const c = new FakeController();
    c.commandList = [...c.commandList, { name: 'history', args: '<query> | open <id>', description: 'search the archive' }];
    const app = renderApp(c);
    await app.press(...type('/hi'), KEYS.enter);
    await app.waitForText('❯ /history');
    expect(c.submitted).toEqual([]);
    await app.press(...type('walrus'), KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['/history walrus']);
  });
});

describe('! shell mode in the prompt', () => {
  it('says it is shell mode, sends the line, and shows the run as a Shell row without echoing the note', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press(...type('!git status'));
    await app.waitForText('shell mode');
    await app.press(KEYS.enter);
    expect(c.submitted).toEqual(['!git status']);
    c.emit({ type: 'busy', busy: true }, { type: 'tool_start', id: 'sh1', name: 'Shell', input: {}, summary: 'git status' });
    await app.waitForText('Shell git status');
    c.emit(
      { type: 'tool_end', id: 'sh1', name: 'Shell', output: { content: 'On branch main', isError: false }, durationMs: 40, status: 'done' },
      // the note as the session appends it: its text for the model, its origin for the transcript
      { type: 'message', message: shellNote({ command: 'git status', output: 'On branch main', isError: false }, 'done') },
      { type: 'busy', busy: false },
    );
    await app.waitForText('⎿ On branch main');
    expect(app.frame()).not.toContain('The user ran a shell command');
  });
});

describe('@ file mentions in the prompt', () => {
  it('lists matching paths after @, ↑↓ choose, Tab takes one, a directory goes on completing, Enter sends', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.press(...type('explain @src'));
    await app.waitForText('▸ @src/');
    expect(app.frame()).toContain('@src/cli.ts');
    await app.press(KEYS.down);
    await app.waitForText('▸ @src/cli.ts');
    await app.press(KEYS.tab);
    await app.waitForText('❯ explain @src/cli.ts');
    await waitFor(() => !app.frame().includes('▸ @'), app.frame);
    await app.press(...type('and @app'));
    await app.waitForText('▸ @src/ui/app.tsx');
    await app.press(KEYS.enter); // takes the highlighted path, does not send yet
    await app.waitForText('@src/ui/app.tsx');
    expect(c.submitted).toEqual([]);
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted.map((t) => t.trim())).toEqual(['explain @src/cli.ts and @src/ui/app.tsx']);
  });

  it('shows what a message attached', async () => {
    const c = new FakeController();
    const attached = {
      type: 'text' as const,
      text: '[Attached by the user with @src/cli.ts: read with FileRead]\n     1\tconst x = 1;',
      origin: attachment('src/cli.ts: read with FileRead'),
    };
    c.transcript = [msg('user', [text('explain @src/cli.ts'), attached])];
    const app = renderApp(c);
    await app.waitForText('⎿ attached @src/cli.ts: read with FileRead');
    expect(app.frame()).not.toContain('const x = 1');
  });

  it('says when an attached file was too large and went to the archive, with its handle', async () => {
    const c = new FakeController();
    const preview = '[output o3: 6,000 lines, 120 KB; lines 1–40 and 5,961–6,000 shown; Recall id="o3" …]\n     1\trow 1';
    c.transcript = [
      msg('user', [
        text('what is in @big.txt'),
        {
          type: 'text',
          text: `[Attached by the user with @big.txt: too large to attach whole, archived as o3]\n${preview}`,
          origin: attachment('big.txt: too large to attach whole, archived as o3'),
        },
      ]),
    ];
    const app = renderApp(c);
    await app.waitForText('⎿ attached @big.txt: too large to attach whole, archived as o3');
    expect(app.frame()).not.toContain('row 1');
  });
});

describe('the /model picker', () => {
  const models = [
    {
      name: 'claude-sonnet-4-5',
      provider: 'anthropic',
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
      source: 'builtin' as const,
      inputUsdPerM: 3,
      outputUsdPerM: 15,
    },
    { name: 'gpt-4o', provider: 'openai', contextWindow: 128_000, maxOutputTokens: 16_384, source: 'builtin' as const, inputUsdPerM: 2.5, outputUsdPerM: 10 },
    { name: 'qwen-local', provider: 'openai', contextWindow: 32_768, maxOutputTokens: 4_096, source: 'config' as const },
  ];

  it('shows window and price, filters as you type, and Enter switches', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/model', output: { kind: 'models', models, current: 'claude-sonnet-4-5' } });
    await app.waitForText('Switch model');
    expect(app.frame()).toMatch(/❯ claude-sonnet-4-5 +anthropic +200\.0k window +\$3 \/ \$15 per M in\/out · current/);
    expect(app.frame()).toMatch(/qwen-local +openai +32\.8k window +price unknown · \.agentrc/);
    await app.press(...type('gpt'));
    await app.waitForText('filter: gpt');
    expect(app.frame()).not.toContain('qwen-local');
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['/model gpt-4o']);
    await app.waitForText('Ask for a change');
  });

  it('Esc closes it without switching', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/model', output: { kind: 'models', models, current: 'gpt-4o' } });
    await app.waitForText('❯ gpt-4o');
    await app.press(KEYS.esc);
    await app.waitForText('Ask for a change');
    expect(c.submitted).toEqual([]);
  });
});

describe('live Bash output', () => {
  it('streams the last lines into the running row (bounded), then the row says the model got a cut copy and Ctrl+O shows all', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'busy', busy: true }, { type: 'turn_start', turnId: 't' }, { type: 'tool_start', id: 'b1', name: 'Bash', input: {}, summary: 'npm test' });
    await app.waitForText('Bash npm test');
    const lines = Array.from({ length: 30 }, (_, i) => `test line ${i + 1}`);
    c.emit({ type: 'tool_progress', id: 'b1', text: `${lines.slice(0, 3).join('\n')}\n` });
    await app.waitForText('test line 3');
    c.emit({ type: 'tool_progress', id: 'b1', text: `${lines.slice(3).join('\n')}\n` });
    await app.waitForText('test line 30');
    expect(app.frame()).not.toContain('test line 20\n'); // only the last few lines are live
    expect(
      app
        .frame()
        .split('\n')
        .filter((l) => l.includes('test line')).length,
    ).toBeLessThanOrEqual(5);
    const modelCopy = `test line 1\n… [400 characters (26 lines) cut from the middle of the output] …\ntest line 30`;
    c.emit({ type: 'tool_end', id: 'b1', name: 'Bash', output: { content: modelCopy, isError: false }, durationMs: 900, status: 'done' });
    await app.waitForText('model got a cut copy (26 lines left out) · ctrl+o shows all');
    await app.press(KEYS.ctrl('o'));
    await app.waitForText('— full output');
    await app.waitForText('test line 17');
  });
});

describe("the SDK's model-deprecation warning", () => {
  it('is shown once, dimmed, under the prompt, and never printed into the transcript', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    await app.waitForText('Ask for a change');
    const warning =
      "The model 'claude-3-5-haiku' is deprecated and will reach end-of-life on 2026-01-01\nPlease migrate to a newer model. Visit https://docs.anthropic.com for more information.";
    c.emit({ type: 'provider_notice', text: warning });
    await app.waitForText("ⓘ The model 'claude-3-5-haiku' is deprecated");
    expect(app.frame()).not.toContain('Please migrate');
    // a second request warns again: nothing new is shown, and nothing went into the transcript
    c.emit({ type: 'provider_notice', text: warning }, { type: 'notice', level: 'info', text: 'marker notice' });
    await app.waitForText('marker notice');
    expect(app.frame().split('deprecated').length - 1).toBe(1);
    expect(app.frame()).not.toContain('⚠');
  });
});

describe('Ctrl+R', () => {
  it('searches earlier prompts: type to narrow, Ctrl+R for an older match, Enter sends it; Esc puts the draft back', async () => {
    const c = new FakeController(undefined, [], ['run the tests', 'deploy to staging', 'run the linter', 'explain the parser']);
    const app = renderApp(c);
    await app.press(...type('draft'));
    await app.press(KEYS.ctrl('r'));
    await app.waitForText('search earlier prompts:');
    await app.press(...type('run'));
    await app.waitForText('❯ run the linter');
    await app.press(KEYS.ctrl('r'));
    await app.waitForText('❯ run the tests');
    await app.press(KEYS.esc);
    await app.waitForText('❯ draft');
    expect(app.frame()).not.toContain('search earlier prompts');
    await app.press(KEYS.ctrl('u'), KEYS.ctrl('r'), ...type('stag'));
    await app.waitForText('❯ deploy to staging');
    await app.press(KEYS.enter);
    await waitFor(() => c.submitted.length === 1, app.frame);
    expect(c.submitted).toEqual(['deploy to staging']);
  });

  it('another key takes the match into the prompt for editing', async () => {
    const c = new FakeController(undefined, [], ['run the tests']);
    const app = renderApp(c);
    await app.press(KEYS.ctrl('r'), ...type('tests'), KEYS.ctrl('e'), ...type(' again'));
    await app.waitForText('❯ run the tests again');
    expect(app.frame()).not.toContain('search earlier prompts');
  });
});

describe('queued ! commands', () => {
  it('run on their own, in their place, not joined with the queued prompts', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'busy', busy: true });
    await app.waitForText('esc to interrupt');
    await app.press(...type('first question'), KEYS.enter);
    await app.press(...type('!git status'), KEYS.enter);
    await app.press(...type('second question'), KEYS.enter);
    await app.waitForText('queued: second question');
    c.emit({ type: 'busy', busy: false });
    await waitFor(() => c.submitted.length === 3, app.frame);
    expect(c.submitted).toEqual(['first question', '!git status', 'second question']);
  });
});
