import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Message } from '../../src/llm/messages.js';
import { openStore, StoreError, type Store } from '../../src/store/index.js';
import { toStoreError } from '../../src/store/errors.js';
import { describeFsError } from '../../src/tools/fsErrors.js';
import { assistant, autoChange, microChange, tempDir, toolPair, user } from './helpers.js';
import { sqlite } from '../../src/store/sqlite.js';
import { bundled } from '../bundled.js';

// the binding the store loads on this Node.js (12 built from source, or 13 prebuilt on Node ≥ 22)
const Database = sqlite().Database;

const CHILD = fileURLToPath(new URL('./fixtures/store-child.ts', import.meta.url));
/** The child, bundled once for the file: a plain `node` start instead of tsx compiling the store in each of the nine children. */
let childBundle: string;
beforeAll(async () => {
  childBundle = await bundled(CHILD);
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Root ignores file modes, so the permission tests run their child as "nobody" when we are root. */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let tmp: ReturnType<typeof tempDir>;
let file: string;

beforeEach(() => {
  tmp = tempDir();
  file = join(tmp.dir, 'agent.db');
});
afterEach(() => {
  chmodSync(tmp.dir, 0o700);
  tmp.cleanup();
});

type Line = Record<string, unknown>;

function child(args: string[], unprivileged = false) {
  const proc = spawn(process.execPath, [childBundle, ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(unprivileged && asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i !== -1; i = buf.indexOf('\n')) {
      lines.push(JSON.parse(buf.slice(0, i)) as Line);
      buf = buf.slice(i + 1);
      waiters.splice(0).forEach((w) => w());
    }
  });
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<Line[]>((resolve, reject) =>
    proc.on('close', (code) => (code === 0 ? resolve(lines) : reject(new Error(`child exited ${code}: ${stderr}`)))),
  );
  const waitFor = (pred: (l: Line) => boolean) =>
    new Promise<Line>((resolve, reject) => {
      const check = () => {
        const hit = lines.find(pred);
        if (hit) resolve(hit);
        else waiters.push(check);
      };
      exited.catch(reject);
      check();
    });
  return { proc, exited, waitFor };
}

function seedStore(path: string): Message[] {
  const store = openStore(path);
  store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'm' });
  const [call, result] = toolPair('Bash', { command: 'npm test' }, 'ok '.repeat(200));
  const msgs = [user('first'), call, result, assistant('done'), user('second'), assistant('ok')];
  for (const m of msgs) store.appendMessage('s', m, 4);
  store.close();
  return msgs;
}

