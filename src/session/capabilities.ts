// The capabilities of one session, opened once and asked in list order (bootstrap.ts's order):
// their tools join the built-in ones, their tool sets are read at each turn's start, their
// hooks are composed into the loop's and the session's (the turn's frame asks them for the system
// prompt's sections at a turn's start, the compactor around compaction), their state slices saved and restored.
import type { LoopHooks, LoopOptions, PermissionGate } from '../agent/host.js';
import type { AttentionKind, Capability, CapabilityHooks, CapabilityHost, CapabilitySession, SummaryTrigger, ToolSet } from '../capability/capability.js';
import type { TreeCheckpoints } from '../capability/checkpoints.js';
import type { CompactionRecord } from '../history/compaction.js';
import type { LedgerSection } from '../ledger/types.js';
import type { Message, TextBlock } from '../llm/messages.js';
import { debug } from '../log.js';
import type { Approver } from '../tools/permissions.js';
import type { AnyTool, ToolSession } from '../tools/types.js';

type Hook<K extends keyof CapabilityHooks> = NonNullable<CapabilityHooks[K]>;

export class Capabilities {
  private readonly opened: CapabilitySession[];
  private lastSet: ToolSet | undefined;

  constructor(list: readonly Capability[], host: CapabilityHost, saved: Record<string, unknown> = {}) {
    this.opened = list.map((c) => c.open(host));
    for (const s of this.slices()) s.restore(saved[s.key]);
  }

  /** The tools they bring for the whole session, in list order. */
  tools(): AnyTool[] {
    return this.opened.flatMap((c) => c.tools ?? []);
  }

  /** The tools that come and go, for the next turn: one capability's own set as it is (the same object while nothing changed). */
  toolSet(): ToolSet | undefined {
    const sets = this.opened.flatMap((c) => (c.toolSet ? [c.toolSet()] : []));
    if (sets.length <= 1) return sets[0];
    const last = this.lastSet;
    const tools = sets.flatMap((s) => s.tools);
    const system = sets
      .map((s) => s.system)
      .filter((s) => s !== '')
      .join('\n\n');
    if (last && last.system === system && last.tools.length === tools.length && last.tools.every((t, i) => t === tools[i])) return last;
    this.lastSet = { tools, system };
    return this.lastSet;
  }

  /** The loop's hooks, where any capability has one around tool calls or the turn's end. */
  loopHooks(): LoopHooks | undefined {
    const before = this.hooks('beforeTool');
    const after = this.hooks('afterTool');
    const stop = this.hooks('onStop');
    if (before.length + after.length + stop.length === 0) return undefined;
    return {
      beforeTool: async (call, signal) => {
        let allow = false;
        for (const h of before) {
          const o = await h(call, signal);
          if (o.block !== undefined) return { block: o.block };
          allow ||= o.allow === true;
        }
        return allow ? { allow } : {};
      },
      afterTool: async (call, output, signal) => {
        const notes: string[] = [];
        for (const h of after) {
          const note = await h(call, output, signal);
          if (note !== undefined) notes.push(note);
        }
        return notes.length > 0 ? notes.join('\n') : undefined;
      },
      onStop: async (text, count, signal) => {
        for (const h of stop) {
          const goOn = await h(text, count, signal);
          if (goOn !== undefined) return goOn;
        }
        return undefined;
      },
    };
  }

  /** Context blocks for a prompt's message, or why it must not be sent (the first block wins). */
  async beforePrompt(prompt: string, signal: AbortSignal): Promise<{ block?: string; blocks: TextBlock[] }> {
    const blocks: TextBlock[] = [];
    for (const h of this.hooks('beforePrompt')) {
      const o = await h(prompt, signal);
      if (o.block !== undefined) return { block: o.block, blocks: [] };
      blocks.push(...o.blocks);
    }
    return { blocks };
  }

  /**
   * What every summary request is told beyond its fixed prompt: compaction.instructions, what
   * the capabilities add (PreCompact hooks), and the person's /compact focus, in that order.
   */
  async summaryInstructions(
    standing: string | undefined,
    trigger: SummaryTrigger,
    focus: string | undefined,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const parts: string[] = [];
    if (standing?.trim()) parts.push(standing.trim());
    for (const h of this.hooks('beforeCompaction')) parts.push(...(await h(trigger, focus, signal)));
    if (focus?.trim()) parts.push(focus.trim());
    return parts.length > 0 ? parts.join('\n\n') : undefined;
  }

