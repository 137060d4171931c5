import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { startFakeServer } from '../test/fake-server/server.js';
import { benchPlace, peerHome } from './place.js';
import { writeModules } from './workload.js';

// Issue 48's "memory after 100 turns": one process kept for a whole session of 100 turns, as a
// person's TUI is, fed through Claude Code's stream-json (`-p --input-format stream-json
// --output-format stream-json`, which both programs speak): each turn the model reads a module of
// ~1,000 tokens through Bash and answers. After the 100th turn's `result` line the process's
// resident set (VmRSS) and its peak (VmHWM) are read from /proc. With AGENT_BENCH_PEER set to a
// Claude Code executable, the same session runs through it against the same fake server, one
// after the other (AGENT_BENCH_TURNS changes the count).

const BIN = resolve(import.meta.dirname, '..', 'bin', 'agent.js');
const MODULES = 30;
const MODEL = 'claude-sonnet-4-6';
/** How long one turn may take before the bench gives up on the program. */
const TURN_BOUND_MS = 60_000;

export interface MemoryFigures {
  turns: number;
  /** Resident set after the last turn, MiB. */
  rssMiB: number;
  /** Peak resident set over the session, MiB. */
  peakMiB: number;
  /** The whole session's wall time, ms. */
  ms: number;
  /** Resident set (MiB) after turn 1 and every 25th: how it grows with length. */
  curve: [number, number][];
}

const statusKiB = (pid: number, field: string): number =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

/** One process through `turns` stream-json turns, each sent when the last one's result came. */
async function session(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, turns: number): Promise<MemoryFigures> {
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4_000)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  let results = 0;
  const curve: [number, number][] = [];
  let onResult: (() => void) | undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const msg = JSON.parse(line) as { type?: string; is_error?: boolean; result?: string };
    if (msg.type !== 'result') return;
    if (msg.is_error) stderr += `\nturn ${results + 1}'s result is an error: ${msg.result}`;
    results++;
    onResult?.();
  });
  try {
    for (let turn = 0; turn < turns; turn++) {
      const prompt = `step ${turn}: read the module of this step`;
      const answered = new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`${command}: turn ${turn + 1} had no result within ${TURN_BOUND_MS} ms\n${stderr}`)), TURN_BOUND_MS);
        onResult = () => {
          clearTimeout(timer);
          ok();
        };
        void exited.then((code) => fail(new Error(`${command} exited (${code}) at turn ${turn + 1}\n${stderr}`)));
      });
      child.stdin!.write(`${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: prompt }] } })}\n`);
      await answered;
      if (turn === 0 || (turn + 1) % 25 === 0) curve.push([turn + 1, statusKiB(child.pid!, 'VmRSS') / 1024]);
    }
    const figures = {
      turns,
      rssMiB: statusKiB(child.pid!, 'VmRSS') / 1024,
      peakMiB: statusKiB(child.pid!, 'VmHWM') / 1024,
      ms: performance.now() - started,
      curve,
    };
    child.stdin!.end();
    await exited;
    return figures;
  } finally {
    child.kill('SIGKILL');
  }
}

export async function benchMemory(turns = Number(process.env.AGENT_BENCH_TURNS ?? 100)): Promise<{ agent: MemoryFigures; peer?: MemoryFigures }> {
  const run = async (program: 'agent' | 'claude', peerBin?: string): Promise<MemoryFigures> => {
    const server = await startFakeServer({ fallback: { text: 'ok' } });
    // each turn reads one module through Bash, then answers
    server.respondWith((req) => {
      const msgs = req.view.messages;
      if (req.view.toolNames.length === 0 || msgs.length === 0) return { text: 'ok' };
      const last = msgs.at(-1)!;
      const step = Number(/step (\d+)/.exec(JSON.stringify(last.blocks.some((b) => b.type === 'tool_result') ? msgs.at(-3) : last))?.[1] ?? 0);
      if (last.blocks.some((b) => b.type === 'tool_result')) return { text: `Step ${step}: the module computes linear steps.` };
      return { toolCalls: [{ name: 'Bash', input: { command: `cat mod${step % MODULES}.ts`, description: 'Read a module' } }] };
    });
    const place = benchPlace('memory', server.anthropicBaseURL, JSON.stringify({ permissions: { mode: 'allow' } }));
    writeModules(place.project, MODULES);
    peerHome(place.home, [place.project]);
    const env = { ...place.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
    const io = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--model', MODEL];
    try {
      const figures =
        program === 'agent'
          ? await session(process.execPath, [BIN, ...io], env, place.project, turns)
          : await session(peerBin!, [...io, '--verbose', '--allowedTools', 'Bash'], env, place.project, turns);
      // every turn's read ran and reached the model
      const read = server.requests.filter((r) => r.view?.messages.at(-1)?.blocks.some((b) => b.type === 'tool_result')).length;
      if (read < turns) throw new Error(`${program}: ${read} tool results reached the model, ${turns} expected`);
      return figures;
    } finally {
      await server.close();
      rmSync(place.root, { recursive: true, force: true });
    }
  };
  const agent = await run('agent');
  const peerBin = process.env.AGENT_BENCH_PEER;
  return peerBin ? { agent, peer: await run('claude', peerBin) } : { agent };
}

const line = (name: string, f: MemoryFigures): string =>
  `  ${name.padEnd(12)} RSS after ${f.turns} turns ${f.rssMiB.toFixed(0)} MiB, peak ${f.peakMiB.toFixed(0)} MiB, ${(f.ms / 1000).toFixed(1)} s; by turn: ${f.curve.map(([t, m]) => `${t}: ${m.toFixed(0)}`).join(', ')}`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchMemory()
    .then(({ agent, peer }) => {
      console.log('one process, a turn a stream-json message, each turn a Bash read of ~1,000 tokens:');
      console.log(line('agent', agent));
      if (peer) {
        console.log(line('Claude Code', peer));
        console.log(`  ratio        RSS ${(agent.rssMiB / peer.rssMiB).toFixed(2)}×, peak ${(agent.peakMiB / peer.peakMiB).toFixed(2)}× Claude Code's`);
      }
    })
    .catch((e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    });
}
