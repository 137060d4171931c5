import { agent, ndJsonStream, PROTOCOL_VERSION, RequestError, type AgentContext, type ClientCapabilities, type McpServer } from '@agentclientprotocol/sdk';
import { hostname } from 'node:os';
import { Readable, Writable } from 'node:stream';
import pkg from '../../package.json' with { type: 'json' };
import { createRuntime, type Runtime } from '../bootstrap.js';
import type { GlobalOptions } from '../cliOptions.js';
import type { McpServerFileEntry } from '../config/schema.js';
import { debug } from '../log.js';
import { inWorld, world } from '../runtime/world.js';
import { SessionInUseError } from '../session/lease.js';
import type { ApprovalDecision, ApprovalRequest } from '../tools/permissions.js';
import type { ToolIo } from '../tools/types.js';
import { AcpSession } from './acpSession.js';
import { editorIo } from './editorIo.js';
import { replayUpdates } from './updates.js';

// `agent acp`: an Agent Client Protocol (v1) agent on stdin/stdout, for editors (Zed, JetBrains,
// Neovim, Emacs). Built on the official SDK's agent side. Each ACP session is a runtime of this
// program over the same SQLite store the TUI uses: a session started here loads in the TUI and
// back. stdout carries only the protocol; what would go to the terminal goes to stderr or the
// debug log.

/** The editor's MCP servers in .mcp.json's shape. */
function clientServers(servers: readonly McpServer[]): Array<{ name: string; entry: McpServerFileEntry }> {
  const pairs = (list: ReadonlyArray<{ name: string; value: string }>): Record<string, string> => Object.fromEntries(list.map((v) => [v.name, v.value]));
  return servers.map((s) =>
    'command' in s
      ? { name: s.name, entry: { type: 'stdio', command: s.command, args: s.args, env: pairs(s.env) } }
      : { name: s.name, entry: { type: s.type, url: s.url, headers: pairs(s.headers) } },
  );
}

/** Opens a runtime in `cwd` (its .agentrc, its project, the editor's MCP servers), resuming `resume` when given. */
async function openRuntime(
  opts: GlobalOptions,
  cwd: string,
  servers: readonly McpServer[],
  approve: (req: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>,
  io: ToolIo,
  resume?: string,
) {
  // the config, the project's files and the tools' working directory all follow the session's
  // cwd: the runtime is built in this run's world with the session's cwd (not process.chdir, which
  // every session and every other run in the process would share)
  const { runtime } = await inWorld({ ...world(), cwd }, () =>
    createRuntime({ ...opts, ...(resume ? { resume } : {}), print: undefined }, { approver: approve, mcpServers: clientServers(servers), io }),
  );
  const mcp = runtime.mcp;
  if (mcp) {
    mcp.onNotice = (level, text) => debug(`acp: mcp ${level}: ${text}`);
    mcp.start();
    await mcp.ready(runtime.config.mcp.startupMs);
  }
  return runtime;
}

/**
 * A session another live agent writes (open in the TUI, a -p run) cannot be loaded: said as the
 * editor's user can act on it, not as an internal error advising a command-line flag (--fork).
 */
function inUse(e: unknown, sessionId: string): RequestError | undefined {
  const cause = e instanceof SessionInUseError ? e : e instanceof Error && e.cause instanceof SessionInUseError ? e.cause : undefined;
  if (!cause) return undefined;
  return RequestError.invalidRequest(
    { sessionId, pid: cause.holder.pid },
    `session ${sessionId} is open in another agent (pid ${cause.holder.pid}${cause.holder.host === hostname() ? '' : ` on ${cause.holder.host}`}), which is writing it: close it there and load it again, or start a new session`,
  );
}

export async function runAcp(opts: GlobalOptions): Promise<number> {
  const sessions = new Map<string, AcpSession>();
  // what the editor offers (fs/*, terminal/*), told in initialize
  let clientCaps: ClientCapabilities | undefined;
  const find = (id: string): AcpSession => {
    const s = sessions.get(id);
    if (!s) throw RequestError.resourceNotFound(id);
    return s;
  };
  /** A session whose runtime is opened before its id is known: approvals wait for the id. */
  const open = async (client: AgentContext, cwd: string, servers: readonly McpServer[], resume?: string): Promise<AcpSession> => {
    let self: AcpSession | undefined;
    const runtime: Runtime = await openRuntime(
      opts,
      cwd,
      servers,
      (req, signal) => (self ? self.approve(req, signal) : Promise.resolve({ kind: 'deny', note: 'the session is not open yet' })),
      // the editor's buffers and terminals, named by the session's id once it is known
      editorIo(
        client,
        clientCaps,
        () => self?.id ?? '',
        (toolUseId, terminalId) => self?.attachTerminal(toolUseId, terminalId),
      ),
      resume,
    );
    self = new AcpSession(runtime.session.id, runtime, client);
    sessions.get(self.id)?.close();
    sessions.set(self.id, self);
    return self;
  };

  const app = agent({ name: 'agent' })
    .onRequest('initialize', ({ params }) => {
      clientCaps = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true, audio: false },
          mcpCapabilities: { http: true, sse: true },
        },
        agentInfo: { name: 'agent', title: 'agent', version: pkg.version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params, client }) => {
      const s = await open(client, params.cwd, params.mcpServers);
      // the commands go out once the editor knows the session's id
      setImmediate(() => s.advertiseCommands());
      return { sessionId: s.id, modes: s.modes() };
    })
    .onRequest('session/load', async ({ params, client }) => {
      const s = await open(client, params.cwd, params.mcpServers, params.sessionId).catch((e: unknown) => {
        throw inUse(e, params.sessionId) ?? e;
      });
      if (s.id !== params.sessionId) {
        s.close();
        sessions.delete(s.id);
        throw RequestError.resourceNotFound(params.sessionId);
      }
      // the stored history, replayed before the response as ACP asks
      for (const update of replayUpdates(s.runtime.session.messages(), s.cwd)) await client.notify('session/update', { sessionId: s.id, update });
      s.syncPlan();
      setImmediate(() => s.advertiseCommands());
      return { modes: s.modes() };
    })
    .onRequest('session/set_mode', ({ params }) => {
      try {
        find(params.sessionId).setMode(params.modeId);
      } catch (e) {
        throw RequestError.invalidParams(undefined, (e as Error).message);
      }
      return {};
    })
    .onRequest('session/prompt', ({ params }) => find(params.sessionId).prompt(params.prompt))
    .onNotification('session/cancel', ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  const stream = ndJsonStream(Writable.toWeb(world().stdout) as WritableStream<Uint8Array>, Readable.toWeb(world().stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  await connection.closed;
  for (const s of sessions.values()) {
    s.cancel();
    await s.runtime.mcp?.close();
    s.close();
  }
  return 0;
}
