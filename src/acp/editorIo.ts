import { readFile, writeFile } from 'node:fs/promises';
import type { AgentContext, ClientCapabilities, TerminalOutputRequest } from '@agentclientprotocol/sdk';
import type { FileAccess } from '../tools/fileAccess.js';
import { decodeText } from '../tools/textFile.js';
import type { CommandExit, CommandTerminal, TerminalRun, ToolIo } from '../tools/types.js';

// The editor's side of the tools' ports, as ACP intends: when the client offers fs/* the file
// tools read the editor's buffers (unsaved changes included) and edits land in them; when it
// offers terminal/* Bash's foreground commands run in the editor's terminals, shown live in the
// tool call. What the client does not offer stays on the local disk and processes.

/** Plain UTF-8 text (no byte order mark, not binary): what an editor's text buffer can stand for. */
function plainText(bytes: Buffer): boolean {
  const d = decodeText(bytes);
  return d.ok && d.decoded.format.encoding === 'utf8' && !d.decoded.format.bom;
}

const refused = (method: string, e: unknown): Error => new Error(`the editor refused ${method}: ${e instanceof Error ? e.message : String(e)}`);

/** Files through fs/read_text_file and fs/write_text_file; the disk still says whether a file exists and what kind it is. */
export function editorFiles(client: AgentContext, sessionId: () => string, fs: { read: boolean; write: boolean }): FileAccess {
  const read = async (abs: string): Promise<Buffer> => {
    // a missing file throws ENOENT here, as on the disk; a binary or UTF-16 file is no text buffer
    const disk = await readFile(abs);
    if (!fs.read || !plainText(disk)) return disk;
    try {
      const { content } = await client.request('fs/read_text_file', { sessionId: sessionId(), path: abs });
      return Buffer.from(content, 'utf8');
    } catch (e) {
      throw refused('fs/read_text_file', e);
    }
  };
  return {
    buffered: fs.read,
    read,
    async *chunks(abs) {
      yield await read(abs);
    },
    async write(abs, bytes) {
      if (!fs.write || !plainText(bytes)) return writeFile(abs, bytes);
      try {
        await client.request('fs/write_text_file', { sessionId: sessionId(), path: abs, content: bytes.toString('utf8') });
      } catch (e) {
        throw refused('fs/write_text_file', e);
      }
    },
  };
}

/** Commands through terminal/create, terminal/wait_for_exit, terminal/kill, terminal/output and terminal/release. */
export function editorTerminal(client: AgentContext, sessionId: () => string, attach: (toolUseId: string, terminalId: string) => void): CommandTerminal {
  return {
    async run(req): Promise<TerminalRun> {
      const ids = (terminalId: string): TerminalOutputRequest => ({ sessionId: sessionId(), terminalId });
      let terminalId: string;
      try {
        ({ terminalId } = await client.request('terminal/create', {
          sessionId: sessionId(),
          command: req.shell,
          args: ['-c', req.command],
          cwd: req.cwd,
          // nothing may prompt for a password or open a pager: nobody answers in a tool call
          env: [
            { name: 'GIT_TERMINAL_PROMPT', value: '0' },
            { name: 'GIT_PAGER', value: 'cat' },
            { name: 'PAGER', value: 'cat' },
          ],
          outputByteLimit: req.outputByteLimit,
        }));
      } catch (e) {
        return { output: '', truncated: false, exit: { code: null, signal: null }, error: refused('terminal/create', e).message };
      }
      // the editor shows the terminal in the call, live
      if (req.toolUseId) attach(req.toolUseId, terminalId);
      let stopped: TerminalRun['stopped'];
      const kill = (why: NonNullable<TerminalRun['stopped']>): void => {
        if (stopped) return;
        stopped = why;
        void client.request('terminal/kill', ids(terminalId)).catch(() => {});
      };
      const onAbort = (): void => kill('interrupted');
      req.signal.addEventListener('abort', onAbort, { once: true });
      if (req.signal.aborted) onAbort();
      const timer = setTimeout(() => kill('timeout'), req.timeoutMs);
      try {
        let exit: CommandExit = { code: null, signal: null };
        try {
          const r = await client.request('terminal/wait_for_exit', ids(terminalId));
          exit = { code: r.exitCode ?? null, signal: (r.signal ?? null) as NodeJS.Signals | null };
        } catch (e) {
          if (!stopped) return { output: '', truncated: false, exit, error: refused('terminal/wait_for_exit', e).message };
        }
        const out = await client.request('terminal/output', ids(terminalId)).catch(() => ({ output: '', truncated: false }));
        return { output: out.output, truncated: out.truncated, exit, ...(stopped ? { stopped } : {}) };
      } finally {
        clearTimeout(timer);
        req.signal.removeEventListener('abort', onAbort);
        void client.request('terminal/release', ids(terminalId)).catch(() => {});
      }
    },
  };
}

/** The ports the client's capabilities offer (none: the tools stay local). */
export function editorIo(
  client: AgentContext,
  caps: ClientCapabilities | undefined,
  sessionId: () => string,
  attach: (toolUseId: string, terminalId: string) => void,
): ToolIo {
  const fs = { read: caps?.fs?.readTextFile === true, write: caps?.fs?.writeTextFile === true };
  return {
    ...(fs.read || fs.write ? { fileAccess: editorFiles(client, sessionId, fs) } : {}),
    ...(caps?.terminal === true ? { terminal: editorTerminal(client, sessionId, attach) } : {}),
  };
}
