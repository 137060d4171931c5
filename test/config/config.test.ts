import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadDbPath, readConfigFile, withModel } from '../../src/config/config.js';
import { MissingKeyError, resolveCredentials } from '../../src/config/credentials.js';
import { stripJsonComments } from '../../src/config/jsonc.js';
import { inferProvider, resolveModel } from '../../src/config/models.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { tempDir } from '../tempDirs.js';

function dirs(): { home: string; cwd: string } {
  const root = tempDir('agent-config-');
  const home = join(root, 'home');
  const cwd = join(root, 'project');
  mkdirSync(home);
  mkdirSync(cwd);
  return { home, cwd };
}

const load = (d: { home: string; cwd: string }, flags = {}, env: NodeJS.ProcessEnv = {}) => loadConfig({ cwd: d.cwd, home: d.home, env, flags });

describe('config loading', () => {
  it('uses defaults when no file exists', () => {
    const d = dirs();
    const c = load(d, {}, { ANTHROPIC_API_KEY: 'x' });
    expect(c.provider).toBe('anthropic');
    expect(c.model.name).toBe('claude-sonnet-5-5');
    expect(c.permissions.mode).toBe('ask');
    expect(c.compaction.autoBufferTokens).toBe(13_000);
    // mutation: a default moved by one (checkpoints.maxFiles 100,001, checkpoints off, the summary's deadline)
    expect(c.checkpoints).toEqual({ enabled: true, maxFiles: 100_000, maxStoreMB: 2048, keepDays: 30 });
    expect(c.compaction).toMatchObject({ microWorkingSetTokens: 0, background: true, summaryDeadlineSeconds: 120 });
    expect(c.dbPath).toBe(join(d.home, '.local', 'share', 'agent', 'agent.db'));
    expect(c.sources).toEqual([]);
    expect(c.warnings).toEqual([]);
  });

  it('reads api, and warns when compaction.engine "provider" cannot apply (not OpenAI, or not the Responses API)', () => {
    const d = dirs();
    writeFileSync(
      join(d.cwd, '.agentrc'),
      JSON.stringify({ model: 'gpt-5.4', api: 'responses', baseURL: 'http://localhost:9/v1', compaction: { engine: 'provider' } }),
    );
    const c = load(d);
    expect(c.api).toBe('responses');
    expect(c.compaction.engine).toBe('provider');
    expect(c.warnings).toEqual([]);
    expect(withModel(c, 'claude-sonnet-5-5').api).toBe('responses');
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ model: 'gpt-5.4', baseURL: 'http://localhost:9/v1', compaction: { engine: 'provider' } }));
    expect(load(d).warnings.join('\n')).toMatch(/compaction\.engine "provider" applies to OpenAI models on the Responses API/);
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ model: 'claude-sonnet-5-5', compaction: { engine: 'provider' } }));
    expect(load(d).warnings.join('\n')).toMatch(/claude-sonnet-5-5 compacts with the agent's own summarizer/);
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ model: 'gpt-5.4', reasoningEffort: 'high' }));
    expect(load(d).reasoningEffort).toBe('high');
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ reasoningEffort: 'extreme' }));
    expect(() => load(d)).toThrow(/reasoningEffort/);
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ api: 'graphql' }));
    expect(() => load(d)).toThrow(/api/);
  });

  it('lets the working directory win over home, and flags over both', () => {
    const d = dirs();
    writeFileSync(
      join(d.home, '.agentrc'),
      JSON.stringify({ model: 'gpt-4o', compaction: { tailTurns: 7, cooldownTurns: 9 }, permissions: { allowBash: ['ls'] } }),
    );
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ model: 'claude-haiku-4-5', compaction: { tailTurns: 2 } }));
    const c = load(d);
    expect(c.model.name).toBe('claude-haiku-4-5');
    expect(c.provider).toBe('anthropic');
    expect(c.compaction.tailTurns).toBe(2);
    expect(c.compaction.cooldownTurns).toBe(9);
    expect(c.permissions.allowBash).toEqual(['ls']);
    expect(c.sources).toEqual([join(d.home, '.agentrc'), join(d.cwd, '.agentrc')]);
    const flagged = load(d, { model: 'gpt-4o', permissionMode: 'allow' });
    expect(flagged.model.name).toBe('gpt-4o');
    expect(flagged.provider).toBe('openai');
    expect(flagged.permissions.mode).toBe('allow');
  });

  it('takes the acceptEdits mode from .agentrc and from --permission-mode', () => {
    const d = dirs();
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ permissions: { mode: 'acceptEdits' } }));
    expect(load(d).permissions.mode).toBe('acceptEdits');
    expect(load(d, { permissionMode: 'ask' }).permissions.mode).toBe('ask');
    writeFileSync(join(d.cwd, '.agentrc'), '{}');
    expect(load(d, { permissionMode: 'acceptEdits' }).permissions.mode).toBe('acceptEdits');
    expect(() => load(d, { permissionMode: 'acceptedits' })).toThrow(
      /use ask, acceptEdits, plan, allow or deny; Claude Code's default, bypassPermissions and dontAsk work too/,
    );
  });

  it('names the file and the field for a wrong value, and exits as a usage error', () => {
    const d = dirs();
    const file = join(d.cwd, '.agentrc');
    writeFileSync(file, JSON.stringify({ compaction: { tailTurns: -1 } }));
    expect(() => load(d)).toThrow(ConfigError);
    expect(() => load(d)).toThrow(`${file}: line 1, column 16: field "compaction.tailTurns"`);
    writeFileSync(file, JSON.stringify({ permissions: { mode: 'sometimes' } }));
    expect(() => load(d)).toThrow(/field "permissions\.mode"/);
    writeFileSync(file, JSON.stringify({ modle: 'x' }));
    expect(() => load(d)).toThrow(/field "modle": unknown key/);
    writeFileSync(file, JSON.stringify({ models: { m: { contextWindow: 'big', maxOutputTokens: 1 } } }));
    expect(() => load(d)).toThrow(/field "models\.m\.contextWindow"/);
    // the background summary's prefire: a share of the auto threshold, above 0 and at most 1
    for (const prefire of [0, 1.01]) {
      writeFileSync(file, JSON.stringify({ compaction: { prefire } }));
      expect(() => load(d), String(prefire)).toThrow(/field "compaction\.prefire"/);
    }
    writeFileSync(file, JSON.stringify({ compaction: { prefire: 1 } }));
    expect(load(d).compaction.prefire).toBe(1);
    // an MCP server that is not an object is the field's error, not a crash (mutation: `||` made `&&` read null's keys);
    // a misspelt field after a known one is still named (mutation: `continue` made `break`)
    writeFileSync(file, JSON.stringify({ mcpServers: { t: null } }));
    expect(() => load(d)).toThrow(ConfigError);
    expect(() => load(d)).toThrow(/field "mcpServers\.t"/);
    writeFileSync(file, JSON.stringify({ mcpServers: { t: { command: 'x', comand: 'y' } } }));
    expect(() => load(d)).toThrow(/field "mcpServers\.t\.comand": unknown field \(did you mean "command"\?\)/);
  });

  it('names the file for malformed JSON', () => {
    const d = dirs();
    const file = join(d.home, '.agentrc');
    writeFileSync(file, '{\n  "model": "gpt-4o"\n  "maxSteps": 3\n}');
    expect(() => load(d)).toThrow(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON at line 3, column 3: expected ","`));
  });

  it('rejects bad flags with the flag named', () => {
    const d = dirs();
    expect(() => load(d, { provider: 'google' })).toThrow(/--provider: "google"/);
    expect(() => load(d, { permissionMode: 'yolo' })).toThrow(/--permission-mode/);
    expect(() => load(d, { baseURL: 'not a url' })).toThrow(/--base-url/);
    expect(() => load(d, { model: 'mystery-model' })).toThrow(/--model: cannot tell which provider serves "mystery-model"/);
  });

  it('runs an unknown model with stated default limits and a warning', () => {
    const d = dirs();
    const c = load(d, { model: 'llama3.1:8b', baseURL: 'http://localhost:11434/v1' });
    expect(c.provider).toBe('openai');
    expect(c.model).toMatchObject({ contextWindow: 32_768, maxOutputTokens: 4_096, source: 'default' });
    expect(c.warnings[0]).toMatch(/Unknown model "llama3\.1:8b": assuming a 32,768-token context window/);
  });

  it("a model of the other provider family does not inherit the first family's base URL or key variable", () => {
    const d = dirs();
    writeFileSync(
      join(d.cwd, '.agentrc'),
      JSON.stringify({
        model: 'qwen3-coder',
        provider: 'openai',
        baseURL: 'http://localhost:8080/v1',
        apiKeyEnv: 'LOCAL_KEY',
        compaction: { model: 'claude-haiku-4-5' },
      }),
    );
    const c = load(d);
    expect(c.warnings.join('\n')).not.toMatch(/compaction/);
    const haiku = withModel(c, 'claude-haiku-4-5');
    expect(haiku).toMatchObject({ provider: 'anthropic', model: { name: 'claude-haiku-4-5', contextWindow: 200_000 } });
    expect(haiku.baseURL).toBeUndefined();
    expect(haiku.apiKeyEnv).toBeUndefined();
    // the same family keeps them: another model on the same local server
    expect(withModel(c, 'llama3.1:8b')).toMatchObject({ provider: 'openai', baseURL: 'http://localhost:8080/v1', apiKeyEnv: 'LOCAL_KEY' });
  });

  it('takes model limits and provider from the models map', () => {
    const d = dirs();
    writeFileSync(
      join(d.cwd, '.agentrc'),
      JSON.stringify({ model: 'tiny', models: { tiny: { contextWindow: 8192, maxOutputTokens: 1024, provider: 'openai' } } }),
    );
    const c = load(d);
    expect(c.provider).toBe('openai');
    expect(c.model).toMatchObject({ name: 'tiny', contextWindow: 8192, maxOutputTokens: 1024, source: 'config' });
    expect(c.maxOutputTokens).toBe(1024);
    expect(c.warnings).toEqual([]);
  });

  it('resolves the database path: flag, then AGENT_DB, then the file, then XDG_DATA_HOME', () => {
    const d = dirs();
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ db: 'from-file.db' }));
    expect(load(d, { db: '/tmp/flag.db' }, { AGENT_DB: '/tmp/env.db' }).dbPath).toBe('/tmp/flag.db');
    expect(load(d, {}, { AGENT_DB: '/tmp/env.db' }).dbPath).toBe('/tmp/env.db');
    expect(load(d).dbPath).toBe(join(d.cwd, 'from-file.db'));
    const d2 = dirs();
    expect(load(d2, {}, { XDG_DATA_HOME: '/data' }).dbPath).toBe('/data/agent/agent.db');
  });

  it('`agent sessions` finds the same database without a model: the home file, the project file over it, the default under home', () => {
    const d = dirs();
    const dbOf = (env: NodeJS.ProcessEnv = {}) => loadDbPath({ cwd: d.cwd, home: d.home, env, flags: {} });
    // mutation: the given home ignored (the real one read) finds another database
    expect(dbOf()).toBe(join(d.home, '.local', 'share', 'agent', 'agent.db'));
    writeFileSync(join(d.home, '.agentrc'), JSON.stringify({ db: '/tmp/home.db' }));
    expect(dbOf()).toBe('/tmp/home.db');
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ db: 'project.db' }));
    expect(dbOf()).toBe(join(d.cwd, 'project.db'));
    expect(dbOf({ AGENT_DB: '/tmp/env.db' })).toBe('/tmp/env.db');
    expect(load(d, {}, { ANTHROPIC_API_KEY: 'x' }).dbPath).toBe(join(d.cwd, 'project.db'));
  });

  it('picks OpenAI by default when only its key is set', () => {
    const d = dirs();
    const c = load(d, {}, { OPENAI_API_KEY: 'sk-x' });
    expect(c.provider).toBe('openai');
    expect(c.model.name).toBe('gpt-5');
  });

  it('accepts the documented .agentrc.example as-is', () => {
    const parsed = readConfigFile(join(__dirname, '..', '..', '.agentrc.example'));
    expect(parsed?.permissions?.mode).toBe('ask');
    expect(parsed?.compaction?.autoBufferTokens).toBe(13_000);
    expect(parsed?.bash?.passEnv).toEqual([]);
    expect(parsed?.bash?.stripEnv).toEqual(['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY']);
    expect(parsed?.permissions?.readPaths).toEqual(['~/src/shared-lib']);
    expect(parsed?.timeouts).toEqual({ connectMs: 10_000, firstByteMs: 120_000, idleMs: 120_000, totalMs: 300_000 });
    expect(parsed?.cache).toEqual({ enabled: true, ttl: '5m', promptCacheKey: 'auto' });
    expect(parsed?.thinking).toEqual({ mode: 'adaptive', display: 'summarized' });
  });

  it('--add-dir takes ~/ as the home of the run, a relative folder from the working directory, and names a missing one', () => {
    const d = dirs();
    mkdirSync(join(d.home, 'notes'));
    mkdirSync(join(d.cwd, 'vendor'));
    const env = { HOME: d.home };
    const c = inWorld({ ...processWorld(), env, cwd: d.cwd, slots: new Map<symbol, unknown>() }, () => load(d, { addDirs: ['~/notes', 'vendor'] }, env));
    expect(c.permissions.readPaths).toEqual(expect.arrayContaining([join(d.home, 'notes'), join(d.cwd, 'vendor')]));
    expect(() => load(d, { addDirs: ['gone'] })).toThrow('--add-dir: gone does not exist');
  });

  it('caches prompts by default, and takes the switch and the TTL from .agentrc', () => {
    const d = dirs();
    expect(load(d, {}, { ANTHROPIC_API_KEY: 'x' }).cache).toEqual({ enabled: true, ttl: '5m', promptCacheKey: 'auto' });
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ cache: { enabled: false, ttl: '1h' } }));
    expect(load(d, {}, { ANTHROPIC_API_KEY: 'x' }).cache).toMatchObject({ enabled: false, ttl: '1h' });
    writeFileSync(join(d.cwd, '.agentrc'), JSON.stringify({ cache: { ttl: '10m' } }));
    expect(() => load(d)).toThrow(/field "cache\.ttl"/);
  });
});

describe('JSON comments', () => {
  it('strips comments but not comment-like text inside strings', () => {
    const text = '{\n // note\n "a": "http://x//y", /* block\n comment */ "b": "/* no */"\n}';
    expect(JSON.parse(stripJsonComments(text))).toEqual({ a: 'http://x//y', b: '/* no */' });
  });
});

describe('models', () => {
  it('matches dated snapshots by prefix at a boundary', () => {
    expect(resolveModel('claude-sonnet-4-5-20250929')).toMatchObject({ source: 'builtin', provider: 'anthropic', contextWindow: 200_000 });
    expect(resolveModel('claude-sonnet-5-5')).toMatchObject({ contextWindow: 1_000_000, maxOutputTokens: 128_000 });
    expect(resolveModel('gpt-4o-mini-2024-07-18')).toMatchObject({ maxOutputTokens: 16_384, source: 'builtin' });
    expect(resolveModel('gpt-4omega').source).toBe('default');
  });

  it('infers providers from names', () => {
    expect(inferProvider('claude-opus-4-1')).toBe('anthropic');
    expect(inferProvider('gpt-5-mini')).toBe('openai');
    expect(inferProvider('o4-mini')).toBe('openai');
    expect(inferProvider('qwen2.5')).toBeUndefined();
  });
});

describe('credentials', () => {
  it('names the variable to set when the key is missing', () => {
    expect(() => resolveCredentials({ provider: 'anthropic' }, {})).toThrow(MissingKeyError);
    expect(() => resolveCredentials({ provider: 'anthropic' }, {})).toThrow(/set ANTHROPIC_API_KEY/);
    expect(() => resolveCredentials({ provider: 'openai' }, {})).toThrow(/set OPENAI_API_KEY/);
    expect(() => resolveCredentials({ provider: 'anthropic', apiKeyEnv: 'TEAM_KEY' }, {})).toThrow(/set TEAM_KEY/);
  });

  it('reads the key and lets local OpenAI-compatible servers go keyless', () => {
    expect(resolveCredentials({ provider: 'anthropic' }, { ANTHROPIC_API_KEY: 'k1' })).toEqual({ apiKey: 'k1', keyVar: 'ANTHROPIC_API_KEY' });
    expect(resolveCredentials({ provider: 'openai', baseURL: 'http://localhost:11434/v1' }, {}).apiKey).toBe('no-key-needed');
    expect(resolveCredentials({ provider: 'openai' }, { OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1' }).baseURL).toBe('http://127.0.0.1:8080/v1');
    expect(() => resolveCredentials({ provider: 'openai', baseURL: 'https://api.openai.com/v1' }, {})).toThrow(/OPENAI_API_KEY/);
  });
});

describe("Claude Code's settings files", () => {
  it("a project's statusLine is said to be ignored (it would run unapproved); the person's own is not", () => {
    const d = dirs();
    mkdirSync(join(d.home, '.claude'));
    mkdirSync(join(d.cwd, '.claude'));
    const statusLine = { type: 'command', command: 'echo branch' };
    writeFileSync(join(d.home, '.claude', 'settings.json'), JSON.stringify({ statusLine }));
    writeFileSync(join(d.cwd, '.claude', 'settings.json'), JSON.stringify({ statusLine }));
    // mutations (claudeSettings.ts): `scope === 'project' ||` warns of the person's own file too; the warning dropped says nothing
    expect(load(d, {}, { ANTHROPIC_API_KEY: 'x' }).warnings.filter((w) => w.includes('statusLine'))).toEqual([
      `${join(d.cwd, '.claude', 'settings.json')}: statusLine is read from ~/.agentrc only (a project's command would run without your approval); ignored`,
    ]);
  });
});
