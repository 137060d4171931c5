import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalDecision, ApprovalRequest } from '../../src/tools/permissions.js';
import { ReadBoundary } from '../../src/tools/readBoundary.js';
import { approvalOptions } from '../../src/ui/approval.js';

let root: string;
let home: string;
let repo: string;
let cwd: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'read-boundary-'));
  home = join(root, 'home');
  repo = join(root, 'repo');
  cwd = join(repo, 'packages', 'app');
  outside = join(root, 'elsewhere');
  for (const d of [join(home, '.ssh'), join(home, '.aws'), join(repo, '.git'), cwd, outside]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE');
  writeFileSync(join(home, '.aws', 'credentials'), 'aws');
  writeFileSync(join(outside, 'notes.txt'), 'notes');
  writeFileSync(join(outside, '.env.local'), 'TOKEN=x');
  writeFileSync(join(outside, 'server.pem'), 'cert');
  writeFileSync(join(cwd, '.env'), 'LOCAL=1');
  symlinkSync(join(outside, 'notes.txt'), join(cwd, 'link-out.txt'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const boundary = (readPaths: string[] = []) => new ReadBoundary({ cwd, readPaths, home });
const read = (path: string) => ({ path });

describe('ReadBoundary.check', () => {
  it('reads inside the working directory and its repository without asking, .env included', () => {
    const b = boundary();
    expect(b.check('FileRead', read('.env')).kind).toBe('inside');
    expect(b.check('FileRead', read('../../README.md')).kind).toBe('inside'); // the repo root
    expect(b.check('Grep', { pattern: 'x' }).kind).toBe('inside');
    expect(b.check('Glob', { pattern: '**/*.ts' }).kind).toBe('inside');
    expect(b.check('Recall', { query: 'x' }).kind).toBe('inside');
  });

  it('finds the way out through ../, absolute paths, glob patterns and symlinks', () => {
    const b = boundary();
    expect(b.check('FileRead', read(join(outside, 'notes.txt')))).toMatchObject({ kind: 'outside', sensitive: false });
    expect(b.check('FileRead', read('../../../elsewhere/notes.txt')).kind).toBe('outside');
    expect(b.check('FileRead', read('link-out.txt')).kind).toBe('outside');
    expect(b.check('Grep', { pattern: 'x', path: '/etc' }).kind).toBe('outside');
    expect(b.check('Glob', { pattern: '../../../elsewhere/*' }).kind).toBe('outside');
    expect(b.check('Glob', { pattern: '/etc/**/*.conf' }).kind).toBe('outside');
    expect(b.check('FileRead', read(join(outside, '.env.local')))).toMatchObject({ kind: 'outside', sensitive: true });
  });

  it('refuses secret stores outright: ~/.ssh, ~/.aws, private keys, key files outside the project, /etc/shadow', () => {
    const b = boundary();
    expect(b.check('FileRead', read('~/.ssh/id_ed25519'))).toMatchObject({ kind: 'denied', why: 'is a private SSH key' });
    expect(b.check('FileRead', read('~/.aws/credentials'))).toMatchObject({ kind: 'denied', why: expect.stringContaining('~/.aws') });
    expect(b.check('Grep', { pattern: 'x', path: '~/.ssh' }).kind).toBe('denied');
    expect(b.check('FileRead', read(join(outside, 'server.pem'))).kind).toBe('denied');
    expect(b.check('FileRead', read('/etc/shadow')).kind).toBe('denied');
    // even when readPaths covers them
    expect(boundary([root]).check('FileRead', read('~/.ssh/id_ed25519')).kind).toBe('denied');
  });

  it('readPaths / --add-dir let the tools read there without asking', () => {
    const b = boundary([outside]);
    expect(b.check('FileRead', read(join(outside, 'notes.txt'))).kind).toBe('inside');
    expect(b.check('FileRead', read(join(outside, '.env.local'))).kind).toBe('inside');
    expect(b.check('FileRead', read('/etc/hostname')).kind).toBe('outside');
  });
});

describe('ReadBoundary.authorize', () => {
  const call = (path: string) => ({ toolName: 'FileRead', toolUseId: 't1', input: read(path), summary: path });
  const signal = new AbortController().signal;

  it('in print mode (no approver) refuses outside reads and says how to allow them', async () => {
    const r = await boundary().authorize(call(join(outside, 'notes.txt')), 'ask', undefined, signal);
    expect(r).toEqual({ ok: false, message: expect.stringContaining('--add-dir') });
    expect(r && !r.ok && r.message).toContain('--permission-mode allow');
  });

  it('--permission-mode allow reads outside, but not a .env file there nor a secret store', async () => {
    expect(await boundary().authorize(call(join(outside, 'notes.txt')), 'allow', undefined, signal)).toEqual({ ok: true });
    const env = await boundary().authorize(call(join(outside, '.env.local')), 'allow', undefined, signal);
    expect(env).toMatchObject({ ok: false, message: expect.stringContaining('environment file outside the project') });
    const ssh = await boundary().authorize(call('~/.ssh/id_ed25519'), 'allow', undefined, signal);
    expect(ssh).toMatchObject({ ok: false, message: expect.stringContaining('~/.ssh/id_ed25519 is a private SSH key') });
  });

  it('asks the person outside the project; "for this session" covers later reads in that directory', async () => {
    const asked: ApprovalRequest[] = [];
    let answer: ApprovalDecision = { kind: 'deny', note: 'not there' };
    const approver = async (req: ApprovalRequest): Promise<ApprovalDecision> => {
      asked.push(req);
      return answer;
    };
    const b = boundary();
    expect(await b.authorize(call(join(outside, 'notes.txt')), 'ask', approver, signal)).toEqual({
      ok: false,
      message: expect.stringContaining('said: not there'),
    });
    expect(asked[0]!.summary).toContain('is outside the working directory');
    answer = { kind: 'allow_tool' };
    expect(await b.authorize(call(join(outside, 'notes.txt')), 'ask', approver, signal)).toEqual({ ok: true });
    expect(asked[1]!.sessionScope).toBe(`${outside}/`);
    mkdirSync(join(outside, 'sub'));
    expect(await b.authorize(call(join(outside, 'sub', 'more.txt')), 'ask', approver, signal)).toEqual({ ok: true });
    expect(asked).toHaveLength(2);
    expect(await b.authorize(call('.env'), 'ask', approver, signal)).toBeUndefined();
  });

  it('a session grant covers its directory only, never a .env file there nor a secret store', async () => {
    const asked: ApprovalRequest[] = [];
    const answers: ApprovalDecision[] = [{ kind: 'allow_tool' }, { kind: 'deny' }, { kind: 'allow_tool' }];
    const approver = async (req: ApprovalRequest): Promise<ApprovalDecision> => {
      asked.push(req);
      return answers.shift()!;
    };
    const b = boundary();
    expect(await b.authorize(call(join(outside, 'notes.txt')), 'ask', approver, signal)).toEqual({ ok: true });
    // the .env the person just denied stays denied: it is asked again, once only
    expect(await b.authorize(call(join(outside, '.env.local')), 'ask', approver, signal)).toMatchObject({ ok: false });
    expect(asked[1]).toMatchObject({ onceOnly: true, summary: expect.stringContaining('environment file outside the project') });
    expect(asked[1]!.sessionScope).toBeUndefined();
    // even an answer of "for this session" to a .env does not open it for later
    expect(await b.authorize(call(join(outside, '.env.local')), 'ask', approver, signal)).toEqual({ ok: true });
    answers.push({ kind: 'deny' });
    expect(await b.authorize(call(join(outside, '.env.local')), 'ask', approver, signal)).toMatchObject({ ok: false });
    // another directory is asked about
    answers.push({ kind: 'deny' });
    expect(await b.authorize(call('/etc/hostname'), 'ask', approver, signal)).toMatchObject({ ok: false });
    expect(asked).toHaveLength(5);
    // a secret store is refused without asking, grant or not
    const wide = boundary();
    answers.push({ kind: 'allow_tool' });
    expect(await wide.authorize(call(join(home, 'notes.txt')), 'ask', approver, signal)).toEqual({ ok: true });
    expect(asked[5]!.sessionScope).toBe('~/');
    expect(await wide.authorize(call('~/.aws/credentials'), 'ask', approver, signal)).toMatchObject({
      ok: false,
      message: expect.stringContaining('secrets are never read'),
    });
    expect(asked).toHaveLength(6);
  });
});

describe('the approval prompt for a read outside', () => {
  it('says which directory "for this session" covers, and offers no session answer for a .env', () => {
    const base = { toolName: 'FileRead', toolUseId: 't', input: {}, summary: '/srv/data/a.csv' };
    expect(approvalOptions({ ...base, sessionScope: '/srv/data/' }).map((o) => o.label)).toContain('Allow FileRead in /srv/data/ for this session');
    expect(approvalOptions({ ...base, onceOnly: true }).map((o) => o.kind)).toEqual(['once', 'deny', 'stop']);
  });
});
