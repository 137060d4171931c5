import type { Session } from '../session/session.js';
import type { CommandInfo, CommandOutput, SessionListItem } from '../protocol/views.js';
import { existsSync } from 'node:fs';
import { editDistance } from '../editDistance.js';
import { commandDirs, loadCustomCommands, type CustomCommand } from './custom.js';
import { runCustom } from './customRun.js';
import { configHome } from '../agent/instructions.js';
import { initPrompt, memoryText } from './instructionsText.js';
import { isKnownModel, modelChoices, suggestModels } from './modelChoices.js';
import { rewindCommand } from './rewind.js';
import { historyCommand } from './history.js';
import { uncompactCommand } from './uncompact.js';
import { agentsView, contextView, costView, permissionsView } from './views.js';
import { planCommand, todosView } from './plan.js';
import type { Capability } from '../capability/capability.js';
import { ConfigError } from '../config/config.js';
import { EFFORTS } from '../config/thinking.js';
import type { Effort } from '../llm/provider.js';
import type { SandboxRuntime } from '../sandbox/runtime.js';
import { sandboxReport } from '../sandbox/status.js';

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
  /** The person's and the project's custom commands (custom.ts). */
  custom?: readonly CustomCommand[];
  /** The session's tool names, for a custom command's allowed-tools. */
  toolNames?: readonly string[];
  /** The capabilities' commands (/skills, /mcp, /tasks, /goal, /btw…: Runtime.slash), after the built-in ones. */
  more?: readonly SlashCommand[];
  /** The OS sandbox Bash runs in (/sandbox; undefined when it is off). */
  sandbox?: SandboxRuntime | undefined;
}

export interface SlashCommand extends CommandInfo {
  /** Read-only commands answer at once, even while a turn runs; the others wait their turn. */
  whileBusy?: boolean;
  /** It works only with the interactive app's actions (AppActions): /clear, /resume, /exit, /quit. */
  needsApp?: boolean;
  /** Returns what to show; undefined when the command shows nothing itself. */
  run(ctx: CommandContext, args: string): Promise<CommandOutput | undefined>;
}

/** A command the person got wrong: the message is shown as-is. */
export class CommandError extends Error {
  override readonly name = 'CommandError';
}

const text = (t: string): CommandOutput => ({ kind: 'text', text: t });

