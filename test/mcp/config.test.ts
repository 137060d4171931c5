import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandVars, mcpServers, serverEnv } from '../../src/mcp/config.js';
import { mcpToolName, resultText, schemaProblem } from '../../src/mcp/tools.js';
import { toolAllowedBy } from '../../src/tools/permissions.js';
import { tempDir } from '../tempDirs.js';

const noSecrets = (): boolean => false;

describe('MCP configuration', () => {
  it('expands ${VAR} and ${VAR:-default}; a missing variable names server, field and variable; a provider key is refused', () => {
    expect(expandVars('a ${X} ${Y:-dflt} ${Z:-}', { X: '1' }, noSecrets, 'here')).toBe('a 1 dflt ');
    // set but empty gives the default, as Claude Code does (kills the mutant that tests only `v !== undefined`)
    expect(expandVars('${E:-fallback}', { E: '' }, noSecrets, 'here')).toBe('fallback');
    expect(expandVars('${E:-fallback}', { E: 'set' }, noSecrets, 'here')).toBe('set');
    expect(() => expandVars('${NOPE}', {}, noSecrets, 'MCP server "s", field "args[0]"')).toThrow(
      'MCP server "s", field "args[0]": the environment variable NOPE is not set',
    );
    expect(() => expandVars('${ANTHROPIC_API_KEY}', { ANTHROPIC_API_KEY: 'k' }, (n) => n === 'ANTHROPIC_API_KEY', 'w')).toThrow('never passed to MCP servers');
  });

  it('reads .mcp.json (project, needs approval) and .agentrc servers; a broken entry keeps its error, others still run', () => {
    const dir = tempDir('mcp-config-');
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: { a: { command: 'x', args: ['--t=${TOKEN}'], env: { K: '${TOKEN:-none}' } }, b: { type: 'http', url: '${MISSING}' }, c: { args: [] } },
      }),
    );
    const servers = mcpServers(
      { cwd: dir, mcpServers: [{ name: 'h', file: join(dir, 'home', '.agentrc'), entry: { url: 'http://127.0.0.1:1/mcp' } }] },
      { TOKEN: 't0' },
      noSecrets,
      join(dir, 'home'),
    );
    const by = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(by['a']).toMatchObject({ project: true, launch: { type: 'stdio', command: 'x', args: ['--t=t0'], env: { K: 't0' } } });
    expect(by['b']!.error).toContain('MISSING is not set');
    expect(by['c']!.error).toContain('needs "command"');
    expect(by['h']).toMatchObject({ project: false, launch: { type: 'http', url: 'http://127.0.0.1:1/mcp' } });
  });

  // issue 30: a .mcp.json that is not JSON became a failed server named ".mcp.json" with the
  // parser's character position; a wrong field had no position at all. The file's problem is a
  // problem of the file (line and column, as .agentrc's are), and no server is made of it.
  it('reports a broken .mcp.json as the file with line and column, not as a server; a wrong field gets its line too', () => {
    const dir = tempDir('mcp-config-');
    const file = join(dir, '.mcp.json');
    writeFileSync(file, '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n');
    const problems: string[] = [];
    expect(mcpServers({ cwd: dir, mcpServers: [] }, {}, noSecrets, join(dir, 'home'), problems)).toEqual([]);
    expect(problems).toEqual([`${file}: not valid JSON at line 4, column 5: expected ","; its MCP servers do not start`]);
    writeFileSync(file, '{\n  "mcpServers": {\n    "ok": { "command": "x" },\n    "bad": { "command": 5 }\n  }\n}\n');
    const more: string[] = [];
    const servers = mcpServers({ cwd: dir, mcpServers: [] }, {}, noSecrets, join(dir, 'home'), more);
    expect(more).toEqual([]);
    expect(servers.map((s) => s.name)).toEqual(['bad', 'ok']);
    expect(servers[0]!.error).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}: line 4, column 14: field "mcpServers\\.bad\\.command": `));
    // a misspelt field is named, with the field it was meant to be (another client's own fields pass)
    writeFileSync(file, '{ "mcpServers": { "t": { "commnd": "x", "description": "theirs" } } }');
    const typo = mcpServers({ cwd: dir, mcpServers: [] }, {}, noSecrets, join(dir, 'home'), []);
    // mutation: an object that strips unknown keys unchecked says only that "command" is missing
    expect(typo[0]!.error).toBe(`${file}: line 1, column 26: field "mcpServers.t.commnd": unknown field (did you mean "command"?)`);
    // near enough: within a third of the field's length (one letter off "env"), two letters at most
    writeFileSync(file, '{ "mcpServers": { "t": { "command": "x", "ev": {} } } }');
    expect(mcpServers({ cwd: dir, mcpServers: [] }, {}, noSecrets, join(dir, 'home'), [])[0]!.error).toMatch(
      /field "mcpServers\.t\.ev": unknown field \(did you mean "env"\?\)$/,
    );
    writeFileSync(file, '{ "mcpServers": [] }');
    const wrong: string[] = [];
    expect(mcpServers({ cwd: dir, mcpServers: [] }, {}, noSecrets, join(dir, 'home'), wrong)).toEqual([]);
    expect(wrong).toEqual([`${file}: line 1, column 3: field "mcpServers" must be an object of servers by name; its MCP servers do not start`]);
  });

  it('a stdio server gets a minimal environment plus its own env, never the keys', () => {
    const env = serverEnv({ OWN: '1' }, { PATH: '/bin', HOME: '/h', ANTHROPIC_API_KEY: 'sk', GITHUB_TOKEN: 'g' }, noSecrets);
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', OWN: '1' });
  });
});

describe('MCP tools', () => {
  it('names tools mcp__server__tool, sanitized, within 64 characters and unique', () => {
    expect(mcpToolName('git hub', 'get.file')).toBe('mcp__git_hub__get_file');
    const long = mcpToolName('server', 'x'.repeat(80));
    const long2 = mcpToolName('server', `${'x'.repeat(79)}y`);
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).not.toBe(long2);
  });

  it('finds schemas a provider would refuse', () => {
    expect(schemaProblem({ type: 'object', properties: { a: { type: 'string' } } })).toBeUndefined();
    expect(schemaProblem({ type: 'string' })).toContain('type "string"');
    expect(schemaProblem({ type: 'object', properties: { a: 1 } })).toContain('not a schema object');
  });

  it('turns results into text: resource links, structuredContent, isError, and a cap', () => {
    const r = resultText('s', 't', { content: [{ type: 'resource_link', name: 'n', uri: 'file:///a' }], structuredContent: { x: 1 }, isError: true }, 1000);
    expect(r).toEqual({ content: '[resource link] n: file:///a\n{"x":1}', isError: true });
    const big = resultText('s', 't', { content: [{ type: 'text', text: 'y'.repeat(5000) }] }, 100);
    expect(big.content).toContain('capped at 100 characters');
    expect(big.content.length).toBeLessThan(400);
  });

  it('allowTools patterns: exact, mcp__server, mcp__server__*', () => {
    expect(toolAllowedBy(['mcp__github__*'], 'mcp__github__create_issue')).toBe(true);
    expect(toolAllowedBy(['mcp__github'], 'mcp__github__create_issue')).toBe(true);
    expect(toolAllowedBy(['mcp__github'], 'mcp__githubx__a')).toBe(false);
    expect(toolAllowedBy(['mcp__git*'], 'Bash')).toBe(false);
  });
});
