import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { fingerprintOf, ProjectTrust, TrustFileError, trustFilePath } from '../../src/trust/projectTrust.js';
import { tempDir } from '../tempDirs.js';

describe('ProjectTrust', () => {
  let dir: string;
  let trust: ProjectTrust;
  beforeEach(() => {
    dir = tempDir('trust-');
    trust = new ProjectTrust(join(dir, 'cfg', 'agent', 'trust.json'));
  });
  const server = { command: 'node', args: ['srv.js'], env: { A: '1' } };
  const subject = (fp = fingerprintOf(server), name = 'everything') => ({ kind: 'mcp' as const, projectDir: '/repo', name, fingerprint: fp });

  it('approves exactly what was shown: a changed command asks again', () => {
    expect(trust.isApproved(subject())).toBe(false);
    trust.approve(subject());
    expect(trust.isApproved(subject())).toBe(true);
    const changed = subject(fingerprintOf({ ...server, args: ['evil.js'] }));
    expect(trust.isApproved(changed)).toBe(false);
    expect(trust.changedSinceApproval(changed)).toBe(true);
    expect(trust.isApproved({ ...subject(), projectDir: '/other' })).toBe(false);
    expect(trust.isApproved({ ...subject(), kind: 'hooks' })).toBe(false);
    expect(trust.isApproved(subject(undefined, 'other'))).toBe(false);
  });

  it('fingerprints ignore key order but nothing else', () => {
    expect(fingerprintOf({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(fingerprintOf({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(fingerprintOf({ a: 1, b: [1, 2] })).not.toBe(fingerprintOf({ a: 1, b: [2, 1] }));
    expect(fingerprintOf({ env: { X: '1' } })).not.toBe(fingerprintOf({ env: { X: '2' } }));
  });

  it('keeps one approval per thing, writes the file private, and revokes', () => {
    trust.approve(subject());
    trust.approve(subject(fingerprintOf({ ...server, args: ['v2.js'] })));
    trust.approve(subject(undefined, 'second'));
    const data = JSON.parse(readFileSync(trust.file, 'utf8')) as { approvals: unknown[] };
    expect(data.approvals).toHaveLength(2);
    expect(statSync(trust.file).mode & 0o777).toBe(0o600);
    trust.revoke('mcp', '/repo', 'second');
    expect(trust.isApproved(subject(undefined, 'second'))).toBe(false);
    expect(trust.isApproved(subject(fingerprintOf({ ...server, args: ['v2.js'] })))).toBe(true);
    trust.revoke('mcp', '/repo');
    expect(JSON.parse(readFileSync(trust.file, 'utf8'))).toEqual({ version: 1, approvals: [] });
  });

  it('names the file and the field when the file is damaged', () => {
    trust.approve(subject());
    writeFileSync(trust.file, '{"approvals": [{"kind": "mcp"}]}');
    expect(() => trust.isApproved(subject())).toThrow(TrustFileError);
    expect(() => trust.isApproved(subject())).toThrow(/trust\.json: field "approvals\[0\]"/);
    writeFileSync(trust.file, 'nope');
    expect(() => trust.isApproved(subject())).toThrow(/trust\.json: not valid JSON/);
  });

  it('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(trustFilePath({ XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/x/agent/trust.json');
    expect(trustFilePath({}, '/home/me')).toBe('/home/me/.config/agent/trust.json');
    expect(trustFilePath({ XDG_CONFIG_HOME: 'relative' }, '/home/me')).toBe('/home/me/.config/agent/trust.json');
  });
});