/** Runs what the session is asked; its refusal ("nothing is pinned", "no turn 9") is shown as the command's message. */
async function asCommand<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw new CommandError((e as Error).message);
  }
}

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
    args: '[focus: …] | cancel',
    description: 'summarize older messages now (in the background in the app); the focus text steers what the summary keeps',
    // the outcome reaches the person through the compaction events (receipt or reason)
    run: async ({ session, app }, args) => {
      if (args.trim().toLowerCase() === 'cancel') {
        if (!session.cancelCompaction()) throw new CommandError('no compaction is running');
        return undefined;
      }
      // the app goes on while the summary is written: a prompt sent meanwhile goes out with the full history
      if (app && (await session.compactInBackground(parseFocus(args)))) return undefined;
      await session.compact(parseFocus(args));
      return undefined;
    },
  },
  {
    name: 'pin',
    args: '[text] | list',
    description: 'keep a note (or your last request) verbatim through every compaction; /pin list shows the pins',
    run: async ({ session }, args) => {
      if (args.trim().toLowerCase() === 'list') return text(pinList(session.pins()));
      await asCommand(() => session.pin(args));
      return text('Pinned: it stays in the context verbatim, whatever is compacted.');
    },
  },
  {
    name: 'unpin',
    args: '<n>',
    description: 'stop keeping pin n (from /pin list) verbatim; it is compacted like the rest',
    run: async ({ session }, args) => {
      const n = Number(args.trim());
      if (!Number.isInteger(n) || n < 1) throw new CommandError('usage: /unpin <n>, with n from /pin list');
      const note = await asCommand(() => session.unpin(n));
      return text(`Unpinned: ${note.split('\n')[0]}`);
    },
  },
  {
    name: 'context',
    whileBusy: true,
    description: 'show what fills the context window',
    run: async ({ session }) => contextView(session),
  },
  {
    name: 'cost',
    whileBusy: true,
    description: 'tokens in and out per model, with an estimate in dollars',
    run: async ({ session }) => costView(session),
  },
  {
    name: 'agents',
    whileBusy: true,
    description: 'list the sub-agents the Task tool can start (built-in and from agent files)',
    run: async ({ session }) => agentsView(session),
  },
  {
    name: 'model',
    args: '[name]',
    description: 'switch the model (without a name: pick from the known ones, with window and price)',
    run: async ({ session }, args) => {
      const name = args.trim();
      const c = session.currentConfig;
      if (!name) return { kind: 'models', models: modelChoices(c), current: c.model.name };
      if (!isKnownModel(c, name)) {
        const near = suggestModels(name, modelChoices(c));
        throw new CommandError(
          `unknown model "${name}"${near.length > 0 ? ` — did you mean ${near.join(', ')}?` : ''} /model lists the known ones; ` +
            `describe another under "models" in .agentrc (or use --base-url for a local server).`,
        );
      }
      return text(session.setModel(name));
    },
  },
  {
    name: 'effort',
    args: '[low|medium|high|xhigh|max]',
    description: 'how much the model thinks, from the next turn (without a level: the current one and the choices)',
    run: async ({ session }, args) => {
      const level = args.trim();
      const c = session.currentConfig;
      const levels = c.capabilities?.efforts ?? [];
      if (!level) {
        if (levels.length === 0) return text(`${c.model.name} takes no effort setting.`);
        return text(`Effort: ${c.thinking?.effort ?? 'high'} (${c.model.name} takes ${levels.join(', ')}). /effort <level> changes it from the next turn.`);
      }
      if (!(EFFORTS as readonly string[]).includes(level)) throw new CommandError(`/effort: "${level}" is not a level (use ${EFFORTS.join(', ')})`);
      try {
        return text(session.setEffort(level as Effort));
      } catch (e) {
        if (e instanceof ConfigError) throw new CommandError(e.message);
        throw e;
      }
    },
  },
  {
    name: 'memory',
    whileBusy: true,
    description: 'list the instruction files in force (AGENTS.md / CLAUDE.md, personal and project)',
    run: async ({ session }) => text(memoryText(session.instructionFiles(), configHome())),
  },
  {
    name: 'init',
    description: 'ask the model to study the repository and draft an AGENTS.md for it',
    run: async ({ session }) => {
      session.titleIfUntitled('/init');
      await session.prompt(initPrompt(session.currentConfig.cwd));
      return undefined;
    },
  },
  {
    name: 'permissions',
    whileBusy: true,
    description: 'list the permission mode, configured rules and choices remembered this session',
    run: async ({ session }) => permissionsView(session),
  },
  {
    name: 'sandbox',
    whileBusy: true,
    description: 'show the sandbox Bash runs in: its state, the settings in force, what is missing',
    run: async ({ session, sandbox }) => text(sandboxReport(sandbox?.status, session.currentConfig.sandbox)),
  },
  {
    name: 'plan',
    args: '[what to plan | show | save <file> | off]',
    description: 'plan mode: only reading runs until you approve the plan; show or save the approved plan; off leaves plan mode',
    run: async ({ session }, args) => asCommand(() => planCommand(session, args)),
  },
  {
    name: 'todos',
    whileBusy: true,
    description: "print the task list (TodoWrite) with each item's status",
    run: async ({ session }) => todosView(session),
  },
  {
    name: 'history',
    whileBusy: true,
    args: '<query> | open <id>',
    description: 'search what compaction archived in this session, or open one archived item',
    run: ({ session }, args) => asCommand(() => historyCommand(session, args)),
  },
  {
    name: 'uncompact',
    args: '[list | n [newest count]]',
    description: 'undo the last compaction (or compaction n): what it archived comes back into the context, if it fits',
    run: async ({ session }, args) => asCommand(() => uncompactCommand(session, args)),
  },
  {
    name: 'rewind',
    args: '[turn code|conversation|both | undo] [--force]',
    description:
      "go back to before an earlier turn: restore the project's files (Bash's changes too, from the checkpoints), the conversation, or both; undo takes back the last rewind",
    run: async ({ session, app }, args) => asCommand(() => rewindCommand(session, args, app !== undefined)),
  },
  {
    name: 'clear',
    needsApp: true,
    description: 'start a new session (the current one stays resumable)',
    run: async (ctx) => {
      await needApp(ctx, 'clear').clear();
      return undefined;
    },
  },
  {
    name: 'resume',
    needsApp: true,
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
    run: async (ctx) => ({ kind: 'help', commands: commandInfos(ctx.custom, {}, ctx.more) }),
  },
  leave('exit', 'leave agent (the session stays resumable)'),
  leave('quit', 'the same as /exit'),
];

/**
 * The capabilities' commands as slash commands: each runs on the session it is typed in (its
 * refusals shown as the command's message), in the capabilities' order.
 */
export function capabilityCommands(capabilities: readonly Pick<Capability, 'commands'>[]): SlashCommand[] {
  return capabilities.flatMap((c) =>
    (c.commands ?? []).map(
      (cmd): SlashCommand => ({
        name: cmd.name,
        description: cmd.description,
        ...(cmd.args ? { args: cmd.args } : {}),
        ...(cmd.whileBusy ? { whileBusy: true } : {}),
        run: ({ session }, args) => asCommand(() => cmd.run(session, args, new AbortController().signal)),
      }),
    ),
  );
}

/** The slash commands of a run beside the built-in ones: the capabilities', and the custom ones (a capability may add some: a skill is also /name). */
export interface RunCommands {
  custom: CustomCommand[];
  slash: SlashCommand[];
  /** What the person should hear about them (a broken command file, a skill shadowed by a command). */
  warnings: string[];
}

