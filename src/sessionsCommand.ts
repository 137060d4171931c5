import { world } from './runtime/world.js';
import { reportLines } from './compaction/reportText.js';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { openStoreOnly } from './bootstrap.js';
import { lookUpSession } from './sessionLookup.js';
import { CliError, EXIT_OK, EXIT_RUNTIME, EXIT_USAGE } from './cliError.js';
import type { GlobalOptions } from './cliOptions.js';
import { readGoal, statusText } from './goals/goal.js';
import type { Message } from './llm/messages.js';
import { messageText, speakerOf, type TextStyle } from './llm/messageText.js';
import { sessionMarkdown, type SpilledText } from './markdownExport.js';
import { isStaleLease } from './session/lease.js';
import type { SessionInfo, Store } from './store/index.js';
import { archiveCause } from './session/recordIds.js';
import { spillHandleOf } from './tools/spill.js';
import { checkpointLines, sessionRecords } from './checkpoints/listing.js';
import { dirname } from 'node:path';
import { isPersonTurn } from './session/rewind.js';
import { typedText } from './session/mentions.js';

// `agent sessions …`: list, show, export, search and remove stored sessions.

type Opts = GlobalOptions & { db?: string };

function withStore<T>(opts: Opts, fn: (store: Store) => T): T {
  const store = openStoreOnly(opts);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

function requireSession(store: Store, id: string): SessionInfo {
  const info = lookUpSession(store, id, 'agent sessions');
  if (!info) throw new CliError(`no session with id "${id}" (list them with \`agent sessions\`)`, EXIT_USAGE);
  return info;
}

/** A session a live process is writing is not deleted under it. */
function refuseIfInUse(store: Store, id: string): void {
  const holder = store.getLease(id);
  if (holder && !isStaleLease(holder)) {
    throw new CliError(
      `session ${id} is in use by pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`}: not deleted (end that agent first)`,
      EXIT_USAGE,
    );
  }
}

const out = (s: string): void => {
  world().stdout.write(s.endsWith('\n') ? s : `${s}\n`);
};

function age(ms: number): string {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86_400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/** The compactions `sessions show` lists (not micro: those clear tool outputs in place); the list counts the same. */
const shownCompactions = (store: Store, id: string) => store.listCompactions(id).filter((c) => c.trigger !== 'micro');

export async function listSessionsCommand(opts: Opts & { cwd?: string; limit: number }): Promise<number> {
  return withStore(opts, (store) => {
    // one more than asked: whether the list stops short is said, never left for the person to guess
    const found = store.listSessions({ ...(opts.cwd ? { cwd: opts.cwd } : {}), limit: opts.limit + 1 });
    const sessions = found.slice(0, opts.limit);
    if (sessions.length === 0) {
      out('No sessions yet. Start one with `agent`.');
      return EXIT_OK;
    }
    out(['ID', 'UPDATED', 'MESSAGES', 'COMPACTIONS', 'CWD', 'TITLE'].join('\t'));
    for (const s of sessions) {
      out([s.id, age(s.updatedAt), String(s.messageCount), String(shownCompactions(store, s.id).length), s.cwd, s.title ?? '(untitled)'].join('\t'));
    }
    if (found.length > sessions.length)
      world().stderr.write(`agent: the ${sessions.length} most recent sessions are listed; there are more: add --limit <n> to list more\n`);
    return EXIT_OK;
  });
}

const WHO = { checkpoint: 'checkpoint', meta: 'agent', tool_results: 'user', user: 'user', assistant: 'assistant' } as const;

/** `sessions show`: calls as `→ name input`, results as `← output`; with `whole`, a spilled output's archived text in place of its preview. */
const showStyle = (whole?: SpilledText): TextStyle => ({
  separator: '\n',
  // a spilled @mention: its attachment header, then the whole file from the archive
  text: (t, block) => {
    const handle = whole && block.origin?.kind === 'attachment' ? block.origin.archived : undefined;
    const text = handle ? whole?.(handle) : undefined;
    return text !== undefined ? `${t.slice(0, t.indexOf('\n'))}\n[the whole file, ${handle}:]\n${text}` : t;
  },
  toolUse: (b) => `→ ${b.name} ${JSON.stringify(b.input)}`,
  toolResult: (b) => {
    const handle = whole ? spillHandleOf(b.content) : undefined;
    const text = handle ? whole?.(handle) : undefined;
    return `← ${b.isError ? 'error: ' : ''}${text !== undefined ? `[output ${handle}, spilled; the whole of it:]\n${text}` : b.content}`;
  },
  thinking: (t) => (t.trim() ? `[thinking] ${t.trim()}` : '[thinking, not shown by the provider]'),
});

function renderMessage(m: Message, archivedBy: string | null, whole?: SpilledText): string {
  const mark = archivedBy ? ` [archived by ${archiveCause(archivedBy)} ${archivedBy}]` : '';
  return `## ${WHO[speakerOf(m)]}${m.interrupted ? ' (interrupted)' : ''}${mark} — ${new Date(m.createdAt).toISOString()}\n\n${messageText(m, showStyle(whole))}\n`;
}

const spilledText =
  (store: Store, sessionId: string): SpilledText =>
  (handle) =>
    store.spilled.get(sessionId, handle)?.content;

export async function showSessionCommand(id: string, opts: Opts & { archived?: boolean; children?: boolean; spilled?: boolean }): Promise<number> {
  return withStore(opts, (store) => {
    showSession(store, requireSession(store, id), opts, '#');
    return EXIT_OK;
  });
}

/** One session's transcript, then its sub-agents: listed, or (--children) each printed the same way one heading level down. */
function showSession(store: Store, info: SessionInfo, opts: { archived?: boolean; children?: boolean; spilled?: boolean }, heading: string): void {
  const link = info.parent ? ` · sub-agent ${info.parent.agent} of session ${info.parent.id} (Task call ${info.parent.toolUseId})` : '';
  out(`${heading} ${info.title ?? '(untitled)'}\n\nsession ${info.id} · ${info.provider}/${info.model} · ${info.cwd}${link}\n`);
  // its goal (/goal), as the session's state saved it
  const caps = info.meta['capabilities'];
  const goal = readGoal(typeof caps === 'object' && caps !== null ? (caps as Record<string, unknown>)['goal'] : undefined);
  if (goal) out(`${statusText(goal)}\n`);
  const rows = store.loadTranscript(info.id, { includeArchived: opts.archived === true });
  const whole = opts.spilled ? spilledText(store, info.id) : undefined;
  for (const { message, archivedBy } of rows) out(renderMessage(message, archivedBy, whole));
  const archived = opts.archived ? 0 : info.messageCount - info.visibleCount;
  if (archived > 0) out(`(${archived} archived message${archived === 1 ? '' : 's'} not shown; add --archived)`);
  const compactions = shownCompactions(store, info.id);
  if (compactions.length > 0) {
    out(`\n${heading}# Compactions (${compactions.length})\n`);
    for (const c of compactions) out(`${reportLines(c).join('\n')}\n`);
  }
  showCheckpoints(store, info, heading);
  showViolations(store, info, heading);
  const children = store.childSessions(info.id);
  if (children.length === 0) return;
  out(`${heading}# Sub-agents (${children.length})\n`);
  for (const c of children) out(`- ${c.id}  ${c.title ?? c.parent?.agent ?? ''}  ${c.model} · ${c.messageCount} message${c.messageCount === 1 ? '' : 's'}`);
  if (!opts.children) {
    out(`\n(add --children to print their transcripts, or \`agent sessions show <id>\` one of them)`);
    return;
  }
  out('');
  for (const c of children) showSession(store, c, opts, `${heading}#`);
}

/** The project's checkpoints this session took (src/checkpoints/), with the turns they belong to. */
function showCheckpoints(store: Store, info: SessionInfo, heading: string): void {
  const records = sessionRecords(dirname(store.file), info.cwd, info.id);
  if (records.length === 0) return;
  const turns = store
    .loadTranscript(info.id, { includeArchived: true })
    .map((e) => e.message)
    .filter(isPersonTurn);
  const label = (id: string): string => {
    const i = turns.findIndex((m) => m.id === id);
    return i < 0 ? `turn ${id}` : `turn ${i + 1} (“${typedText(turns[i]!).replace(/\s+/g, ' ').slice(0, 40)}”)`;
  };
  out(`${heading}# Checkpoints (${records.length})\n`);
  out(`${checkpointLines(records, label).join('\n')}\n`);
}

/** What the OS sandbox denied this session's commands (paths, domains), each under its command. */
function showViolations(store: Store, info: SessionInfo, heading: string): void {
  const all = store.sandboxViolations.list(info.id);
  if (all.length === 0) return;
  out(`${heading}# Sandbox violations (${all.length})\n`);
  for (const v of all)
    out(`- ${new Date(v.createdAt).toISOString().slice(0, 19).replace('T', ' ')}  ${v.line}  (${v.toolUseId}: ${v.command.replace(/\s+/g, ' ').slice(0, 80)})`);
  out('');
}

export async function exportSessionCommand(id: string, opts: Opts & { format: 'md' | 'jsonl' }): Promise<number> {
  return withStore(opts, (store) => {
    const info = requireSession(store, id);
    const rows = store.loadTranscript(info.id, { includeArchived: true });
    if (opts.format === 'jsonl') {
      out(
        JSON.stringify({
          type: 'session',
          id: info.id,
          cwd: info.cwd,
          title: info.title,
          provider: info.provider,
          model: info.model,
          createdAt: info.createdAt,
        }),
      );
      for (const { message, archivedBy } of rows) out(JSON.stringify({ type: 'message', archivedBy, ...message }));
      for (const c of store.listCompactions(info.id)) out(JSON.stringify({ type: 'compaction', ...c }));
      return EXIT_OK;
    }
    world().stdout.write(sessionMarkdown(info, rows, spilledText(store, info.id)));
    return EXIT_OK;
  });
}

export async function removeSessionCommand(id: string, opts: Opts & { yes?: boolean }): Promise<number> {
  const store = openStoreOnly(opts);
  try {
    const info = requireSession(store, id);
    refuseIfInUse(store, info.id);
    if (!opts.yes) {
      if (!world().stdin.isTTY) throw new CliError('refusing to delete without confirmation: add --yes', EXIT_USAGE);
      const rl = createInterface({ input: world().stdin, output: world().stderr });
      const answer = await rl.question(`Delete session ${info.id} "${info.title ?? '(untitled)'}" (${info.messageCount} messages)? [y/N] `);
      rl.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        out('Kept.');
        return EXIT_RUNTIME;
      }
    }
    refuseIfInUse(store, info.id);
    store.deleteSession(info.id);
    out(`Deleted session ${info.id}.`);
    return EXIT_OK;
  } finally {
    store.close();
  }
}

export async function searchSessionsCommand(query: string, opts: Opts & { session?: string; limit: number }): Promise<number> {
  return withStore(opts, (store) => {
    const sessionId = opts.session ? requireSession(store, opts.session).id : undefined;
    const hits = store.searchArchive(query, { ...(sessionId ? { sessionId, withChildren: true } : {}), limit: opts.limit, offset: 0 });
    if (hits.length === 0) {
      out(`Nothing matches "${query}".`);
      return EXIT_OK;
    }
    for (const h of hits) {
      out(`${h.sessionId}  ${h.id}  ${h.label}${h.archived ? '  [archived]' : ''}\n    ${h.snippet.replace(/\s+/g, ' ')}`);
    }
    return EXIT_OK;
  });
}
