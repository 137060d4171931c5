import { slot } from '../runtime/world.js';
import { BUILT_IN_SECTIONS } from './sections.js';
import type { LedgerSection } from './types.js';

/**
 * The sections a ledger is derived with. The built-in ones are always there; a capability
 * (the task list and plan, invoked skills, background commands) registers its own slice here
 * and the ledger carries it after every compaction, with no change to the ledger's code.
 */
export class LedgerRegistry {
  private readonly extra = new Map<string, LedgerSection>();

  /** Adds a section, or replaces the one registered under the same id; returns the undo. */
  register(section: LedgerSection): () => void {
    if (BUILT_IN_SECTIONS.some((s) => s.id === section.id)) throw new Error(`ledger section "${section.id}" is built in`);
    if (!(section.share >= 0 && section.share <= 0.5)) throw new Error(`ledger section "${section.id}": share must be between 0 and 0.5`);
    this.extra.set(section.id, section);
    return () => {
      if (this.extra.get(section.id) === section) this.extra.delete(section.id);
    };
  }

  /** Every section, in order (stable for equal orders: built-in first, then by id). */
  sections(): LedgerSection[] {
    const extra = [...this.extra.values()].sort((a, b) => a.order - b.order || a.id.localeCompare(b.id));
    return [...BUILT_IN_SECTIONS, ...extra].sort((a, b) => a.order - b.order);
  }
}

const REGISTRY = Symbol('ledgerSections');

/** The run's registry (its world's: two runs in one process keep their own): capabilities register their slices here when they load. */
export const ledgerSections = (): LedgerRegistry => slot(REGISTRY, () => new LedgerRegistry());
