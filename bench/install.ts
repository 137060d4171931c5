import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startFakeServer } from '../test/fake-server/server.js';
import { timeToScreen } from './firstframe.js';
import { median, timeRun } from './startup.js';

// The installed package against the checkout: `npm pack`, `npm install -g` of the tarball into
// a temporary prefix, then the first interactive frame (in a pty) and one `-p` round trip
// against the fake provider, of the installed `agent` and of the checkout's bin/agent.js,
// interleaved, as ratios installed / checkout. The install runs with --ignore-scripts and gets
// the checkout's compiled better-sqlite3 binary (the same version, built for this Node): what is
// measured is the installed layout's start-up, not the install (npm run test:install times that).

const ROOT = resolve(import.meta.dirname, '..');
const CHECKOUT_BIN = join(ROOT, 'bin', 'agent.js');
const READY = '/help commands';

export interface InstallFigures {
  runs: number;
  checkoutPrintMs: number;
  installedPrintMs: number;
  checkoutFrameMs: number;
  installedFrameMs: number;
}

function npm(args: string[], cwd: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_')));
  const r = spawnSync('npm', args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

export async function benchInstall(opts: { runs?: number } = {}): Promise<InstallFigures> {
  const runs = opts.runs ?? 15;
  const root = mkdtempSync(join(tmpdir(), 'agent-bench-install-'));
  const server = await startFakeServer({ fallback: { text: 'pong' } });
  try {
    const packed = npm(['pack', '--pack-destination', root, '--silent'], ROOT).trim().split('\n').at(-1)!;
    const prefix = join(root, 'prefix');
    npm(['install', '-g', join(root, packed), '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund'], root);
    const pkgDir = join(prefix, 'lib', 'node_modules', '@longhaul', 'agent');
    cpSync(
      join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
      join(pkgDir, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'),
    );
    const installedBin = join(pkgDir, 'bin', 'agent.js');
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(home);
    mkdirSync(project);
    writeFileSync(join(project, '.agentrc'), '{}');
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      TERM: 'xterm-256color',
      ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789',
      ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    };
    const print = { checkout: [] as number[], installed: [] as number[] };
    const frame = { checkout: [] as number[], installed: [] as number[] };
    const model = ['--model', 'claude-sonnet-4-6'];
    // interleaved, so that load drifts affect both alike
    for (let i = 0; i < runs; i++) {
      for (const [which, bin] of [
        ['checkout', CHECKOUT_BIN],
        ['installed', installedBin],
      ] as const) {
        print[which].push(await timeRun([bin, '-p', 'ping', ...model], { ...env, AGENT_DB: join(root, `${which}-print.db`) }, project));
        frame[which].push(await timeToScreen([process.execPath, bin, ...model], { ...env, AGENT_DB: join(root, `${which}-frame.db`) }, project, READY));
      }
    }
    return {
      runs,
      checkoutPrintMs: median(print.checkout),
      installedPrintMs: median(print.installed),
      checkoutFrameMs: median(frame.checkout),
      installedFrameMs: median(frame.installed),
    };
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

export function formatInstall(f: InstallFigures): string {
  const ms = (n: number): string => `${n.toFixed(0)} ms`.padStart(7);
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(3)}×`;
  return [
    `installed package vs checkout (median of ${f.runs} interleaved runs each):`,
    `                        checkout  installed  installed / checkout`,
    `  first frame (pty)      ${ms(f.checkoutFrameMs)}    ${ms(f.installedFrameMs)}  ${ratio(f.installedFrameMs, f.checkoutFrameMs)}`,
    `  agent -p round trip    ${ms(f.checkoutPrintMs)}    ${ms(f.installedPrintMs)}  ${ratio(f.installedPrintMs, f.checkoutPrintMs)}`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchInstall()
    .then((f) => console.log(formatInstall(f)))
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
