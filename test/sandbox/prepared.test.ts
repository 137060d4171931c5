import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxFingerprint } from '../../src/sandbox/prepared.js';
import { tempDir } from '../tempDirs.js';

// What a prepared wrap is stamped with (prepared.ts): the folders whose names the library's scan
// of the project read, to its depth in files, and the folders of the paths denied outside it. A
// name changed in one makes the wrap stale (runtime.test.ts shows a stale one not used).

describe("a prepared wrap's fingerprint", () => {
  it("watches the project to the depth the library scans files (folders one level less), not node_modules, not files; and the denied paths' folders", () => {
    const project = tempDir('sandbox-fingerprint-');
    for (const dir of ['a/b/c', 'node_modules/pkg', 'z']) mkdirSync(join(project, dir), { recursive: true });
    writeFileSync(join(project, 'a', 'file.txt'), 'x');
    const stamps = sandboxFingerprint(project, 3, ['/h/.ssh/id_rsa', '/h/.config/agent/trust.json', '/h/.ssh/config']);
    expect([...stamps.dirs].sort()).toEqual([project, join(project, 'a'), join(project, 'a/b'), join(project, 'z'), '/h/.config/agent', '/h/.ssh'].sort());
    expect(stamps.changed()).toBe(false);
    // a name deeper than the scan reads, or in node_modules: not stale
    writeFileSync(join(project, 'a/b/c', 'deep.txt'), 'x');
    writeFileSync(join(project, 'node_modules/pkg', 'index.js'), 'x');
    expect(stamps.changed()).toBe(false);
    // a new name where it reads: stale
    mkdirSync(join(project, 'a/b', '.git'));
    expect(stamps.changed()).toBe(true);
    expect(sandboxFingerprint(project, 1, []).dirs).toEqual([project]);
  });
});
