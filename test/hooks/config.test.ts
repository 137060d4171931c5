import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';

function dirs(home: unknown, project: unknown): { cwd: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'hooks-config-'));
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
