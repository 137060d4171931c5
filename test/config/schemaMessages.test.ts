import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, readConfigFile } from '../../src/config/config.js';
import { tempDir } from '../tempDirs.js';

// The .agentrc schema's defaults and the exact words of its errors, pinned: the schema is built
// with zod (zod/mini, which loads no locale of its own), and a change of zod's flavour, version
// or locale must not change what a user reads.

/** [.agentrc content, the error after "<file>: "] */
const INVALID: Array<[unknown, string]> = [
  [{ compaction: { auto: 'yes' } }, 'field "compaction.auto": Invalid input: expected boolean, received string'],
  [{ unknownKey: 1 }, 'field "unknownKey": unknown key (see .agentrc.example for the keys)'],
  [{ compaction: { nope: 1 } }, 'field "compaction.nope": unknown key (see .agentrc.example for the keys)'],
  // several unknown keys are named one by one, not joined into one dotted field
  [{ a: 1, b: 2 }, 'fields "a", "b": unknown keys (see .agentrc.example for the keys)'],
  [{ compaction: { nope: 1, nah: 2 } }, 'fields "compaction.nope", "compaction.nah": unknown keys (see .agentrc.example for the keys)'],
  [
    { permissions: { mode: 'x' } },
    'field "permissions.mode": Invalid option: expected one of "ask"|"acceptEdits"|"plan"|"allow"|"deny"|"default"|"bypassPermissions"|"dontAsk"',
  ],
  [{ baseURL: 'not a url' }, 'field "baseURL": Invalid URL'],
  [{ apiKeyEnv: '1abc' }, 'field "apiKeyEnv": must be an environment variable name'],
  [{ bash: { passEnv: ['A B'] } }, 'field "bash.passEnv.0": must be an environment variable name, or a prefix ending in *'],
  [{ maxSteps: 0 }, 'field "maxSteps": Too small: expected number to be >0'],
  [{ maxSteps: 1.5 }, 'field "maxSteps": Invalid input: expected int, received number'],
  [{ maxSteps: 'x' }, 'field "maxSteps": Invalid input: expected number, received string'],
  [{ maxOutputTokens: 1e300 }, 'field "maxOutputTokens": Too big: expected int to be <=9007199254740991'],
  [{ model: '' }, 'field "model": Too small: expected string to have >=1 characters'],
  [{ models: { m: { contextWindow: 1 } } }, 'field "models.m.maxOutputTokens": Invalid input: expected number, received undefined'],
  [{ models: { m: { contextWindow: 1, maxOutputTokens: 1, extra: 1 } } }, 'field "models.m.extra": unknown key (see .agentrc.example for the keys)'],
  [
    { models: { m: { contextWindow: 1, maxOutputTokens: 1, provider: 'x' } } },
    'field "models.m.provider": Invalid option: expected one of "anthropic"|"openai"',
  ],
  [{ cache: { ttl: '2h' } }, 'field "cache.ttl": Invalid option: expected one of "5m"|"1h"'],
  [{ cache: { promptCacheKey: 'x' } }, 'field "cache.promptCacheKey": Invalid input: expected "auto" or expected boolean, received string'],
  [{ models: { '': { contextWindow: 1, maxOutputTokens: 1 } } }, 'field "models": the key "" is not valid (Too small: expected string to have >=1 characters)'],
  [{ compaction: { reserveTokens: -1 } }, 'field "compaction.reserveTokens": Too small: expected number to be >=0'],
  [{ compaction: { summaryMaxTokens: 0 } }, 'field "compaction.summaryMaxTokens": Too small: expected number to be >0'],
  [{ permissions: { allowTools: [''] } }, 'field "permissions.allowTools.0": Too small: expected string to have >=1 characters'],
  [{ permissions: { allowTools: 'x' } }, 'field "permissions.allowTools": Invalid input: expected array, received string'],
  [{ provider: 'x' }, 'field "provider": Invalid option: expected one of "anthropic"|"openai"'],
  [{ $schema: 5 }, 'field "$schema": Invalid input: expected string, received number'],
  [{ db: '' }, 'field "db": Too small: expected string to have >=1 characters'],
  [{ recall: { crossSession: 1 } }, 'field "recall.crossSession": Invalid input: expected boolean, received number'],
  [{ retry: { maxAttempts: 0 } }, 'field "retry.maxAttempts": Too small: expected number to be >0'],
  [{ timeouts: { idleMs: 'soon' } }, 'field "timeouts.idleMs": Invalid input: expected number, received string'],
  [{ compaction: null }, 'field "compaction": Invalid input: expected object, received null'],
  [{ compaction: [] }, 'field "compaction": Invalid input: expected object, received array'],
  // an empty path would name the folder itself (mutation: sandboxSchema.ts's nonEmptyString at `z.minLength(0)`)
  [{ sandbox: { filesystem: { denyRead: [''] } } }, 'field "sandbox.filesystem.denyRead.0": Too small: expected string to have >=1 characters'],
];

