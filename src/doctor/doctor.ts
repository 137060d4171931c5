// `agent doctor`: is this machine set up to run agent? Node.js and npm, the SQLite module with
// FTS5 and WAL, ripgrep, the database's folder, the config files, the provider's key (present,
// never printed) and the MCP servers' start, as a short report or JSON (--json). Exit code 1
// when a check failed, 0 otherwise (warnings included). It needs no working SQLite to run: a
// failing binding is its `sqlite` check, with the explanation `agent` itself would print.

import { dirname } from 'node:path';
import { homeDir, world } from '../runtime/world.js';
import pkg from '../../package.json' with { type: 'json' };
import { flagsOf } from '../runConfig.js';
import type { GlobalOptions } from '../cliOptions.js';
import { type Config, ConfigError, defaultDbPath, loadConfig } from '../config/config.js';
import { secretVars } from '../config/secrets.js';
import { redact, registerSecret } from '../log.js';
import {
  type CheckResult,
  checkCheckpoints,
  checkDatabase,
  checkKeys,
  checkMcp,
  checkNode,
  checkNpm,
  checkRipgrep,
  checkSandbox,
  checkSqlite,
} from './checks.js';

export interface DoctorOptions extends GlobalOptions {
  json?: boolean;
}

export interface DoctorReport {
  name: string;
  version: string;
  ok: boolean;
  checks: CheckResult[];
}

/** Runs every check in a fixed order (the cheap ones first; MCP servers last). */
export async function doctorReport(opts: DoctorOptions, env: NodeJS.ProcessEnv = world().env, cwd: string = world().cwd): Promise<DoctorReport> {
  let config: Config | undefined;
  let configCheck: CheckResult;
  try {
    config = loadConfig({ cwd, env, flags: flagsOf(opts) });
    const files = config.sources.length > 0 ? config.sources.join(', ') : 'no .agentrc (the defaults)';
    configCheck =
      config.warnings.length > 0
        ? { name: 'config', status: 'warn', summary: files, details: config.warnings }
        : { name: 'config', status: 'ok', summary: files };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    configCheck = { name: 'config', status: 'fail', summary: 'a config file is wrong', details: [e.message] };
  }
  // every key this process can see is redacted from the report, whatever a check prints
  const secrets = new Set(config ? secretVars(config, env) : []);
  for (const name of secrets) registerSecret(env[name]?.trim());
  const dbPath = config?.dbPath ?? opts.db ?? env.AGENT_DB ?? defaultDbPath(env, homeDir());
  const checks: CheckResult[] = [
    checkNode(),
    checkNpm(env),
    checkSqlite(),
    await checkRipgrep(),
    checkDatabase(dbPath),
    await checkCheckpoints(config, dirname(dbPath)),
    configCheck,
    checkKeys(config, env),
    config ? await checkMcp(config, env, secrets) : { name: 'mcp', status: 'warn', summary: 'not checked: the configuration did not load' },
    await checkSandbox(config, env),
  ];
  return { name: pkg.name, version: pkg.version, ok: checks.every((c) => c.status !== 'fail'), checks };
}

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** The short report: one line a check, its details indented under it, and what failed at the end. */
export function formatReport(r: DoctorReport): string {
  const width = Math.max(...r.checks.map((c) => c.name.length));
  const lines = [`agent doctor: ${r.name} ${r.version}`];
  for (const c of r.checks) {
    lines.push(`  ${MARK[c.status]}  ${c.name.padEnd(width)}  ${c.summary}`);
    for (const d of c.details ?? []) lines.push(`        ${' '.repeat(width)}  ${d}`);
  }
  const failed = r.checks.filter((c) => c.status === 'fail').map((c) => c.name);
  lines.push(failed.length === 0 ? 'No problems found.' : `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.join(', ')}.`);
  return lines.join('\n');
}

export async function runDoctor(opts: DoctorOptions): Promise<number> {
  const report = await doctorReport(opts);
  const text = opts.json ? JSON.stringify(report, null, 2) : formatReport(report);
  world().stdout.write(`${redact(text)}\n`);
  return report.ok ? 0 : 1;
}
