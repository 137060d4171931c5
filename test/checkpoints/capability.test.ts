import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Capability, CapabilityHost } from '../../src/capability/capability.js';
import type { CapabilityContext } from '../../src/capability/context.js';
import { checkpoints } from '../../src/checkpoints/capability.js';
import { sessionRecords } from '../../src/checkpoints/listing.js';
import { tempDir } from '../tempDirs.js';
import { seedRepository } from './repository.js';

// The checkpoints capability as the composition root builds it (src/checkpoints/capability.ts):
// on when the configuration says so and the database is writable, eager when the person has hooks.

const settings = { maxFiles: 1000, maxStoreMB: 2048, keepDays: 30 };

function project() {
  const root = tempDir('agent-cp-factory-');
  const dir = join(root, 'project');
  mkdirSync(dir);
  seedRepository(dir, { ignore: '', files: { 'a.txt': 'one\n' }, stash: ['a.txt', 'stashed\n'] });
  return { dir, data: join(root, 'data') };
}

const built = (dir: string, data: string, o: { enabled?: boolean; readOnly?: boolean; hookSources?: unknown[] }): Capability | undefined =>
  checkpoints({
    config: { cwd: dir, checkpoints: { enabled: o.enabled ?? true, ...settings }, ...(o.hookSources ? { hookSources: o.hookSources } : {}) },
    dataDir: data,
    readOnly: o.readOnly ?? false,
  } as unknown as CapabilityContext) as Capability | undefined;

const host = (sessionId: string): CapabilityHost => ({ sessionId, resumed: false, turn: { notice: () => {} } }) as unknown as CapabilityHost;

/** Whether the data folder holds a shadow store git made a repository of. */
const initialised = (data: string): boolean => {
  const dir = join(data, 'checkpoints');
  return existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.git') && existsSync(join(dir, f, 'HEAD')));
};

describe('the checkpoints factory', () => {
  it('is off when the configuration turns it off or the database is read-only', () => {
    const { dir, data } = project();
    expect(built(dir, data, { enabled: false })).toBeUndefined();
    expect(built(dir, data, { readOnly: true })).toBeUndefined();
    expect(built(dir, data, {})?.name).toBe('checkpoints');
  });

  it('snapshots a turn at its start only when the person has hooks, and saves the session whose records a fork continues', async () => {
    const { dir, data } = project();
    const lazy = built(dir, data, { hookSources: [] })!.open(host('s_lazy'));
    await lazy.hooks!.turnBoundary!('before', 't1');
    expect(initialised(data)).toBe(false);
    await lazy.hooks!.turnBoundary!('after', 't1');
    expect(sessionRecords(data, dir, 's_lazy').map((r) => r.edge)).toEqual(['start']);
    lazy.close?.();
    const eager = built(dir, data, { hookSources: [{ file: 'settings.json' }] })!.open(host('s_eager'));
    await eager.hooks!.turnBoundary!('before', 't1');
    expect(initialised(data)).toBe(true);
    await eager.hooks!.turnBoundary!('after', 't1');
    expect(sessionRecords(data, dir, 's_eager').map((r) => r.edge)).toEqual(['start', 'before', 'after']);
    expect(eager.state!.save()).toEqual({ session: 's_eager' });
    eager.close?.();
  });
});
