// The ledger's built-in sections, each a pure function of the log: the person's own words,
// the files read and changed, the failures still standing, the spilled outputs.
import type { Message, TextBlock, ToolResultBlock, ToolUseBlock } from '../llm/messages.js';
import { TOOL } from '../tools/toolNames.js';
import type { LedgerInput, LedgerItem, LedgerSection } from './types.js';

/** Tools whose `path` input names a file they change, and those that read one. */
export const EDIT_TOOLS: readonly string[] = [TOOL.Edit, TOOL.Write];
export const READ_TOOLS: readonly string[] = [TOOL.FileRead];
/** How many of the person's first and newest messages are kept whole as long as anything else can give way. */
export const FIRST_WHOLE = 2;
export const NEWEST_WHOLE = 3;
const BRIEF_CHARS = 120;

/** A message the person typed: role user, kind normal, no tool results, some text. */
export function isPersonMessage(m: Message): boolean {
  return m.role === 'user' && m.kind === 'normal' && !m.blocks.some((b) => b.type === 'tool_result') && personText(m) !== '';
}

/** A skill's body as /name loads it into the person's message (skills/loaded.ts wrapSkill). */
const SKILL_BODY = /<skill name="([a-z0-9-]+)" folder="[^"\n]*">\n[\s\S]*?\n<\/skill>/g;

/**
 * What the person wrote: the message's text, a skill body /name loaded into it named instead of
 * repeated (it comes back on its own after a compaction, with the skills loaded: quoted here too,
 * it was in the context twice).
 */
export function personText(m: Message): string {
  // the common shape, one text block, without the arrays (the ledger reads thousands of these)
  const only = m.blocks.length === 1 ? m.blocks[0] : undefined;
  const text =
    only?.type === 'text'
      ? only.text.trim()
      : m.blocks
          .filter((b): b is TextBlock => b.type === 'text')
          .map((b) => b.text)
          .join('')
          .trim();
  return text.includes('<skill name="') ? text.replace(SKILL_BODY, '[the skill "$1", loaded here: its text is attached with the skills loaded]') : text;
}

/** The first line of a text, cut to `max` characters ("…" when more follows). */
export function oneLine(text: string, max = BRIEF_CHARS): string {
  const t = text.trimStart();
  const end = t.indexOf('\n');
  let line = (end < 0 ? t : t.slice(0, end)).slice(0, max * 2);
  // only runs of white space, or white space other than a space, need the replace (it allocates)
  if (/[^\S ]| {2}/.test(line)) line = line.replace(/\s+/g, ' ');
  line = line.trim();
  const more = end >= 0 && /\S/.test(t.slice(end));
  return line.length > max ? `${line.slice(0, max - 1)}…` : more ? `${line} …` : line;
}

const pathOf = (input: Record<string, unknown>): string | undefined => {
  const p = input.path ?? input.file_path;
  return typeof p === 'string' && p.trim() ? p : undefined;
};

const quote = (text: string): string =>
  text.includes('\n')
    ? text
        .split('\n')
        .map((l) => (l ? `> ${l}` : '>'))
        .join('\n')
    : `> ${text}`;

type ToolPair = { use: ToolUseBlock; result: ToolResultBlock; message: Message };
const pairsMemo = new WeakMap<readonly Message[], ToolPair[]>();

/** Tool calls and their results in log order; found once per log however many sections read them. */
function toolPairs(messages: readonly Message[]): ToolPair[] {
  const memo = pairsMemo.get(messages);
  if (memo) return memo;
  const uses = new Map<string, ToolUseBlock>();
  const pairs: ToolPair[] = [];
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'tool_use') uses.set(b.id, b);
      else if (b.type === 'tool_result') {
        const use = uses.get(b.toolUseId);
        if (use) pairs.push({ use, result: b, message: m });
      }
    }
  }
  pairsMemo.set(messages, pairs);
  return pairs;
}

/** The person's messages outside the kept part, oldest first. */
export function personMessages(input: LedgerInput): Array<{ message: Message; text: string }> {
  const out: Array<{ message: Message; text: string }> = [];
  for (const m of input.messages) {
    if (m.role !== 'user' || m.kind !== 'normal' || input.kept.has(m.id) || m.blocks.some((b) => b.type === 'tool_result')) continue;
    const text = personText(m);
    if (text !== '') out.push({ message: m, text });
  }
  return out;
}

