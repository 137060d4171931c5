// What using a skill asks of the session it is used in (skills/capability.ts makes it from the
// capability host's turn, which session/assemble.ts implements; the
// Skill tool closes over it).
import type { SkillCatalog } from './catalog.js';

export interface SkillHost {
  readonly catalog: SkillCatalog;
  /** Skills whose body the visible history holds. */
  loaded(): ReadonlySet<string>;
  /** Lets these allowed-tools entries run without asking for the rest of the turn; returns the ones that name no tool. */
  allow(written: readonly string[]): string[];
  /**
   * Runs a !`command` through the permission gate (asks, or refuses in print mode unless allowed);
   * `approved`: the person approved the skill's code, these commands included (plan mode still
   * holds). Throws SkillUseError when refused.
   */
  shell(command: string, signal: AbortSignal, approved: boolean): Promise<string>;
  notice(level: 'info' | 'warning', text: string): void;
}