function catchStore(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return e as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('permissions', () => {
  it('creates missing directories 0700 and the database, -wal and -shm 0600 whatever the umask', () => {
    const old = process.umask(0);
    let store: Store | undefined;
    try {
      const nested = join(tmp.dir, 'data', 'agent', 'agent.db');
      store = openStore(nested);
      store.createSession({ id: 's', cwd: '/', provider: 'p', model: 'm' });
      const mode = (p: string) => statSync(p).mode & 0o777;
      expect(mode(join(tmp.dir, 'data'))).toBe(0o700);
      expect(mode(join(tmp.dir, 'data', 'agent'))).toBe(0o700);
      expect(mode(nested)).toBe(0o600);
      expect(existsSync(`${nested}-wal`)).toBe(true);
      expect(mode(`${nested}-wal`)).toBe(0o600);
      expect(mode(`${nested}-shm`)).toBe(0o600);
    } finally {
      store?.close();
      process.umask(old);
    }
  });

  it('leaves the mode of an existing directory alone', () => {
    chmodSync(tmp.dir, 0o750);
    openStore(file).close();
    expect(statSync(tmp.dir).mode & 0o777).toBe(0o750);
  });
});

describe('corrupt files', () => {
  for (const [name, bytes] of [
    ['random bytes', randomBytes(8192)],
    ['a text file', Buffer.from('# notes\nthis is not a database\n'.repeat(50))],
    ['a short file', Buffer.from('SQLite')],
  ] as const) {
    it(`refuses ${name} as corrupt, naming the file and leaving its bytes as they were`, () => {
      writeFileSync(file, bytes);
      const err = catchStore(() => openStore(file));
      expect(err.kind).toBe('corrupt');
      expect(err.file).toBe(file);
      expect(err.message).toContain(file);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(readdirSync(tmp.dir)).toEqual(['agent.db']); // no -wal, -shm or journal created
      expect(catchStore(() => openStore(file, { readonly: true })).kind).toBe('corrupt');
    });
  }

  it('reports damage inside a real database as corrupt and never writes to it', () => {
    seedStore(file);
    const good = readFileSync(file);
    const damaged = Buffer.concat([good.subarray(0, 4096), Buffer.alloc(good.length - 4096, 0x5a)]);
    writeFileSync(file, damaged);
    expect(catchStore(() => openStore(file)).kind).toBe('corrupt');
    expect(readFileSync(file).equals(damaged)).toBe(true);

    // damage past the schema pages (the pages of the messages table and its indexes): opening works, reading the damaged rows reports it
    writeFileSync(file, good);
    const probe = new Database(file, { readonly: true });
    const pageSize = Number(probe.pragma('page_size', { simple: true }));
    const roots = probe.prepare<[], number>("SELECT rootpage FROM sqlite_master WHERE tbl_name = 'messages' AND rootpage > 0").pluck().all();
    probe.close();
    const tailDamaged = Buffer.from(good);
    for (const page of roots) tailDamaged.fill(0x5a, (page - 1) * pageSize, page * pageSize);
    writeFileSync(file, tailDamaged);
    let kind: string | undefined;
    try {
      const store = openStore(file);
      try {
        store.loadVisible('s');
        store.loadTranscript('s', { includeArchived: true });
      } finally {
        store.close();
      }
    } catch (e) {
      kind = (e as StoreError).kind;
    }
    expect(kind).toBe('corrupt');
    expect(readFileSync(file).equals(tailDamaged)).toBe(true);
  });
});

describe('locks and several processes', () => {
  it('waits up to the busy timeout for a writer in another process, then fails with locked; works once it is gone', async () => {
    seedStore(file);
    const holder = child(['hold-lock', file]);
    await holder.waitFor((l) => l.locked === true);
    const store = openStore(file, { busyTimeoutMs: 300 }); // opening and reading need no write lock
    try {
      expect(store.loadVisible('s')).toHaveLength(6);
      const started = Date.now();
      const err = catchStore(() => store.appendMessage('s', user('blocked'), 1));
      expect(Date.now() - started).toBeGreaterThanOrEqual(250); // it waited, it did not fail at once
      expect(err.kind).toBe('locked');
      expect(err.message).toMatch(/locked by another process.*300 ms/);
      holder.proc.stdin.end();
      await holder.waitFor((l) => l.released === true);
      await holder.exited;
      store.appendMessage('s', user('after'), 1);
      expect(store.loadVisible('s')).toHaveLength(7);
    } finally {
      holder.proc.kill();
      store.close();
    }
  });

  it('fails with locked when another process holds the lock while a new database must be set up', async () => {
    writeFileSync(file, '');
    const holder = child(['hold-lock', file]);
    await holder.waitFor((l) => l.locked === true);
    try {
      const err = catchStore(() => openStore(file, { busyTimeoutMs: 200 }));
      expect(err.kind).toBe('locked');
    } finally {
      holder.proc.stdin.end();
      await holder.exited;
    }
    openStore(file).close(); // and it opens once the lock is gone
  });

  it('two processes write different sessions of one file at the same time', async () => {
    seedStore(file);
    const a = child(['append', file, 'child-a', '400']);
    const b = child(['append', file, 'child-b', '400']);
    const store = openStore(file);
    try {
      let mine = 0;
      let done = false;
      void Promise.all([a.exited, b.exited]).finally(() => (done = true));
      while (!done || mine < 50) {
        store.appendMessage('s', mine % 2 ? assistant(`p${mine}`) : user(`p${mine}`), 1);
        mine++;
        // a writer that never pauses would starve the children's busy waits on a loaded 2-core
        // machine (each commit fsyncs); a real session writes a message at a time, with pauses
        await new Promise((r) => setTimeout(r, 2));
      }
      const [la, lb] = await Promise.all([a.exited, b.exited]);
      expect(la).toEqual([{ ok: true, appended: 400 }]);
      expect(lb).toEqual([{ ok: true, appended: 400 }]);
      for (const id of ['child-a', 'child-b']) {
        const visible = store.loadVisible(id);
        expect(visible.map((m) => m.id)).toEqual(Array.from({ length: 400 }, (_, i) => `${id}-${i}`));
        expect(store.getSession(id)!.messageCount).toBe(400);
      }
      expect(store.loadVisible('s')).toHaveLength(6 + mine);
    } finally {
      store.close();
    }
  });
});

describe('read-only files and directories', () => {
  it('refuses to write a read-only database file, says so, and leaves it unchanged; a read-only open still reads', async () => {
    seedStore(file);
    chmodSync(file, 0o444);
    chmodSync(tmp.dir, 0o777);
    const before = readFileSync(file);
    const [rw] = await child(['try-write', file], true).exited;
    expect(rw).toMatchObject({ stage: 'open', ok: false, kind: 'readonly' });
    expect(String(rw!.message)).toMatch(/read-only.*open it read-only/);
    const ro = await child(['try-write', file, 'readonly'], true).exited;
    expect(ro[0]).toMatchObject({ stage: 'read', ok: true, sessions: ['s'], visible: 6 });
    expect(ro[1]).toMatchObject({ stage: 'write', ok: false, kind: 'readonly' });
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('refuses a database whose directory is read-only (SQLite could not create -wal/-shm)', async () => {
    seedStore(file);
    chmodSync(file, 0o666);
    chmodSync(tmp.dir, 0o555);
    const before = readFileSync(file);
    const [rw] = await child(['try-write', file], true).exited;
    expect(rw).toMatchObject({ stage: 'open', ok: false, kind: 'readonly' });
    expect(String(rw!.message)).toMatch(/directory .* is not writable/);
    const ro = await child(['try-write', file, 'readonly'], true).exited;
    // a read-only open of a file we could write still needs the -shm SQLite cannot create here
    expect(ro[0]).toMatchObject({ stage: 'open', ok: false, kind: 'readonly' });
    expect(String(ro[0]!.message)).toMatch(/directory of .* is not writable.*-shm/);
    const newFile = join(tmp.dir, 'new.db');
    const [create] = await child(['try-write', newFile], true).exited;
    expect(create).toMatchObject({ stage: 'open', ok: false, kind: 'readonly' });
    expect(existsSync(newFile)).toBe(false);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  // issue 30: a database on a read-only file system (EROFS: a read-only mount) was reported as
  // "permission denied", which sends the person to chmod. Mapping EROFS with EACCES fails this.
  it('names a read-only file system as such, not as a permission problem', () => {
    const rofs = toStoreError(Object.assign(new Error("EROFS: read-only file system, mkdir '/mnt/ro/agent'"), { code: 'EROFS' }), {
      file: '/mnt/ro/agent/agent.db',
      action: 'open the database',
      busyTimeoutMs: 5000,
    });
    expect(rofs.kind).toBe('readonly');
    expect(rofs.message).toBe('Could not open the database: the file system holding /mnt/ro/agent/agent.db is read-only (EROFS); nothing was written.');
    expect(describeFsError(Object.assign(new Error('EROFS'), { code: 'EROFS' }), 'src/a.ts')).toBe(
      'src/a.ts: read-only file system (a read-only mount): nothing can be written there',
    );
    expect(describeFsError(Object.assign(new Error('EACCES'), { code: 'EACCES' }), 'src/a.ts')).toBe('src/a.ts: permission denied');
  });

  it('refuses writes through a store opened read-only, and a missing file for a read-only open', () => {
    seedStore(file);
    const store = openStore(file, { readonly: true });
    try {
      expect(store.readonly).toBe(true);
      expect(store.loadVisible('s')).toHaveLength(6);
      expect(catchStore(() => store.appendMessage('s', user('x'), 1)).kind).toBe('readonly');
      expect(catchStore(() => store.deleteSession('s')).kind).toBe('readonly');
    } finally {
      store.close();
    }
    const missing = catchStore(() => openStore(join(tmp.dir, 'nope.db'), { readonly: true }));
    expect(missing.kind).toBe('not_found');
    expect(existsSync(join(tmp.dir, 'nope.db'))).toBe(false);
  });
});

describe('disk full', () => {
  it('fails an append with disk_full and writes nothing of it', () => {
    seedStore(file);
    const store = openStore(file, { maxSizeBytes: 1 }); // capped at the current size
    try {
      const big = user('x'.repeat(2_000_000));
      const err = catchStore(() => store.appendMessage('s', big, 1));
      expect(err.kind).toBe('disk_full');
      expect(err.message).toContain(file);
      expect(store.loadVisible('s')).toHaveLength(6);
      expect(store.getSession('s')!.messageCount).toBe(6);
    } finally {
      store.close();
    }
    const reopened = openStore(file);
    expect(reopened.loadTranscript('s', { includeArchived: true })).toHaveLength(6);
    reopened.close();
  });

  it('rolls a compaction back whole when the disk fills part-way through it', () => {
    const msgs = seedStore(file);
    const store = openStore(file, { maxSizeBytes: 1 });
    try {
      const visible = store.loadVisible('s');
      const micro = microChange(visible, 0)!;
      // a huge original makes the archive insert (after the record and the rewrites) overflow
      micro.cleared[0] = { ...micro.cleared[0]!, content: 'y'.repeat(3_000_000) };
      expect(catchStore(() => store.applyCompaction('s', micro)).kind).toBe('disk_full');
      expect(store.loadVisible('s')).toStrictEqual(visible);
      expect(store.listCompactions('s')).toEqual([]);
      expect(store.getArchived(micro.cleared[0]!.archiveId)).toBeUndefined();
      expect(store.getSession('s')!.compactionCount).toBe(0);
    } finally {
      store.close();
    }
    const reopened = openStore(file);
    expect(reopened.loadVisible('s').map((m) => m.id)).toEqual(msgs.map((m) => m.id));
    reopened.applyCompaction('s', autoChange(reopened.loadVisible('s'), 1)!); // no cap: it applies
    reopened.close();
  });
});

describe('secrets', () => {
  it('writes only the declared fields: a key riding along on a message, block or record never reaches the file', () => {
    const key = 'sk-ant-api03-SECRETSECRETSECRET';
    const store = openStore(file);
    store.createSession({ id: 's', cwd: '/repo', provider: 'anthropic', model: 'm' });
    const msgs = [user('hello'), assistant('hi'), user('more'), assistant('sure')];
    const leaky = msgs.map((m) =>
      Object.assign(
        { ...m, blocks: m.blocks.map((b) => Object.assign({ ...b }, { apiKey: key })) },
        { apiKey: key, headers: { authorization: `Bearer ${key}` } },
      ),
    );
    for (const m of leaky) store.appendMessage('s', m, 1);
    const change = autoChange(store.loadVisible('s'), 1)!;
    store.applyCompaction('s', {
      ...change,
      record: Object.assign({ ...change.record }, { apiKey: key }),
      added: change.added.map((m) => Object.assign({ ...m }, { apiKey: key })),
    });
    // a micro compaction's revised blocks go into the log record's body: cleaned like a message's
    store.appendMessage('s', user('run it'), 1);
    for (const m of toolPair('Bash', { command: 'ls' }, 'a.txt')) store.appendMessage('s', m, 1);
    const micro = microChange(store.loadVisible('s'), 0)!;
    store.applyCompaction('s', {
      ...micro,
      body: { revisions: micro.body.revisions!.map((r) => ({ id: r.id, blocks: r.blocks.map((b) => Object.assign({ ...b }, { apiKey: key })) })) },
    });
    const withUsage = assistant('x', { usage: Object.assign({ inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, { apiKey: key }) });
    store.appendMessage('s', user('q'), 1);
    store.appendMessage('s', withUsage, 1);
    expect(store.loadVisible('s').at(-1)).toStrictEqual({ ...withUsage, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } });
    const raw = Buffer.concat(['', '-wal'].filter((s) => existsSync(file + s)).map((s) => readFileSync(file + s)));
    store.close();
    const afterClose = readFileSync(file);
    expect(raw.includes('sk-ant')).toBe(false);
    expect(afterClose.includes('sk-ant')).toBe(false);
    expect(afterClose.includes('hello')).toBe(true); // the check would see a key if one were written
  });
});
