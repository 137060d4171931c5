// `agent doctor` as a run makes it: every check in a world of its own (its HOME, project and
// standard output), the report written there, plain or as JSON, and the exit code.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runDoctor } from '../../src/doctor/doctor.js';
import { inWorld, processWorld } from '../../src/runtime/world.js';
import { tempDir } from '../tempDirs.js';

async function doctor(json: boolean, agentrc?: string): Promise<{ code: number; out: string }> {
  const home = tempDir('doctor-home-');
  const cwd = tempDir('doctor-project-');
  if (agentrc !== undefined) writeFileSync(join(cwd, '.agentrc'), agentrc);
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const env = { HOME: home, PATH: process.env['PATH'], ANTHROPIC_API_KEY: 'sk-ant-doctor-test-key-0123456789' };
  const code = await inWorld({ ...processWorld(), env, cwd, stdout: stdout as unknown as NodeJS.WriteStream, slots: new Map<symbol, unknown>() }, () =>
    runDoctor({ json, outputFormat: 'text' }),
  );
  return { code, out };
}

describe('agent doctor', () => {
  it('writes its report to the run’s standard output, one line a check, and exits 0 when none failed', async () => {
    const { code, out } = await doctor(false);
    expect(code).toBe(0);
    for (const name of ['node', 'database', 'checkpoints', 'config', 'keys', 'mcp', 'sandbox']) expect(out).toMatch(new RegExp(`^ +\\S+ +${name} `, 'm'));
    expect(out).toMatch(/No problems found\.\n$/);
  }, 30_000);

  it('a broken config fails its check and the exit code; --json writes the same report as JSON', async () => {
    const plain = await doctor(false, '{ "model": 5 }');
    expect(plain.code).toBe(1);
    expect(plain.out).toMatch(/1 check failed: config\.\n$/);
    const json = await doctor(true, '{ "model": 5 }');
    expect(json.code).toBe(1);
    const report = JSON.parse(json.out) as { ok: boolean; checks: { name: string; status: string }[] };
    expect(report.ok).toBe(false);
    expect(report.checks.find((c) => c.name === 'config')?.status).toBe('fail');
  }, 30_000);
});