const rcFile = (content: unknown): string => {
  const file = join(tempDir('agent-schema-'), '.agentrc');
  writeFileSync(file, JSON.stringify(content));
  return file;
};

describe('.agentrc schema', () => {
  it.each(INVALID)('%j is refused with the same words', (content, message) => {
    const file = rcFile(content);
    let thrown: unknown;
    try {
      readConfigFile(file);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    // each problem names its place in the file first (the test files are one line long)
    expect((thrown as Error).message.replace(/^(.*?: )line 1, column \d+: /, '$1')).toBe(`${file}: ${message}`);
  });

  it('fills every default when no file sets anything', () => {
    const c = loadConfig({ cwd: join(tmpdir(), 'agent-schema-none'), home: join(tmpdir(), 'agent-schema-none'), env: { ANTHROPIC_API_KEY: 'x' }, flags: {} });
    expect({
      permissions: c.permissions,
      compaction: c.compaction,
      bash: c.bash,
      recall: c.recall,
      retry: c.retry,
      timeouts: c.timeouts,
      cache: c.cache,
    }).toStrictEqual({
      permissions: { mode: 'ask', allowTools: [], allowBash: [], readPaths: [] },
      compaction: {
        auto: true,
        reserveTokens: 20_000,
        autoBufferTokens: 13_000,
        warningBufferTokens: 20_000,
        blockingBufferTokens: 3_000,
        microBufferTokens: 20_000,
        microWorkingSetTokens: 0,
        microKeepRecent: 5,
        tailTurns: 3,
        tailTokens: 20_000,
        summaryMaxTokens: 8_000,
        summaryInputTokens: 0,
        chunkConcurrency: 2,
        background: true,
        summaryDeadlineSeconds: 120,
        engine: 'own',
        verify: false,
        cooldownTurns: 2,
        maxFailures: 3,
        maxReactiveAttempts: 2,
        restoreFiles: 5,
        restoreFileTokens: 5_000,
        restoreTokens: 20_000,
        ledger: true,
        maxOutputRecoveries: 3,
      },
      bash: { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000, maxBackground: 10, passEnv: [], stripEnv: [] },
      recall: { crossSession: false },
      retry: { maxAttempts: 5, baseDelayMs: 1_000, maxDelayMs: 30_000 },
      timeouts: { connectMs: 10_000, firstByteMs: 120_000, idleMs: 120_000, totalMs: 300_000 },
      cache: { enabled: true, ttl: '5m', promptCacheKey: 'auto' },
    });
  });

  it('fills the defaults of a section that a file sets in part, and keeps what the file set', () => {
    const parsed = readConfigFile(rcFile({ model: 'm', bash: { passEnv: ['AWS_*'] }, cache: { promptCacheKey: true }, timeouts: { idleMs: 12 } }));
    expect(parsed).toStrictEqual({
      model: 'm',
      bash: { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000, maxBackground: 10, passEnv: ['AWS_*'], stripEnv: [] },
      cache: { enabled: true, ttl: '5m', promptCacheKey: true },
      timeouts: { connectMs: 10_000, firstByteMs: 120_000, idleMs: 12, totalMs: 300_000 },
    });
  });
});
