import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_BIN, agentEnv, useFakeServer, workspace } from './inprocess.js';
import { hasTmux, Tmux } from './terminal.js';

// Skills in the interactive app, in a real terminal (tmux): a broken SKILL.md is a notice that
// names it, the slash menu completes /name with the skill's description, /skills lists them.

const server = useFakeServer();
let term: Tmux | undefined;
afterEach(() => {
  term?.kill();
  term = undefined;
});

describe.skipIf(!hasTmux)('skills in the TUI', () => {
  // mutations: skill warnings not shown, skills not among the slash commands, /skills missing
  it('shows the notice for a broken file, completes /name, lists skills with /skills and runs one', async () => {
    const ws = workspace();
    const put = (name: string, text: string): void => {
      mkdirSync(join(ws.dir, '.claude', 'skills', name), { recursive: true });
      writeFileSync(join(ws.dir, '.claude', 'skills', name, 'SKILL.md'), text);
    };
    put('deploy', '---\nname: deploy\ndescription: Ships the build to an environment\nargument-hint: <env>\n---\nSHIP-IT to $ARGUMENTS.\n');
    put('broken', '---\nname: broken\n---\nno description\n');
    put('stamp', '---\nname: stamp\ndescription: Stamps the tree\nallowed-tools: Bash(touch:*)\n---\nStamp: !`touch stamped`\n');
    const env = { ...agentEnv({ ws, server }), TERM: 'xterm-256color', XDG_CONFIG_HOME: join(ws.home, '.config') };
    term = new Tmux({ command: [process.execPath, AGENT_BIN, '--model', 'claude-sonnet-4-6'], cwd: ws.dir, env, width: 160 });
    await term.waitFor('Ask for a change');
    await term.waitFor('field "description" is missing');
    expect(term.screen()).toContain('broken/SKILL.md');

    term.type('/depl');
    await term.waitFor('Ships the build to an environment');
    term.keys('C-u');

    term.type('/skills');
    term.keys('Enter');
    await term.waitFor('Skills (2)');
    expect(term.screen()).toMatch(/deploy {2}project \.claude\/skills · \/deploy, model/);

    server.enqueue({ text: 'Shipped.' });
    term.type('/deploy staging');
    term.keys('Enter');
    await term.waitFor('Shipped.');
    expect(JSON.stringify(server.requests[0]?.view?.messages ?? [])).toContain('SHIP-IT to staging.');

    // a project skill's !`command` waits for the person's approval of that skill, remembered for the project
    server.enqueue({ text: 'Stamped.' });
    term.type('/stamp');
    term.keys('Enter');
    await term.waitFor('is a project skill that runs code');
    expect(existsSync(join(ws.dir, 'stamped'))).toBe(false);
    term.keys('Enter'); // allow
    await term.waitFor('Stamped.');
    expect(existsSync(join(ws.dir, 'stamped'))).toBe(true);
    const trust = JSON.parse(readFileSync(join(ws.home, '.config', 'agent', 'trust.json'), 'utf8')) as { approvals: Array<{ kind: string; name: string }> };
    expect(trust.approvals).toEqual([expect.objectContaining({ kind: 'skills', name: 'stamp' })]);
  }, 60_000);
});
