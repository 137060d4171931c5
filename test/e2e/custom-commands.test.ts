import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, MODEL, runAgent, useFakeServer, workspace, type Workspace } from './inprocess.js';

// Custom slash commands end to end in print mode: a Claude Code command file used unchanged.

const server = useFakeServer();

function command(ws: Workspace, rel: string, text: string): void {
  const file = join(ws.dir, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
}

const firstPrompt = (): string => JSON.stringify(server.requests[0]?.view?.messages[0] ?? {});

const REVIEW = `---
description: Review a file for bugs
argument-hint: <file> [focus]
allowed-tools: Bash(git log:*), Read
---
Review @$1 with attention to $2.
Recent history: !\`git log --oneline -1\`
All arguments: $ARGUMENTS
`;

describe('custom commands in print mode', () => {
  it('runs a .claude/commands file unchanged: $1, $2, $ARGUMENTS, @path attached, !`command` allowed by allowed-tools inlined', async () => {
    const ws = workspace();
    command(ws, '.claude/commands/review.md', REVIEW);
    writeFileSync(join(ws.dir, 'x.ts'), 'export const answer = 41;\n');
    server.enqueue({ text: 'looks fine' });
    const r = await runAgent(['-p', '/review x.ts "off by one"'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('looks fine');
    const sent = firstPrompt();
    expect(sent).toContain('Review @x.ts with attention to off by one.');
    expect(sent).toContain('export const answer = 41;'); // @x.ts attached through FileRead
    expect(sent).toMatch(/Recent history: [^!]*not a git repository/);
    expect(sent).not.toContain('!`git log');
    expect(sent).toContain('All arguments: x.ts \\"off by one\\"');
  });

  it('refuses a !`command` allowed-tools does not cover in print mode: the prompt is not sent, exit 2', async () => {
    const ws = workspace();
    command(ws, '.agent/commands/danger.md', 'Look at !`touch made-it && echo done`\n');
    const r = await runAgent(['-p', '/danger'], { ws, server });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('!`touch made-it && echo done` in the command was not run');
    expect(server.requests.length).toBe(0);
  });

  it('namespaces a subfolder (/frontend:review); an unknown lone /word exits 2 with a suggestion; /etc/hosts stays a prompt; a clash with a built-in is reported', async () => {
    const ws = workspace();
    command(ws, '.agent/commands/frontend/review.md', '---\ndescription: frontend review\n---\nReview the components in $ARGUMENTS\n');
    command(ws, '.agent/commands/cost.md', 'not the built-in\n');
    server.enqueue({ text: 'ok' }, { text: 'hosts ok' });
    const ns = await runAgent(['-p', '/frontend:review src/ui'], { ws, server });
    expect(ns.code, ns.stderr).toBe(0);
    expect(firstPrompt()).toContain('Review the components in src/ui');
    expect(ns.stderr).toContain('cost.md: /cost is a built-in command, which wins');

    const unknown = await runAgent(['-p', '/frontend:reveiw'], { ws, server });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command /frontend:reveiw — did you mean /frontend:review?');
    const lone = await runAgent(['-p', '/zzqx'], { ws, server });
    expect(lone.code).toBe(2);
    expect(lone.stderr).toContain('unknown command /zzqx');

    const path = await runAgent(['-p', '/etc/hosts is it fine?'], { ws, server });
    expect(path.code, path.stderr).toBe(0);
    expect(path.stdout.trim()).toBe('hosts ok');
  });

  it("serves the command's turn with its frontmatter model; the session's model stays for the next turn", async () => {
    const ws = workspace();
    command(ws, '.agent/commands/quick.md', '---\nmodel: claude-haiku-4-5\n---\nQuick answer: $ARGUMENTS\n');
    server.enqueue({ text: 'fast' });
    const r = await runAgent(['-p', '/quick what is 2+2', '--output-format', 'json'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[0]?.view?.model).toBe('claude-haiku-4-5');
    // after the turn the session is back on its own model (the result names the session's model then)
    expect(Object.keys(jsonResult(r)['modelUsage'] as object)).toEqual([MODEL.anthropic]);
  });

  it('/help lists custom commands with their description and source', async () => {
    const ws = workspace();
    command(ws, '.claude/commands/review.md', REVIEW);
    const r = await runAgent(['-p', '/help'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\/review.*Review a file for bugs \(project, \.claude: \.claude\/commands\/review\.md\)/);
  });
});
