import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTokenCounter } from '../src/compaction/tokens.js';
import type { Config } from '../src/config/config.js';
import type { Provider } from '../src/llm/provider.js';
import { Session, type SessionDeps } from '../src/session/session.js';
import { openStore, type Store } from '../src/store/index.js';
import { createTools } from '../src/tools/registry.js';

// Where a bench runs the agent (and Claude Code beside it, with AGENT_BENCH_PEER): a fresh
// temporary folder of its own with an empty home and a project, the environment both programs get
// there against the fake server, and Claude Code's settings that let it run unattended; and the
// in-process session the compaction benches drive.

/** The key every bench gives both programs (the fake server takes any). */
export const BENCH_KEY = 'sk-ant-bench-0123456789';

export interface BenchPlace {
  root: string;
  home: string;
  project: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A fresh `agent-bench-<name>-…` folder with an empty home and a project whose `.agentrc` is `rc`,
 * and the environment a run gets there: PATH, that home, a database of its own, the key and the
 * fake server's address.
 */
export function benchPlace(name: string, baseURL: string, rc = '{}'): BenchPlace {
  const root = mkdtempSync(join(tmpdir(), `agent-bench-${name}-`));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(home);
  mkdirSync(project);
  writeFileSync(join(project, '.agentrc'), rc);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    AGENT_DB: join(root, 'agent.db'),
    ANTHROPIC_API_KEY: BENCH_KEY,
    ANTHROPIC_BASE_URL: baseURL,
  };
  return { root, home, project, env };
}

/** Claude Code's settings in a home folder: onboarding done, the key approved, the projects trusted. */
export function peerHome(home: string, projects: string[], key = BENCH_KEY): void {
  const trusted = Object.fromEntries(projects.map((p) => [p, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }]));
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, numStartups: 5, customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] }, projects: trusted }),
  );
}

/**
 * A session as the benches drive one against the fake server: the configuration's store, the
 * built-in tools, no capability, the real tokenizer; `engine` sets its clock or micro policy. The
 * caller closes the store.
 */
export async function benchSession(config: Config, provider: Provider, engine?: SessionDeps['engine']): Promise<{ session: Session; store: Store }> {
  const store = openStore(config.dbPath);
  const session = Session.open({
    config,
    store,
    provider,
    tools: (lent) => createTools({ bash: config.bash }, lent),
    capabilities: [],
    counter: await createTokenCounter(),
    ...(engine ? { engine } : {}),
  });
  return { session, store };
}
