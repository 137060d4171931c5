// The turn's frame: what the next request is sent with — the configuration (the model, its effort,
// the window as the provider stated it), the provider, the system prompt, the tools and their
// schemas. The frame is one immutable value: each change (a turn's start, /model, /effort, a window
// the provider stated, a compaction that builds the system prompt again) makes a new one, and a
// turn takes the one in force when it starts (the loop reads its system prompt and reply limit at
// each call). What did not change is carried over, so the cached prefix holds.
import { loadInstructions, renderInstructions, type InstructionFile } from '../agent/instructions.js';
import { buildSystemPrompt } from '../agent/systemPrompt.js';
import type { ToolSet } from '../capability/capability.js';
import type { Config } from '../config/config.js';
import type { Message } from '../llm/messages.js';
import type { Provider, ToolSpec } from '../llm/provider.js';
import { traitsOf } from '../tools/kinds.js';
import { toolSpec, type AnyTool } from '../tools/types.js';
import type { Capabilities } from './capabilities.js';

export interface TurnFrame {
  readonly config: Config;
  readonly provider: Provider;
  readonly system: string;
  /** The built-in tools and the extra ones in force (MCP). */
  readonly tools: readonly AnyTool[];
  /** Their definitions, as the request carries them. */
  readonly specs: readonly ToolSpec[];
}

export interface FrameDeps {
  /** The session's own tools: the built-in ones and the capabilities' (a sub-agent's, those its agent names). */
  tools: readonly AnyTool[];
  /** Their system-prompt sections, their turn-start hooks (a skill folder reached), their tool sets that come and go (MCP). */
  caps: Pick<Capabilities, 'systemSection' | 'turnStart' | 'toolSet'>;
  /** A child session's role: its agent's system prompt, in place of the main one's opening. */
  role?: string | undefined;
}

export class TurnFrames {
  private frame: TurnFrame;
  private extra: ToolSet = { tools: [], system: '' };
  private instructions: InstructionFile[] = [];
  /** Names of tools whose old results micro compaction may clear: the built-in ones, and every extra one seen (the engine reads this list). */
  readonly compactable: string[];

  constructor(
    private readonly deps: FrameDeps,
    config: Config,
    provider: Provider,
  ) {
    this.compactable = deps.tools.filter((t) => traitsOf(t).compactable).map((t) => t.name);
    this.frame = { config, provider, system: '', tools: deps.tools, specs: deps.tools.map(toolSpec) };
    this.frame = { ...this.frame, system: this.buildSystem(config) };
  }

  /** The frame in force: the next request's. */
  get current(): TurnFrame {
    return this.frame;
  }

  /** The instruction files the system prompt was last built with (/memory). */
  instructionFiles(): readonly InstructionFile[] {
    return this.instructions;
  }

  /**
   * A turn starts: skill folders the last turns reached join the listing now, never inside a tool
   * loop (its thinking is bound to the prefix), and the extra tools (MCP) are taken for it. The
   * system prompt is built again only when either changed; true when the tools did (the gauge).
   */
  async startTurn(history: readonly Message[]): Promise<boolean> {
    const sections = await this.deps.caps.turnStart(history, this.frame.config.cwd);
    const tools = this.takeExtraTools(this.deps.caps.toolSet());
    if (sections || tools) this.rebuildSystem();
    return tools;
  }

  /** The system prompt built again, the instruction files read again (a compaction that is not micro). */
  rebuildSystem(): void {
    this.frame = { ...this.frame, system: this.buildSystem(this.frame.config) };
  }

  /** Another configuration for the same model (its effort, a window the provider stated): the system prompt stays. */
  configure(config: Config): void {
    this.frame = { ...this.frame, config };
  }

  /** Another model (/model): its configuration and provider, and the system prompt that names it. */
  switchModel(config: Config, provider: Provider): void {
    this.frame = { ...this.frame, config, provider, system: this.buildSystem(config) };
  }

  /**
   * Takes the extra tools for the next turn; false when they did not change (the same object, or
   * the same tools and section, as a capability's empty set while it offers none yet: nothing is
   * rebuilt, the cached prefix holds).
   */
  private takeExtraTools(extra: ToolSet | undefined): boolean {
    const same = extra && extra.system === this.extra.system && extra.tools.length === this.extra.tools.length;
    if (!extra || extra === this.extra || (same && extra.tools.every((t, i) => t === this.extra.tools[i]))) return false;
    this.extra = extra;
    for (const t of extra.tools) if (traitsOf(t).compactable && !this.compactable.includes(t.name)) this.compactable.push(t.name);
    const tools = extra.tools.length === 0 ? this.deps.tools : [...this.deps.tools, ...extra.tools];
    this.frame = { ...this.frame, tools, specs: tools.map(toolSpec) };
    return true;
  }

  private buildSystem(config: Config): string {
    this.instructions = loadInstructions(config.cwd);
    const agentsMd = renderInstructions(this.instructions, config.cwd);
    return (
      buildSystemPrompt({
        cwd: config.cwd,
        platform: `${process.platform} (${process.arch})`,
        model: config.model.name,
        ...(agentsMd ? { agentsMd } : {}),
        ...(this.deps.role ? { role: this.deps.role } : {}),
      }) +
      this.deps.caps.systemSection(this.deps.tools, config.model.contextWindow) +
      (this.extra.system ? `\n\n${this.extra.system}` : '')
    );
  }
}