export const wordsSection: LedgerSection = {
  id: 'words',
  title: "The person's own words",
  order: 10,
  share: 0.55,
  note: 'Every message the person typed in the archived part, oldest first, quoted exactly (a shortened one says where to read it whole):',
  derive(input) {
    const msgs = personMessages(input);
    return msgs.map(({ message: m, text }, i): LedgerItem => {
      return {
        text: `[${m.id}]\n${quote(text)}`,
        brief: `[${m.id}] ${oneLine(text)}`,
        recallId: m.id,
        anchor: i < FIRST_WHOLE || i >= msgs.length - NEWEST_WHOLE,
      };
    });
  },
};

export const filesSection: LedgerSection = {
  id: 'files',
  title: 'Files',
  order: 20,
  share: 0.15,
  maxShown: 40,
  note: 'Every file read or changed so far (the whole session), most recently touched first:',
  derive(input) {
    const seen = new Map<string, { edits: number; reads: number; last: number; said?: string }>();
    // files changed since the model last wrote text: its next words are what it said of the change
    let changed: string[] = [];
    let n = 0;
    const uses = new Map<string, ToolUseBlock>();
    for (const m of input.messages) {
      if (m.role === 'assistant' && changed.length > 0) {
        const said = m.blocks.find((b): b is TextBlock => b.type === 'text' && b.text.trim() !== '');
        if (said) {
          for (const path of changed) seen.get(path)!.said = oneLine(said.text, 100);
          changed = [];
        }
      }
      for (const result of m.blocks) {
        if (result.type === 'tool_use') uses.set(result.id, result);
        const use = result.type === 'tool_result' ? uses.get(result.toolUseId) : undefined;
        if (!use || result.type !== 'tool_result') continue;
        const path = pathOf(use.input);
        const edit = EDIT_TOOLS.includes(use.name);
        if (!path || result.isError || (!edit && !READ_TOOLS.includes(use.name))) continue;
        const f = seen.get(path) ?? { edits: 0, reads: 0, last: 0 };
        if (edit) {
          f.edits++;
          if (!changed.includes(path)) changed.push(path);
        } else f.reads++;
        f.last = ++n;
        seen.set(path, f);
      }
    }
    return [...seen.entries()]
      .sort((a, b) => b[1].last - a[1].last)
      .map(([path, f]) => {
        const what = `- ${path} — ${f.edits > 0 ? `modified (${f.edits} edit${f.edits === 1 ? '' : 's'})${f.reads > 0 ? ', read' : ''}` : 'read'}`;
        return f.said ? { text: `${what}, the model said: "${f.said}"`, brief: what } : { text: what };
      });
  },
};

/**
 * The line of a failed output that says what went wrong. A line that starts with an error's type
 * (`ModuleNotFoundError: No module named 'x'`, `TypeError: …`, `java.lang.NullPointerException`)
 * wins, the last one when a traceback chains several; then a line with a word of failure, the
 * type names' `…Error`/`…Exception` included; never a stack frame or a traceback's header.
 */
