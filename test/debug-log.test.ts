import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DebugLogError, debug, debugEnabled, debugFull, enableDebugLog } from '../src/log.js';
import { inWorld, type World } from '../src/runtime/world.js';
import { tempDir } from './tempDirs.js';

// The debug log (src/log.ts): --debug=full logs contents only while a log is written; a log that
// cannot be opened leaves nothing enabled, --debug=full's contents included.

function testWorld(cwd: string): World {
  return {
    env: {},
    cwd,
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    stdout: new PassThrough() as unknown as NodeJS.WriteStream,
    stderr: new PassThrough() as unknown as NodeJS.WriteStream,
    signals: new EventEmitter(),
    exit: () => undefined,
    onExit: () => () => {},
    slots: new Map(),
  };
}

describe('the debug log', () => {
  it('--debug=full logs contents only into a log that opened', () => {
    const dir = tempDir('agent-debug-log-');
    inWorld(testWorld(dir), () => {
      enableDebugLog('logs/debug.log', { full: true });
      expect(debugEnabled()).toBe(true);
      expect(debugFull()).toBe(true);
      debug('a line', { n: 1 });
    });
    expect(readFileSync(join(dir, 'logs/debug.log'), 'utf8')).toMatch(/agent started[\s\S]*a line \{"n":1\}\n$/);
    inWorld(testWorld(dir), () => {
      enableDebugLog('plain.log');
      expect(debugFull()).toBe(false);
    });
  });

  it('a log that cannot be written enables nothing, --debug=full included', () => {
    const dir = tempDir('agent-debug-log-');
    writeFileSync(join(dir, 'a-file'), '');
    inWorld(testWorld(dir), () => {
      expect(() => enableDebugLog('a-file/debug.log', { full: true })).toThrow(DebugLogError);
      expect(debugEnabled()).toBe(false);
      expect(debugFull()).toBe(false);
    });
  });
});
