import { ReadBuffer, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupStdioTransport } from '../../src/mcp/stdioTransport.js';

// The stdio transport's reading: a message that comes in many chunks reaches the SDK's ReadBuffer
// once its line is whole (the ReadBuffer copies all it holds at each chunk it is given: a 10 MB
// result in 64 KB chunks was ~800 MB of copying), and a line past the SDK's 10 MB cap is still
// refused as the SDK refuses it.

/** A server (node -e) that writes what `script` writes to its stdout, then waits for stdin to close. */
function serverWriting(script: string): GroupStdioTransport {
  const body = `const out = process.stdout; ${script}; process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
  return new GroupStdioTransport({ command: process.execPath, args: ['-e', body], env: {}, label: 'test' });
}

/** Waits for `count` messages or an error, failing fast when the server ends first. */
function read(t: GroupStdioTransport, count: number): Promise<{ messages: JSONRPCMessage[]; errors: string[] }> {
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  return new Promise((resolve, reject) => {
    t.onmessage = (m) => {
      messages.push(m);
      if (messages.length === count) resolve({ messages, errors });
    };
    t.onerror = (e) => {
      errors.push(e.message);
      resolve({ messages, errors });
    };
    t.onclose = () => reject(new Error(`the server ended after ${messages.length} of ${count} messages; errors: ${errors.join('; ')}`));
  });
}

let open: GroupStdioTransport | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
  vi.restoreAllMocks();
});

describe('GroupStdioTransport reading', () => {
  it('hands the SDK a message that came in many chunks once its line is whole, and a line split across two writes', async () => {
    const append = vi.spyOn(ReadBuffer.prototype, 'append');
    // 4 MB of text in one message (the pipe carries it in 64 KB chunks or less), then one split in two writes
    open = serverWriting(`
      out.write(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(4 * 1024 * 1024) } }) + '\\n');
      out.write('{"jsonrpc":"2.0","id":2,');
      setTimeout(() => out.write('"result":{"text":"second"}}\\n'), 50);
    `);
    const got = read(open, 2);
    await open.start();
    const { messages, errors } = await got;
    expect(errors).toEqual([]);
    expect(messages.map((m) => ('result' in m ? (m.result as { text: string }).text.length : -1))).toEqual([4 * 1024 * 1024, 6]);
    // mutation: every chunk given to the ReadBuffer as it comes (no pending) → ~64 appends or more
    expect(append.mock.calls.length).toBeLessThanOrEqual(4);
  });

  it('refuses a line past the SDK cap of 10 MB, as the SDK does, and stops the server', async () => {
    // it ends once written, so a transport that never refuses fails at once on the close
    open = serverWriting(`out.write('{"jsonrpc":"2.0","id":1,"result":{"text":"' + 'y'.repeat(11 * 1024 * 1024), () => process.exit(0))`);
    const got = read(open, 1);
    await open.start();
    const { messages, errors } = await got;
    expect(messages).toEqual([]);
    // mutation: pending held past the cap (no size check) → no error, and the read fails on the server's end
    expect(errors).toEqual([expect.stringContaining('exceeded maximum size of 10485760 bytes')]);
  });
});
