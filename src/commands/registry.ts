import type { Session } from '../session/session.js';
import type { CommandInfo, CommandOutput, HistoryPage, SessionListItem } from '../ui/controller.js';
import { editDistance } from '../editDistance.js';
import { rewindCommand } from './rewind.js';

/** What a command may do beyond the session: the interactive app provides these; print mode does not. */
export interface AppActions {
  clear(): Promise<void>;
  resume(id: string): Promise<void>;
  listSessions(): SessionListItem[];
  exit(): Promise<void>;
}

export interface CommandContext {
  session: Session;
  app?: AppActions;
}

export interface SlashCommand extends CommandInfo {
  /** Read-only commands answer at once, even while a turn runs; the others wait their turn. */
  whileBusy?: boolean;
  /** Returns what to show; undefined when the command shows nothing itself. */
  run(ctx: CommandContext, args: string): Promise<CommandOutput | undefined>;
}

/** A command the person got wrong: the message is shown as-is. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
}

const text = (t: string): CommandOutput => ({ kind: 'text', text: t });

function needApp(ctx: CommandContext, name: string): AppActions {
  if (!ctx.app) throw new CommandError(`/${name} only works in the interactive app`);
  return ctx.app;
}

/** "/compact focus: keep the schema", "/compact keep the schema" and "/compact" */
export function parseFocus(args: string): string | undefined {
  const focus = args.replace(/^\s*focus\s*:\s*/i, '').trim();
  return focus === '' ? undefined : focus;
}

export const COMMANDS: readonly SlashCommand[] = [
  {
    name: 'compact',
    args: '[focus: …]',
    description: 'summarize older messages now; the focus text steers what the summary keeps',
    // the outcome reaches the person through the compaction events (receipt or reason)
    run: async ({ session }, args) => {
      await session.compact(parseFocus(args));
      return undefined;
    },
  },
  {
    name: 'pin',
    args: '[text]',
    description: 'keep a note (or your last request) verbatim through every compaction',
    run: async ({ session }, args) => {
      try {
        session.pin(args);
      } catch (e) {
        throw new CommandError((e as Error).message);
      }
      return text('Pinned: it stays in the context verbatim, whatever is compacted.');
    },
  },
  {
    name: 'context',
    whileBusy: true,
    description: 'show what fills the context window',
    run: async ({ session }) => session.contextBreakdown(),
  },
  {
    name: 'cost',
    whileBusy: true,
    description: 'tokens in and out per model, with an estimate in dollars',
    run: async ({ session }) => session.costRows(),
  },
  {
    name: 'model',
    args: '[name]',
    description: 'show or switch the model',
    run: async ({ session }, args) => {
      const name = args.trim();
      if (!name) {
        const c = session.currentConfig;
        return text(`Model: ${c.model.name} (${c.provider}, ${c.model.contextWindow.toLocaleString('en-US')}-token window, ${c.maxOutputTokens.toLocaleString('en-US')} output tokens per reply)`);
      }
      return text(session.setModel(name));
    },
  },
  {
    name: 'permissions',
    whileBusy: true,
    description: 'list the permission mode, configured rules and choices remembered this session',
    run: async ({ session }) => session.permissionRules(),
  },
  {
    name: 'history',
    whileBusy: true,
    args: '<query> | open <id>',
    description: 'search what compaction archived in this session, or open one archived item',
    run: async ({ session }, args) => historyCommand(session, args),
  },
  {
    name: 'rewind',
    args: '[turn code|conversation|both]',
    description: 'go back to before an earlier turn: restore the files Edit/Write changed, the conversation, or both',
    run: async ({ session }, args) => {
      try {
        return await rewindCommand(session, args);
      } catch (e) {
        throw new CommandError((e as Error).message);
      }
    },
  },
  {
    name: 'clear',
    description: 'start a new session (the current one stays resumable)',
    run: async (ctx) => {
      await needApp(ctx, 'clear').clear();
      return undefined;
    },
  },
  {
    name: 'resume',
    args: '[id]',
    description: 'pick a stored session to continue',
    run: async (ctx, args) => {
      const app = needApp(ctx, 'resume');
      const id = args.trim();
      if (id) {
        await app.resume(id);
        return undefined;
      }
      return { kind: 'picker', sessions: app.listSessions() };
    },
  },
  {
    name: 'help',
    whileBusy: true,
    description: 'list commands and keys',
    run: async () => ({ kind: 'help', commands: COMMANDS.map(({ name, args, description }) => ({ name, description, ...(args ? { args } : {}) })) }),
  },
  {
    name: 'exit',
    whileBusy: true,
    description: 'leave agent (the session stays resumable)',
    run: async (ctx) => {
      await needApp(ctx, 'exit').exit();
      return undefined;
    },
  },
];

async function historyCommand(session: Session, args: string): Promise<CommandOutput> {
  const open = /^open\s+(\S+)/.exec(args.trim());
  if (open) {
    const item = session.recallSource().get(open[1]!);
    if (!item) throw new CommandError(`nothing archived has the id ${open[1]}`);
    return text(`${item.label} (${item.id})\n\n${item.text}`);
  }
  const pageMatch = /\s+page\s+(\d+)\s*$/i.exec(args);
  const page = pageMatch ? Math.max(1, Number(pageMatch[1])) : 1;
  const query = (pageMatch ? args.slice(0, pageMatch.index) : args).trim();
  if (!query) throw new CommandError('usage: /history <words to search> [page N], or /history open <id>');
  const result = historyPage(session, query, page);
  if (result.hits.length === 0) return text(page === 1 ? `Nothing archived matches "${query}".` : `No more results for "${query}".`);
  return { kind: 'history', result };
}

const HISTORY_PAGE = 10;

/** One page of the session's archive search (the Recall tool's scope), for /history. */
export function historyPage(session: Session, query: string, page: number): HistoryPage {
  const hits = session.recallSource().search(query, { limit: HISTORY_PAGE + 1, offset: (page - 1) * HISTORY_PAGE });
  return {
    query,
    page,
    pageSize: HISTORY_PAGE,
    hits: hits.slice(0, HISTORY_PAGE).map(({ id, label, snippet, createdAt }) => ({ id, label, snippet, createdAt })),
    hasMore: hits.length > HISTORY_PAGE,
  };
}

export function parseSlash(input: string): { name: string; args: string } | undefined {
  const m = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/i.exec(input.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), args: m[2] ?? '' };
}

export function findCommand(name: string): SlashCommand | undefined {
  return COMMANDS.find((c) => c.name === name);
}

/** The closest command name, for "unknown command" messages. */
export function suggestCommand(name: string): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of COMMANDS) {
    const d = c.name.startsWith(name) ? 0 : editDistance(name, c.name);
    if (!best || d < best.d) best = { name: c.name, d };
  }
  return best && best.d <= Math.max(2, Math.floor(name.length / 2)) ? best.name : undefined;
}

/** Runs a slash command line; unknown commands get a suggestion. */
export async function runSlash(ctx: CommandContext, input: string): Promise<CommandOutput | undefined> {
  const parsed = parseSlash(input);
  if (!parsed) throw new CommandError(`not a command: ${input}`);
  const cmd = findCommand(parsed.name);
  if (!cmd) {
    const s = suggestCommand(parsed.name);
    throw new CommandError(`unknown command /${parsed.name}${s ? ` — did you mean /${s}?` : ''} (see /help)`);
  }
  return cmd.run(ctx, parsed.args);
}
