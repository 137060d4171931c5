import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/llm/messages.js';
import type { RecordedRequest } from '../fake-server/server.js';
import { isSummarizer, jsonResult, runAgent, workspace, useFakeServer } from './inprocess.js';

// Sub-agents end to end, driven by the fake's directives: the parent's prompt makes the model
// call Task three times in one reply; each child follows the directives in its own prompt.

const server = useFakeServer();

const blocksOf = (q: RecordedRequest | undefined): Block[] => (q?.view?.messages ?? []).flatMap((m) => m.blocks);
const results = (q: RecordedRequest | undefined): Array<{ content: string; isError: boolean }> =>
  blocksOf(q).flatMap((b) => (b.type === 'tool_result' ? [{ content: b.content, isError: b.isError === true }] : []));
const task = (description: string, prompt: string): string => `@task ${JSON.stringify({ description, prompt })}`;

describe('sub-agents (Task)', () => {
  it('runs three children in parallel; the parent gets their reports and none of their tool outputs; children are stored, shown and searchable', async () => {
    const ws = workspace();
    for (const n of ['alpha', 'beta', 'gamma'])
      writeFileSync(join(ws.dir, `${n}.txt`), `${n} file: the secret word of ${n} is ${n.toUpperCase()}-CONTENT-${n.length}\n`);
    writeFileSync(join(ws.dir, 'AGENTS.md'), 'Project rule: PROJECT-RULE-99.\n');
    const prompt =
      ['alpha', 'beta', 'gamma'].map((n) => task(`look at ${n}`, `@read ${n}.txt\n@grep secret\n@report REPORT-${n}: found it`)).join('\n') +
      '\n@report parent done';
    const r = await runAgent(['-p', prompt, '--output-format', 'json'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('parent done');

    // the parent's second request holds the three reports, none of the children's file contents
    const parentCalls = server.requests.filter((q) => q.view?.toolNames.includes('Task'));
    expect(parentCalls).toHaveLength(2);
    const last = parentCalls[1]!;
    const reports = results(last);
    expect(reports.map((x) => x.content.split('\n')[0])).toEqual(['REPORT-alpha: found it', 'REPORT-beta: found it', 'REPORT-gamma: found it']);
    expect(JSON.stringify(last.body)).not.toMatch(/CONTENT-/);
    // each child made its tool calls: a request carrying its FileRead output
    const childCalls = server.requests.filter((q) => q.view && !q.view.toolNames.includes('Task'));
    for (const n of ['alpha', 'beta', 'gamma'])
      expect(childCalls.some((q) => results(q).some((x) => x.content.includes(`${n.toUpperCase()}-CONTENT`)))).toBe(true);
    // children work under the instruction files too, after their agent's own prompt
    expect(childCalls[0]!.view!.system).toContain('PROJECT-RULE-99');
    expect(childCalls[0]!.view!.system).toMatch(/^You are a sub-agent/);
    // children get the read-only tools and no Task (nesting depth 1)
    expect(childCalls[0]!.view!.toolNames).toEqual(['FileRead', 'Bash', 'Grep', 'Glob', 'Recall']);
    // the three children ran at once: each child's first request came before any child's second
    const firsts = childCalls.filter((q) => results(q).length === 0).map((q) => q.seq);
    const seconds = childCalls.filter((q) => results(q).length > 0).map((q) => q.seq);
    expect(Math.max(...firsts)).toBeLessThan(Math.min(...seconds));
    // children of one agent share the cached prefix: the same system prompt and tools, byte for byte
    const prefix = (q: RecordedRequest): string =>
      JSON.stringify([(q.body as Record<string, unknown>)['system'], (q.body as Record<string, unknown>)['tools']]);
    expect(new Set(childCalls.map(prefix)).size).toBe(1);

    const sessionId = String(jsonResult(r).session_id);
    const show = await runAgent(['sessions', 'show', sessionId], { ws, server });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/explore: look at alpha/);
    expect(show.stdout).toMatch(/explore: look at gamma/);
    const withChildren = await runAgent(['sessions', 'show', sessionId, '--children'], { ws, server });
    expect(withChildren.stdout).toContain('GAMMA-CONTENT');
    const list = await runAgent(['sessions', 'list'], { ws, server });
    // the list shows the parent only (its children are under it)
    expect(
      list.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split('\t')[0]),
    ).toEqual([sessionId]);
    // search finds a child's text, across sessions and within the parent's
    for (const scope of [[], ['--session', sessionId]]) {
      const search = await runAgent(['sessions', 'search', 'BETA-CONTENT-4', ...scope], { ws, server });
      expect(search.code, search.stderr).toBe(0);
      expect(search.stdout.replace(/[«»]/g, '')).toContain('BETA-CONTENT-4');
    }
    // the parent's Recall finds what a child read (its tool output never entered the parent)
    server.clear();
    const recall = await runAgent(['-p', '@recall GAMMA-CONTENT\n@report recalled', '--continue'], { ws, server, provider: 'anthropic' });
    expect(recall.code, recall.stderr).toBe(0);
    expect(results(server.requests.at(-1)).at(-1)!.content.replace(/[«»]/g, '')).toContain('GAMMA-CONTENT-5');
  });

  it('gives the parent an error result when a child fails, and the parent carries on', async () => {
    const ws = workspace();
    const prompt = `${task('fails', '@fail the child model broke')}\n${task('works', '@report fine')}\n@report parent survived`;
    const r = await runAgent(['-p', prompt, '--output-format', 'json'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('parent survived');
    const last = server.requests.filter((q) => q.view?.toolNames.includes('Task')).at(-1);
    const [failed, ok] = results(last);
    expect(failed!.isError).toBe(true);
    expect(failed!.content).toMatch(/did not finish \(a provider error\).*the child model broke/s);
    expect(ok!.isError).toBe(false);
    expect(ok!.content).toMatch(/^fine/);
  });

  it('runs a custom agent on its own model; a child that reaches its own compaction finishes and reports', async () => {
    const model = 'tiny-reader';
    const ws = workspace({ models: { [model]: { contextWindow: 8192, maxOutputTokens: 1024, provider: 'anthropic' } } });
    server.settings.contextWindow = { [model]: 8192, '*': 1_000_000 };
    mkdirSync(join(ws.dir, '.agent', 'agents'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.agent', 'agents', 'reader.md'),
      `---\nname: reader\ndescription: Reads big files.\ntools: Read, Glob\nmodel: ${model}\n---\nYou read files for another agent and report on them.\n`,
    );
    const para = 'The module keeps its state in a table of records, each record naming its owner and its age.\n';
    for (let i = 1; i <= 5; i++) writeFileSync(join(ws.dir, `big${i}.md`), `# Part ${i}\n\n${para.repeat(40)}\n`);
    const summary = '## Goal\nRead the five big files and report.\n## Next Steps\nReport.\n@report CHILD-REPORT: five parts read';
    server.respondWith((req) => (isSummarizer(req.view) ? { text: summary } : undefined));
    const steps = [1, 2, 3, 4, 5].map((i) => `@read big${i}.md`).join('\n@then\n');
    const prompt = `@task ${JSON.stringify({ description: 'read the parts', prompt: `${steps}\n@report CHILD-REPORT: five parts read`, agent: 'reader' })}\n@report parent done`;
    const r = await runAgent(['-p', prompt, '--output-format', 'json'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonResult(r).result).toBe('parent done');
    const childCalls = server.requests.filter((q) => q.view && !q.view.toolNames.includes('Task') && !isSummarizer(q.view));
    // the agent's model and tools, its body as the system prompt
    expect(new Set(childCalls.map((q) => q.view!.model))).toEqual(new Set([model]));
    expect(childCalls[0]!.view!.toolNames).toEqual(['FileRead', 'Glob']);
    expect(childCalls[0]!.view!.system).toMatch(/^You read files for another agent/);
    // the child compacted (a summarizer request on its model) and still reported
    expect(server.requests.some((q) => q.view && isSummarizer(q.view) && q.view.model === model)).toBe(true);
    const parentLast = server.requests.filter((q) => q.view?.toolNames.includes('Task')).at(-1)!;
    expect(results(parentLast)[0]!.content).toMatch(/^CHILD-REPORT: five parts read/);
    expect(results(parentLast)[0]!.isError).toBe(false);

    // /cost on the resumed parent: a line for the child, on its model
    const cost = await runAgent(['-p', '/cost', '--continue'], { ws, server, provider: 'anthropic' });
    expect(cost.code, cost.stderr).toBe(0);
    expect(cost.stdout).toMatch(/tiny-reader/);
    expect(cost.stdout).toMatch(/sub-agent reader: read the parts \(s_[a-z0-9]+\): [\d,]+ tokens/);
  });

  it("honours an agent file's effort: the child's requests think at that effort, the parent's do not", async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.agent', 'agents'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.agent', 'agents', 'quick.md'),
      '---\nname: quick\ndescription: Looks things up fast.\ntools: Glob\neffort: low\n---\nAnswer briefly.\n',
    );
    const prompt = `@task ${JSON.stringify({ description: 'look', prompt: '@glob *.md\n@report QUICK-REPORT', agent: 'quick' })}\n@report parent done`;
    // effort is a setting of the 5 family (and 4.6+); a 4.5-era model takes none, whatever the suite's model
    const r = await runAgent(['-p', prompt, '--output-format', 'json', '--model', 'claude-sonnet-5-5'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    const effortOf = (q: RecordedRequest): unknown => (q.body as { output_config?: { effort?: string } }).output_config?.effort;
    const child = server.requests.filter((q) => q.view && !q.view.toolNames.includes('Task'));
    const parent = server.requests.filter((q) => q.view?.toolNames.includes('Task'));
    expect(child.length).toBeGreaterThan(0);
    expect(child.map(effortOf)).toEqual(child.map(() => 'low'));
    expect(parent.map(effortOf).some((e) => e === 'low')).toBe(false);
  });

  it('/agents lists the built-in and the agent files; a bad file is a warning naming it and the field, not a failure', async () => {
    const ws = workspace();
    mkdirSync(join(ws.dir, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      join(ws.dir, '.claude', 'agents', 'reviewer.md'),
      '---\nname: reviewer\ndescription: Reviews a diff.\ntools: Read, Grep, Glob, Bash(git diff:*), Telepathy\n---\nReview the change.\n',
    );
    writeFileSync(join(ws.dir, '.claude', 'agents', 'broken.md'), '---\nname: broken\ndescription: [unclosed\n---\nBody.\n');
    writeFileSync(join(ws.dir, '.claude', 'agents', 'steps.md'), '---\nname: steps\ndescription: x\nmaxTurns: many\n---\nBody.\n');
    const r = await runAgent(['-p', '/agents'], { ws, server, provider: 'anthropic' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^explore \(builtin\) · model inherited · tools FileRead, Grep, Glob, Recall, Bash/m);
    expect(r.stdout).toMatch(/^reviewer \(.*reviewer\.md\) · model inherited · tools FileRead, Grep, Glob, Bash$/m);
    expect(r.stdout).toMatch(/reviewer\.md: field "tools": unknown tool "Telepathy" ignored/);
    expect(r.stdout).toMatch(/broken\.md: the frontmatter is not valid YAML.*the agent is skipped/);
    expect(r.stdout).toMatch(/steps\.md: field "maxTurns" must be a positive whole number \(got "many"\); the agent is skipped/);
    expect(r.stdout).not.toMatch(/^broken /m);
  });
});
