import { type ChildProcess, spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { IN_PLACE_MARKER } from '../../src/compaction/prompt.js';
import { lastUserText, startFakeServer, type FakeServer, type RequestView } from '../fake-server/server.js';
import { noteRegimeModelRead, noteSuiteWorkspace, type ProviderKind, REGIME_MODEL, SECOND_REGIME_MODEL } from './regime.js';

// Runs the built CLI (bin/agent.js → dist/) as a child process against the fake provider
// server, in a private workspace: its own HOME, database and project directory.

/** The built-in tools a session offers the model, in the order of the request (the cached prefix's order). */
export const BUILT_IN_TOOLS = ['FileRead', 'Edit', 'Write', 'Bash', 'Grep', 'Glob', 'Recall', 'Task', 'KillShell', 'TodoWrite', 'ExitPlanMode', 'WebFetch'];

export const AGENT_BIN = resolve(__dirname, '..', '..', 'bin', 'agent.js');

export type { ProviderKind };

/**
 * The models the runs use unless a test names one. The Anthropic default thinks (the 5 family
 * thinks whether asked or not, and the fake server binds its thinking to its prefix), so every
 * suite exercises thinking; AGENT_E2E_ANTHROPIC_MODEL=claude-sonnet-4-5 runs them on a 4.5-era
 * model instead.
 */
export const MODEL: Readonly<Record<ProviderKind, string>> = {
  // a read is noted: a test that reads it is not regime-free (test/e2e/regime.ts)
  get anthropic(): string {
    noteRegimeModelRead();
    return REGIME_MODEL;
  },
  openai: 'gpt-4o',
};

/**
 * On claude-sonnet-4-5 the suites think too: enabled with a 4,000-token budget (the only mode of
 * a 4.5-era model), set for that model alone, so a test's own models and thinking still win.
 */
const MODEL_RC: Record<string, unknown> =
  REGIME_MODEL === SECOND_REGIME_MODEL
    ? { [SECOND_REGIME_MODEL]: { contextWindow: 200_000, maxOutputTokens: 64_000, thinking: { mode: 'enabled', budgetTokens: 4_000 } } }
    : {};
export const KEY: Record<ProviderKind, string> = {
  anthropic: 'sk-ant-e2e-SECRET-anthropic-0123456789',
  openai: 'sk-e2e-SECRET-openai-0123456789abcdef',
};

export interface Workspace {
  root: string;
  /** The project directory (cwd of the agent). */
  dir: string;
  home: string;
  db: string;
}

/** A fresh workspace; `rc` becomes the project's .agentrc (fast retries by default; on claude-sonnet-4-5 the suite's thinking, MODEL_RC). */
export function workspace(rc: Record<string, unknown> = {}, opts: { suiteThinking?: boolean } = {}): Workspace {
  const root = mkdtempSync(join(tmpdir(), 'agent-e2e-'));
  madeWorkspaces.push(root);
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(dir);
  mkdirSync(home);
  // a test that sets thinking, or opts out (it tests what an .agentrc entry would override), gets none of the suite's
  const suiteThinking = opts.suiteThinking !== false && rc['thinking'] === undefined;
  if (suiteThinking) noteSuiteWorkspace();
  const suite = suiteThinking ? MODEL_RC : {};
  const models = { ...suite, ...(rc['models'] as Record<string, unknown> | undefined) };
  const withModels = Object.keys(models).length > 0 ? { ...rc, models } : rc;
  writeFileSync(join(dir, '.agentrc'), JSON.stringify({ retry: { baseDelayMs: 5, maxDelayMs: 50 }, ...withModels }));
  return { root, dir, home, db: join(root, 'data', 'agent.db') };
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  ws: Workspace;
  server?: FakeServer;
  provider?: ProviderKind;
  /** Extra or overriding environment; undefined values remove a variable. */
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
  /** Called once the child is spawned (e.g. to kill it at some point). */
  onSpawn?: (child: ChildProcess) => void;
}

export function agentEnv(opts: Pick<RunOptions, 'ws' | 'server' | 'provider' | 'env'>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ANTHROPIC_|OPENAI_|AGENT_|XDG_)/.test(k)) continue;
    env[k] = v;
  }
  env.HOME = opts.ws.home;
  env.AGENT_DB = opts.ws.db;
  env.NO_COLOR = '1';
  const provider = opts.provider ?? 'anthropic';
  if (opts.server) {
    if (provider === 'anthropic') {
      env.ANTHROPIC_API_KEY = KEY.anthropic;
      env.ANTHROPIC_BASE_URL = opts.server.anthropicBaseURL;
    } else {
      env.OPENAI_API_KEY = KEY.openai;
      env.OPENAI_BASE_URL = opts.server.openaiBaseURL;
    }
  }
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Agents runAgent started that have not exited: the e2e setup file stops them after each test. */
const running = new Set<ChildProcess>();

