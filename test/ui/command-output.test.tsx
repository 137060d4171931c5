import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import type { CommandOutput } from '../../src/protocol/views.js';
import { COMMANDS, FakeController, renderApp } from './helpers.js';

afterEach(() => cleanup());

async function show(command: string, output: CommandOutput): Promise<string> {
  const c = new FakeController();
  const app = renderApp(c);
  await app.waitForText('context left');
  c.emit({ type: 'command_output', command, output });
  await app.waitForText(command);
  return app.frame();
}

describe('command outputs', () => {
  it('text', async () => {
    const f = await show('/compcat', { kind: 'text', text: 'Unknown command /compcat. Did you mean /compact?\u001b[2J' });
    expect(f).toContain('Unknown command /compcat. Did you mean /compact?');
    expect(f).not.toContain('\u001b[2J');
  });

  it('context: a row per part with a bar, free space and the reply reserve', async () => {
    const f = await show('/context', {
      kind: 'context',
      rows: [
        { label: 'System prompt', tokens: 3_000 },
        { label: 'Tools', tokens: 6_000 },
        { label: 'Messages', tokens: 81_000 },
      ],
      contextWindow: 200_000,
      effectiveWindow: 180_000,
      percentLeft: 50,
    });
    expect(f).toContain('50% context left · 90.0k of 180.0k tokens in use · window 200.0k');
    // shares of the whole 200k window: the rows, the free space and the reserve make 100%
    expect(f).toMatch(/Messages\s+█{8}░{12}\s+81\.0k\s+40\.5%/);
    expect(f).toMatch(/System prompt\s+░{20}\s+3\.0k\s+1\.5%/);
    expect(f).toMatch(/Free space\s+█{9}░{11}\s+90\.0k\s+45\.0%/);
    expect(f).toMatch(/Reserved for the reply\s+█{2}░{18}\s+20\.0k\s+10\.0%/);
  });

  it('cost: a table per model and the total', async () => {
    const f = await show('/cost', {
      kind: 'cost',
      rows: [
        { model: 'claude-sonnet-4-5', usage: { inputTokens: 120_000, outputTokens: 8_000, cacheReadTokens: 90_000, cacheWriteTokens: 10_000 }, usd: 0.5123 },
        { model: 'local-llama', usage: { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      ],
      totalUsd: 0.5123,
    });
    expect(f).toMatch(/Model\s+Input\s+Output\s+Cache read\s+Cache write\s+Cost/);
    expect(f).toMatch(/claude-sonnet-4-5\s+120\.0k\s+8\.0k\s+90\.0k\s+10\.0k\s+\$0\.51/);
    expect(f).toMatch(/local-llama\s+1\.0k\s+200\s+0\s+0\s+n\/a/);
    expect(f).toContain('Total: $0.51');
  });

  it('cost: a reasoning column when a model reported reasoning tokens', async () => {
    const f = await show('/cost', {
      kind: 'cost',
      rows: [
        {
          model: 'gpt-5.4',
          usage: { inputTokens: 2_000, outputTokens: 3_000, cacheReadTokens: 40_000, cacheWriteTokens: 0, thinkingTokens: 2_500 },
          usd: 0.04,
        },
        { model: 'claude-sonnet-5-5', usage: { inputTokens: 1_000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0 }, usd: 0.01 },
      ],
      totalUsd: 0.05,
    });
    expect(f).toMatch(/Model\s+Input\s+Output\s+of it thinking\s+Cache read\s+Cache write\s+Cost/);
    expect(f).toMatch(/gpt-5\.4\s+2\.0k\s+3\.0k\s+2\.5k\s+40\.0k\s+0\s+\$0\.04/);
    expect(f).toMatch(/claude-sonnet-5-5\s+1\.0k\s+200\s+0\s+0\s+0\s+\$0\.01/);
  });

  it('cost with no calls yet', async () => {
    expect(await show('/cost', { kind: 'cost', rows: [] })).toContain('No model calls yet.');
  });

  it('permissions: the mode and each remembered rule with its source', async () => {
    const f = await show('/permissions', {
      kind: 'permissions',
      mode: 'ask',
      rules: [
        { source: 'config', rule: 'Bash(npm test)' },
        { source: 'session', rule: 'Bash(git status)' },
      ],
    });
    expect(f).toContain('Mode: ask');
    expect(f).toMatch(/config\s+Bash\(npm test\)/);
    expect(f).toMatch(/session\s+Bash\(git status\)/);
    expect(await show('/permissions', { kind: 'permissions', mode: 'ask', rules: [] })).toContain('No allow rules yet');
  });

  it('help: every command with its arguments and description, then the keys', async () => {
    const f = await show('/help', { kind: 'help', commands: COMMANDS });
    expect(f).toMatch(/\/compact \[focus…\]\s+Summarize the conversation to free context/);
    expect(f).toMatch(/\/resume \[id\]\s+Open another session/);
    expect(f).toContain('Keys');
    expect(f).toMatch(/Alt\+Enter · Ctrl\+J · \\ then Enter\s+new line/);
    expect(f).toMatch(/Ctrl\+O\s+print the full output of the last tool call/);
    expect(f).toMatch(/Esc\s+interrupt the running turn/);
  });

  it('picker opens the session picker instead of printing', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'command_output', command: '/resume', output: { kind: 'picker', sessions: [] } });
    await app.waitForText('No saved sessions yet.');
    expect(app.frame()).toContain('Resume a session');
  });

  it('notices at each level', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit(
      { type: 'notice', level: 'info', text: 'Model switched' },
      { type: 'notice', level: 'warning', text: 'Unknown model: assuming 32k window' },
      { type: 'notice', level: 'error', text: 'Database locked' },
    );
    await app.waitForText('✗ Database locked');
    expect(app.frame()).toContain('ℹ Model switched');
    expect(app.frame()).toContain('⚠ Unknown model: assuming 32k window');
  });
});
