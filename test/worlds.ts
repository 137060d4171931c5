import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { World } from '../src/runtime/world.js';

// What tests give main(argv, world) and the code under world(): streams that keep what is
// written, and a world of a test's own.

/** A stream that keeps what is written to it. */
export function collector(): { stream: NodeJS.WriteStream; text: () => string } {
  let text = '';
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, done) {
      text += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      done();
    },
  });
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

/** A world with only `env`, streams that lead nowhere and its own signals; `exits` holds the codes it was asked to exit with. */
export function testWorld(env: NodeJS.ProcessEnv = {}): World & { exits: number[] } {
  const exits: number[] = [];
  return {
    env,
    cwd: '/nowhere',
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    stdout: new PassThrough() as unknown as NodeJS.WriteStream,
    stderr: new PassThrough() as unknown as NodeJS.WriteStream,
    signals: new EventEmitter(),
    exit: (code) => void exits.push(code),
    onExit: () => () => {},
    slots: new Map(),
    exits,
  };
}