export function keyErrorLine(content: string): string {
  const lines = content.split('\n').map((l) => l.trim());
  const useful = lines.filter((l) => l !== '' && !/^exit code\b/i.test(l) && !/^killed by signal\b/i.test(l) && !STACK_LINE.test(l));
  const typed = useful.filter((l) => ERROR_TYPE_LINE.test(l)).at(-1);
  const hit =
    typed ??
    useful.find((l) =>
      /\b(error|failed|failure|fail|exception|cannot|can't|not found|denied|refused|no such|invalid|panic|fatal)\b|[a-z](Error|Exception)\b/i.test(l),
    );
  return oneLine(hit ?? useful[0] ?? '(no output)', 160);
}

/** A stack frame or a traceback's framing: where it went wrong, never what. */
const STACK_LINE =
  /^(at\s|File "|Traceback \(most recent call last\)|During handling of the above exception|The above exception was the direct cause|\^+$|~+$)/;
/** A line opening with an error's type: Python's and Node's `KeyError: …`, Java's `java.lang.X`, `Uncaught TypeError`. */
const ERROR_TYPE_LINE = /^(?:Uncaught\s+|E\s+)?(?:[\w$]+\.)*[\w$]*(?:Error|Exception)(?::|\s|$)/;

const exitOf = (content: string): string => {
  const code = /Exit code (\S+)\s*$/.exec(content.trimEnd());
  if (code) return `exit ${code[1]}`;
  const signal = /Killed by signal (\S+)\s*$/.exec(content.trimEnd());
  if (signal) return `killed by ${signal[1]}`;
  return /^Command timed out/.test(content) ? 'timed out' : 'error';
};

export const failuresSection: LedgerSection = {
  id: 'failures',
  title: 'Failures still standing',
  order: 30,
  share: 0.15,
  maxShown: 8,
  note: 'Commands and tool calls that failed and have not succeeded since, newest first:',
  derive(input) {
    // keyed by the call as described: the same command succeeding later settles it
    const standing = new Map<string, { line: string; id: string; at: number }>();
    let n = 0;
    for (const { use, result, message } of toolPairs(input.messages)) {
      const what = `${use.name}${describeOf(input, use) ? ` ${describeOf(input, use)}` : ''}`;
      n++;
      if (!result.isError) {
        standing.delete(what);
        continue;
      }
      const content = result.cleared ? '' : result.content;
      const line = `- ${oneLine(what, 160)} → ${exitOf(content)}: ${keyErrorLine(content)} (Recall id ${result.cleared?.archiveId ?? message.id})`;
      standing.delete(what);
      standing.set(what, { line, id: result.cleared?.archiveId ?? message.id, at: n });
    }
    return [...standing.values()].sort((a, b) => b.at - a.at).map((f) => ({ text: f.line, recallId: f.id }));
  },
};

function describeOf(input: LedgerInput, use: ToolUseBlock): string {
  const d = input.describe(use.name, use.input);
  if (d) return d;
  const c = use.input.command ?? use.input.path ?? use.input.file_path ?? use.input.pattern ?? use.input.query;
  return typeof c === 'string' ? c : '';
}

const SPILL = /\[output (o\d+): ([^;\]]*)/;

export const spillsSection: LedgerSection = {
  id: 'spills',
  title: 'Spilled outputs',
  order: 40,
  share: 0.1,
  maxShown: 10,
  note: 'Large outputs kept whole in the archive, newest first (Recall id="oN" with offset/limit or pattern reads them):',
  derive(input) {
    const out: LedgerItem[] = [];
    const seen = new Set<string>();
    for (const { use, result } of toolPairs(input.messages)) {
      const hit = SPILL.exec(result.content);
      if (!hit || seen.has(hit[1]!)) continue;
      seen.add(hit[1]!);
      const what = describeOf(input, use);
      out.push({ text: `- ${hit[1]} — ${use.name}${what ? ` ${oneLine(what, 100)}` : ''} (${hit[2]!.trim()})`, recallId: hit[1]! });
    }
    return out.reverse();
  },
};

/** The built-in sections, in order. */
export const BUILT_IN_SECTIONS: readonly LedgerSection[] = [wordsSection, filesSection, failuresSection, spillsSection];

/**
 * The sections a ledger is derived with: the built-in ones, then the capabilities' (the task list
 * and plan, invoked skills, background commands, state slices: they come through the capability
 * seam) by order, equal orders in the capabilities' list order. No registry: a session's
 * capabilities are the only source, so two sessions or two runs never share a section.
 */
export function ledgerSectionList(extra: readonly LedgerSection[]): LedgerSection[] {
  for (const section of extra) {
    if (BUILT_IN_SECTIONS.some((s) => s.id === section.id)) throw new Error(`ledger section "${section.id}" is built in`);
    if (!(section.share >= 0 && section.share <= 0.5)) throw new Error(`ledger section "${section.id}": share must be between 0 and 0.5`);
  }
  return [...BUILT_IN_SECTIONS, ...[...extra].sort((a, b) => a.order - b.order)];
}