/** Reads the custom command folders of `cwd` and gathers the capabilities' commands. */
export async function runCommands(capabilities: readonly Capability[], cwd: string, env: NodeJS.ProcessEnv): Promise<RunCommands> {
  const slash = capabilityCommands(capabilities);
  const builtIn = [...COMMANDS, ...slash].map((c) => c.name);
  const loaded = await loadCustomCommands(commandDirs(cwd, env), builtIn);
  let custom = loaded.commands;
  const warnings = [...loaded.warnings];
  for (const c of capabilities) {
    const merged = c.customCommands?.(custom, builtIn);
    if (merged) {
      custom = merged.commands;
      warnings.push(...merged.warnings);
    }
  }
  return { custom, slash, warnings };
}

/** /exit and its alias /quit. */
function leave(name: string, description: string): SlashCommand {
  return {
    name,
    whileBusy: true,
    needsApp: true,
    description,
    run: async (ctx) => {
      await needApp(ctx, name).exit();
      return undefined;
    },
  };
}

function pinList(pins: ReadonlyArray<{ text: string }>): string {
  if (pins.length === 0) return 'Nothing is pinned. /pin <text> keeps a note verbatim through every compaction.';
  return [
    'Pinned (kept verbatim through every compaction; /unpin <n> to drop one):',
    ...pins.map((p, i) => `  ${i + 1}. ${p.text.replace(/\s+/g, ' ').slice(0, 200)}`),
  ].join('\n');
}

/** What the slash menu and /help list: the built-ins, then the custom commands with where each comes from. */
export function commandInfos(custom: readonly CustomCommand[] = [], opts: { app?: boolean } = {}, more: readonly SlashCommand[] = []): CommandInfo[] {
  const info = ({ name, args, description }: CommandInfo): CommandInfo => ({ name, description, ...(args ? { args } : {}) });
  // a front end without the interactive app's actions (ACP) is not offered what would refuse there
  const all = [...COMMANDS, ...more];
  const offered = opts.app === false ? all.filter((c) => !c.needsApp) : all;
  return [...offered.map(info), ...custom.map((c) => info({ ...c, description: `${c.description ? `${c.description} ` : ''}(${c.source})` }))];
}

/** A custom command named by the line, with its arguments. */
export function findCustom(
  input: string,
  custom: readonly CustomCommand[] = [],
  more: readonly SlashCommand[] = [],
): { cmd: CustomCommand; args: string } | undefined {
  const parsed = parseSlash(input);
  if (!parsed || findCommand(parsed.name, more)) return undefined;
  const cmd = custom.find((c) => c.name === parsed.name);
  return cmd ? { cmd, args: parsed.args } : undefined;
}

export function parseSlash(input: string): { name: string; args: string } | undefined {
  const m = /^\/([a-z][\w:-]*)(?:\s+([\s\S]*))?$/i.exec(input.trim());
  if (!m) return undefined;
  return { name: m[1]!.toLowerCase(), args: m[2] ?? '' };
}

/** A built-in command, or one of `more` (the capabilities'). */
export function findCommand(name: string, more: readonly SlashCommand[] = []): SlashCommand | undefined {
  return COMMANDS.find((c) => c.name === name) ?? more.find((c) => c.name === name);
}

/**
 * Whether a line is meant as a slash command: "/word" naming a command or close to one. A
 * prompt that starts with a path ("/etc/hosts is it fine?", "/usr/bin is missing") is a prompt.
 */
export function isCommandLine(input: string, custom: readonly CustomCommand[] = [], more: readonly SlashCommand[] = []): boolean {
  const parsed = parseSlash(input);
  if (!parsed) return false;
  if (findCommand(parsed.name, more) !== undefined || custom.some((c) => c.name === parsed.name) || suggestCommand(parsed.name, custom, more) !== undefined)
    return true;
  // a lone "/word" naming no command: an unknown command, unless it names a path ("/tmp")
  return parsed.args.trim() === '' && !existsSync(input.trim());
}

/** The closest command name, for "unknown command" messages. */
export function suggestCommand(name: string, custom: readonly CustomCommand[] = [], more: readonly SlashCommand[] = []): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of [...COMMANDS, ...more, ...custom]) {
    const d = c.name.startsWith(name) ? 0 : editDistance(name, c.name);
    if (!best || d < best.d) best = { name: c.name, d };
  }
  // a three-letter word is two edits from many others (/tmp and /mcp): short names allow one
  const allowed = name.length <= 3 ? 1 : Math.max(2, Math.floor(name.length / 2));
  return best && best.d <= allowed ? best.name : undefined;
}

/** Runs a slash command line; unknown commands get a suggestion. */
export async function runSlash(ctx: CommandContext, input: string): Promise<CommandOutput | undefined> {
  const parsed = parseSlash(input);
  if (!parsed) throw new CommandError(`not a command: ${input}`);
  const cmd = findCommand(parsed.name, ctx.more);
  const custom = findCustom(input, ctx.custom, ctx.more);
  if (!cmd && custom) {
    await asCommand(() => runCustom(ctx.session, custom.cmd, custom.args, ctx.toolNames ?? []));
    return undefined;
  }
  if (!cmd) {
    const s = suggestCommand(parsed.name, ctx.custom, ctx.more);
    throw new CommandError(`unknown command /${parsed.name}${s ? ` — did you mean /${s}?` : ''} (see /help)`);
  }
  return cmd.run(ctx, parsed.args);
}