/**
 * Sends SIGTERM to an in-process run's signals now, and again when the run starts listening for
 * it: a run stopped while it still starts up has no handler yet, and would otherwise go on (and
 * take the replies queued for the next test from the worker's fake server).
 */
export function stopWhenListening(signals: EventEmitter): void {
  signals.on('newListener', (event: string) => {
    if (event === 'SIGTERM') setImmediate(() => signals.emit('SIGTERM', 'SIGTERM'));
  });
  signals.emit('SIGTERM', 'SIGTERM');
}

/** In-process runs (inprocess.ts) that have not ended: `stop` sends one SIGTERM, as its own signal, and resolves when it ended. */
export const inProcessRuns = new Set<{ stop: () => Promise<unknown> }>();

/**
 * Kills the agents a test left running (it failed or timed out while one ran) and waits until
 * they are gone: otherwise one would go on taking the replies queued for the next test on the
 * same fake server. An in-process run is sent SIGTERM (its own signals) and waited for.
 * Resolves with how many there were.
 */
export async function stopLeftoverAgents(): Promise<number> {
  const left = [...running];
  const runs = [...inProcessRuns];
  await Promise.all([
    ...left.map(
      (child) =>
        new Promise<void>((done) => {
          child.once('close', () => done());
          child.kill('SIGKILL');
        }),
    ),
    ...runs.map((run) => run.stop()),
  ]);
  return left.length + runs.length;
}

/** Runs `agent <args>`; the model flag for the provider is added unless args name one. */
export function runAgent(args: string[], opts: RunOptions): Promise<RunResult> {
  const provider = opts.provider ?? 'anthropic';
  const fullArgs = args.includes('--model') || args[0] === 'sessions' ? args : [...args, '--model', MODEL[provider]];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [AGENT_BIN, ...fullArgs], {
      cwd: opts.ws.dir,
      env: agentEnv(opts),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`agent ${fullArgs.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      running.delete(child);
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
    opts.onSpawn?.(child);
  });
}

/** Every line of a JSON-lines output (--output-format events or stream-json), parsed. */
export const jsonLines = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The JSON result line of --output-format json (Claude Code's result) or events (the last line, this project's result). */
export function jsonResult(run: RunResult): Record<string, unknown> {
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`not a JSON result: ${run.stdout}\nstderr: ${run.stderr}`);
  }
}

/** Workspaces made in this worker since the last file's fake server closed (a worker runs its files one at a time). */
const madeWorkspaces: string[] = [];

/**
 * The worker's fake provider server: started by the first file that uses one, shared by the
 * files the worker runs after it (they share this module: isolate: false), and left to end with
 * the worker. `defaults` are its settings as started, which every test starts from.
 */
let workerServer: Promise<{ server: FakeServer; defaults: string }> | undefined;

/** Puts every setting back as the server started (a test's window, caps, models, flavors…). */
function resetSettings(server: FakeServer, defaults: string): void {
  const settings = server.settings as unknown as Record<string, unknown>;
  const initial = JSON.parse(defaults) as Record<string, unknown>;
  for (const key of Object.keys(settings)) if (!(key in initial)) delete settings[key];
  Object.assign(settings, initial);
}

/**
 * The fake provider server for a test file: the worker's one (started once, shared by its files),
 * reset (requests, queue, responder, prompt caches, every setting) before each test.
 */
export function useFakeServer(): FakeServer {
  let current: FakeServer | undefined;
  let defaults = '';
  beforeAll(async () => {
    workerServer ??= startFakeServer().then((server) => ({ server, defaults: JSON.stringify(server.settings) }));
    ({ server: current, defaults } = await workerServer);
  });
  afterAll(() => {
    // the file's workspaces go with it; AGENT_E2E_KEEP=1 keeps them to look at
    if (process.env.AGENT_E2E_KEEP === '1') return;
    for (const root of madeWorkspaces.splice(0)) {
      try {
        rmSync(root, { recursive: true, force: true, maxRetries: 3 });
      } catch (e) {
        // a process the file left behind may still write there: a leftover folder fails no test
        console.warn(`could not remove the workspace ${root}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  });
  beforeEach(() => {
    if (!current) return;
    current.clear();
    current.respondWith(undefined);
    resetSettings(current, defaults);
  });
  return new Proxy({} as FakeServer, {
    get(_target, prop) {
      if (!current) throw new Error('the fake server is used before it started');
      const value: unknown = Reflect.get(current, prop, current);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
    },
  });
}

/**
 * A request of the compaction summarizer, as opposed to a turn of the agent: the transcript
 * path's system prompt says so, the in-place summary (the session's own request plus an
 * instruction, for the prompt cache) ends with the compaction request.
 */
export const isSummarizer = (v: RequestView): boolean => v.system.includes('context checkpoints') || (lastUserText(v)?.includes(IN_PLACE_MARKER) ?? false);
