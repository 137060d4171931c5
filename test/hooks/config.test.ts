import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { tempDir } from '../tempDirs.js';

function dirs(home: unknown, project: unknown): { cwd: string; home: string } {
  const root = tempDir('hooks-config-');
  const cwd = join(root, 'project');
  const h = join(root, 'home');
  mkdirSync(cwd);
  mkdirSync(h);
  if (home) writeFileSync(join(h, '.agentrc'), JSON.stringify(home));
  if (project) writeFileSync(join(cwd, '.agentrc'), JSON.stringify(project));
  return { cwd, home: h };
}
const load = (d: { cwd: string; home: string }) => loadConfig({ cwd: d.cwd, home: d.home, env: { ANTHROPIC_API_KEY: 'k' }, flags: {} });

describe('hooks in .agentrc', () => {
  it("keeps each file's hooks apart (home: user, the project's: project) and takes Claude Code's grouped shape as it is", () => {
    const d = dirs(
      { hooks: { Stop: [{ command: 'notify-send done' }] } },
      {
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: './guard.sh', timeout: 5 },
                { type: 'command', command: './log.sh' },
              ],
            },
          ],
        },
      },
    );
    const c = load(d);
    expect(c.hookSources).toEqual([
      { file: join(d.home, '.agentrc'), scope: 'user', dir: d.home, hooks: { Stop: [{ command: 'notify-send done' }] } },
      {
        file: join(d.cwd, '.agentrc'),
        scope: 'project',
        dir: d.cwd,
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', command: './guard.sh', timeoutMs: 5000 },
            { matcher: 'Bash', command: './log.sh' },
          ],
        },
      },
    ]);
  });

  it('names the file and field of a bad hook', () => {
    expect(() => load(dirs(undefined, { hooks: { PreTool: [{ command: 'x' }] } }))).toThrow(
      /\.agentrc: line 1, column \d+: field "hooks\.PreTool": unknown key/,
    );
    expect(() => load(dirs(undefined, { hooks: { Stop: [{ command: '' }] } }))).toThrow(/\.agentrc: line 1, column \d+: field "hooks\.Stop\.0/);
    expect(() => load(dirs(undefined, { compaction: { instructions: 3 } }))).toThrow(/field "compaction\.instructions"/);
  });
});

// issue 30: Claude Code's hooks in .claude/settings.json were silently ignored, though its
// commands, agents and .mcp.json are read. They are read now, as Claude Code reads them, each
// file its own source (a project's need the approval .agentrc's do); what cannot run is said.
// Not reading the files fails the first expectation; running a "prompt" hook or an unknown event
// as a command fails the warnings.
describe("hooks in Claude Code's settings files", () => {
  const settings = (dir: string, name: string, value: unknown): void => {
    mkdirSync(join(dir, '.claude'), { recursive: true });
    writeFileSync(join(dir, '.claude', name), typeof value === 'string' ? value : JSON.stringify(value));
  };

  it('reads ~/.claude/settings.json (user) and the project .claude/settings.json and settings.local.json, with their matchers and timeouts', () => {
    const d = dirs(undefined, { hooks: { Stop: [{ command: 'from-agentrc' }] } });
    settings(d.home, 'settings.json', { model: 'opus', hooks: { Notification: [{ hooks: [{ type: 'command', command: 'notify-send hi' }] }] } });
    settings(d.cwd, 'settings.json', {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --check', timeout: 3 }] }],
        SubagentStop: [{ hooks: [{ type: 'command', command: 'x' }] }],
        SessionEnd: [{ hooks: [{ type: 'command', command: 'y' }] }],
        Stop: [
          {
            hooks: [
              { type: 'prompt', prompt: 'Is the task done?' },
              { type: 'command', command: './check.sh' },
            ],
          },
        ],
      },
    });
    settings(d.cwd, 'settings.local.json', { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'date' }] }] } });
    const c = load(d);
    expect(c.hookSources).toEqual([
      { file: join(d.cwd, '.agentrc'), scope: 'project', dir: d.cwd, hooks: { Stop: [{ command: 'from-agentrc' }] } },
      { file: join(d.home, '.claude', 'settings.json'), scope: 'user', dir: d.home, hooks: { Notification: [{ command: 'notify-send hi' }] } },
      {
        file: join(d.cwd, '.claude', 'settings.json'),
        scope: 'project',
        dir: d.cwd,
        trustName: '.claude/settings.json',
        hooks: { PreToolUse: [{ matcher: 'Edit|Write', command: 'npx prettier --check', timeoutMs: 3000 }], Stop: [{ command: './check.sh' }] },
      },
      {
        file: join(d.cwd, '.claude', 'settings.local.json'),
        scope: 'project',
        dir: d.cwd,
        trustName: '.claude/settings.local.json',
        hooks: { UserPromptSubmit: [{ command: 'date' }] },
      },
    ]);
    const file = join(d.cwd, '.claude', 'settings.json');
    expect(c.warnings).toEqual([
      `${file}: field "hooks.Stop[0].hooks[0]": a hook of type "prompt" is not run here (only "command")`,
      `${file}: hooks for SubagentStop, SessionEnd are not run (this agent has no such event)`,
    ]);
  });

  it('names a settings file that is not JSON (line, column) and runs none of its hooks; disableAllHooks turns them off', () => {
    const d = dirs(undefined, undefined);
    settings(d.cwd, 'settings.json', '{\n  "hooks": {\n    "Stop": [ }\n}\n');
    const c = load(d);
    expect(c.hookSources).toEqual([]);
    expect(c.warnings).toEqual([`${join(d.cwd, '.claude', 'settings.json')}: not valid JSON at line 3, column 15: expected a value; its hooks do not run`]);
    settings(d.cwd, 'settings.json', { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'z' }] }] } });
    settings(d.home, 'settings.json', { disableAllHooks: true });
    expect(load(d).hookSources).toEqual([]);
  });
});