  async afterCompaction(record: CompactionRecord): Promise<void> {
    for (const h of this.hooks('afterCompaction')) await h(record);
  }

  /** Their sections of the system prompt, in list order (each with its own leading blank line). */
  systemSection(tools: readonly AnyTool[], contextWindow: number): string {
    return this.opened.map((c) => c.systemSection?.(tools, contextWindow) ?? '').join('');
  }

  /** A turn starts: true when a capability's system section changed (build the system prompt again). */
  async turnStart(history: readonly Message[], cwd: string): Promise<boolean> {
    let changed = false;
    for (const h of this.hooks('turnStart')) changed = (await h(history, cwd)) || changed;
    return changed;
  }

  /** A turn starts or ends: the capabilities that snapshot the project note it (and snapshot its end when they took its start). */
  async turnBoundary(edge: 'before' | 'after', turnId: string): Promise<void> {
    for (const h of this.hooks('turnBoundary')) await h(edge, turnId);
  }

  /** The working tree's checkpoints, when a capability keeps them. */
  checkpoints(): TreeCheckpoints | undefined {
    return this.opened.find((c) => c.checkpoints)?.checkpoints;
  }

  /** A compaction (not micro) was committed: what the capabilities put back, in list order. */
  reattach(before: readonly Message[], after: readonly Message[], contextWindow: number): Message[] {
    return this.hooks('reattach').flatMap((h) => h(before, after, contextWindow) ?? []);
  }

  /** The loop's `hooks` and `notices` options. */
  loopOption(): Pick<LoopOptions, 'hooks' | 'notices'> {
    const hooks = this.loopHooks();
    const notices = this.hooks('notices');
    return {
      ...(hooks ? { hooks } : {}),
      ...(notices.length > 0 ? { notices: () => notices.flatMap((n) => n()) } : {}),
    };
  }

  /** The gate's `beforeChange`, where a capability has one (the checkpoints: the project before the turn's first change). */
  gateOption(): Pick<PermissionGate, 'beforeChange'> {
    const change = this.hooks('beforeChange');
    return change.length > 0 ? { beforeChange: async () => void (await Promise.all(change.map((h) => h()))) } : {};
  }

  /** What they lend the built-in tools: the background shells, an editor's files and terminal. */
  toolSession(): Pick<ToolSession, 'background' | 'fileAccess' | 'terminal'> {
    const background = this.opened.find((c) => c.background)?.background;
    const io = this.opened.find((c) => c.io)?.io;
    return { ...(background ? { background } : {}), ...io };
  }

  /** The session closes: each capability's close, failures reported to the debug log only. */
  async close(): Promise<void> {
    for (const c of this.opened)
      await Promise.resolve(c.close?.()).catch((e: unknown) => debug(`capability close: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** The approver, telling the capabilities (Notification hooks) each time it asks the person. */
  asking(ask: Approver | undefined): Approver | undefined {
    if (!ask) return undefined;
    return (req, signal) => {
      this.attention('permission_prompt', `agent needs your permission to use ${req.toolName}: ${req.summary}`);
      return ask(req, signal);
    };
  }

  /** The agent waits for the person (an approval, or idle at the prompt). */
  attention(kind: AttentionKind, message: string): void {
    for (const h of this.hooks('attention')) h(kind, message);
  }

  /** Their saved state, by key (undefined when none saves anything). */
  state(): Record<string, unknown> | undefined {
    const out: Record<string, unknown> = {};
    for (const s of this.slices()) {
      try {
        const v = s.save();
        if (v !== undefined) out[s.key] = v;
      } catch (e) {
        debug(`capability state "${s.key}" not saved: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /**
   * Their sections of the working-state ledger: those derived from the log, then each state
   * slice's `ledger()` as a section of one item (read when a compaction derives the ledger).
   */
  ledgerSections(): LedgerSection[] {
    const out: LedgerSection[] = this.opened.flatMap((c) => c.ledger ?? []);
    for (const s of this.slices()) {
      const part = s.ledger?.();
      if (!part || part.text.trim() === '') continue;
      out.push({ id: `capability:${s.key}`, title: part.title, order: 60, share: 0.15, derive: () => [{ text: part.text.trim() }] });
    }
    return out;
  }

  private slices() {
    return this.opened.flatMap((c) => (c.state ? [c.state] : []));
  }

  private hooks<K extends keyof CapabilityHooks>(name: K): Hook<K>[] {
    return this.opened.flatMap((c) => {
      const h = c.hooks?.[name];
      return h ? [h.bind(c.hooks) as Hook<K>] : [];
    });
  }
}
