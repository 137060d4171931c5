import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { timeToScreen } from './firstframe.js';

// The TUI's first frame with two MCP servers that take 5 s to start, against the first frame
// without servers: the servers connect in the background, so the ratio should stay near 1.
// Interleaved runs, medians; the servers are the test tree's failing server with a delay.

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');
const SLOW = resolve(import.meta.dirname, '..', 'test', 'mcp', 'failing-server.mjs');
const READY = '/help commands';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function main(): Promise<void> {
  const runs = Number(process.env.RUNS ?? 11);
  const root = mkdtempSync(join(tmpdir(), 'agent-bench-mcp-'));
  const home = join(root, 'home');
  const plain = join(root, 'plain');
  const withMcp = join(root, 'mcp');
  for (const d of [home, plain, withMcp]) mkdirSync(d);
  writeFileSync(join(plain, '.agentrc'), '{}');
  writeFileSync(join(withMcp, '.agentrc'), '{}');
  const slow = { command: process.execPath, args: [SLOW], env: { MODE_DELAY_MS: '5000' } };
  writeFileSync(join(withMcp, '.mcp.json'), JSON.stringify({ mcpServers: { slow1: slow, slow2: slow } }));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    TERM: 'xterm-256color',
    ANTHROPIC_API_KEY: 'sk-ant-bench-0123456789',
    AGENT_DB: join(root, 'a.db'),
  };
  const args = [process.execPath, BIN, '--model', 'claude-sonnet-4-6', '--mcp-trust'];
  try {
    const none: number[] = [];
    const two: number[] = [];
    for (let i = 0; i < runs; i++) {
      none.push(await timeToScreen(args, env, plain, READY));
      two.push(await timeToScreen(args, env, withMcp, READY));
    }
    const a = median(none);
    const b = median(two);
    console.log(`first interactive frame (median of ${runs} interleaved runs):`);
    console.log(`  no MCP servers                     ${a.toFixed(0)} ms`);
    console.log(`  two servers that take 5 s to start ${b.toFixed(0)} ms  → ${(b / a).toFixed(2)}× (goal ≤ 1.10×)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
