// The skills in force for a run: found once at start-up (discovery.ts), grown by nested folders
// as the model reaches files under them, and what decides whether a project skill's own code
// (its !`command`s, the tools its allowed-tools lets run unasked) may run: the person approved
// exactly that skill for this project (trust/projectTrust.ts, kind "skills"), or print mode's
// --hooks-trust; the person's own skills always may.
import { fingerprintOf, type ProjectTrust, type TrustSubject } from '../trust/projectTrust.js';
import { loadSkills, nestedSkillDirs, skillDirs, type SkillCatalogData } from './discovery.js';
import { renderListing } from './listing.js';
import type { Skill } from './skillFile.js';

/** `!`command`` in a body (custom commands' form). */
const SHELL_INLINE = /!`([^`\n]+)`/g;

export interface SkillTrustDeps {
  cwd: string;
  trust: ProjectTrust;
  /** Print mode's --hooks-trust: a project's skills run their commands without an approval (none recorded). */
  trustProject: boolean;
  /** Asks the person (the TUI): remember the approval for the project, run for this session only, or not at all; absent in print mode. */
  askApproval?: (question: string, skill: { name: string; file: string; changed: boolean }, signal: AbortSignal) => Promise<'remember' | 'session' | 'no'>;
  report: (level: 'info' | 'warning', text: string) => void;
}

export class SkillCatalog {
  private readonly byName = new Map<string, Skill>();
  private readonly decided = new Map<string, Promise<boolean>>();
  private readonly searched = new Set<string>();

  constructor(
    data: SkillCatalogData,
    private readonly trustDeps?: SkillTrustDeps,
  ) {
    for (const s of data.skills) this.byName.set(s.name, s);
    this.warnings = [...data.warnings];
  }

  readonly warnings: string[];

  list(): Skill[] {
    return [...this.byName.values()];
  }

  get(name: string): Skill | undefined {
    return this.byName.get(name);
  }

  /** The system prompt's section for a window of this many tokens ('' when none is offered). */
  listing(window: number): string {
    return renderListing(this.list(), window);
  }

  /**
   * The model works on `file`: skill folders between the working directory and it are read once
   * (Claude Code's nested skills); returns what was added and the warnings (also reported as notices).
   */
  async reach(cwd: string, file: string): Promise<{ added: Skill[]; warnings: string[] }> {
    const dirs = nestedSkillDirs(cwd, file).filter((d) => !this.searched.has(d.dir) && this.searched.add(d.dir));
    if (dirs.length === 0) return { added: [], warnings: [] };
    const found = await loadSkills(dirs, this.byName);
    for (const s of found.skills) this.byName.set(s.name, s);
    this.warnings.push(...found.warnings);
    for (const w of found.warnings) this.trustDeps?.report('warning', w);
    return { added: found.skills, warnings: found.warnings };
  }

  /**
   * Folders FileRead, Grep and Glob may read without asking: the person's skills' (a project's are
   * inside the project already), so a skill's references and scripts are read on demand.
   */
  readPaths(): string[] {
    return this.list()
      .filter((s) => s.scope === 'user')
      .map((s) => s.dir);
  }

  /** The !`command`s of a body, in order. */
  static commandsOf(body: string): string[] {
    return [...body.matchAll(SHELL_INLINE)].map((m) => m[1]!.trim());
  }

  /** Whether the skill's own code may run (decided once per process and skill). */
  mayRunCode(skill: Skill, signal: AbortSignal): Promise<boolean> {
    if (skill.scope === 'user') return Promise.resolve(true);
    const d = this.trustDeps;
    if (!d) return Promise.resolve(false);
    let decision = this.decided.get(skill.name);
    if (!decision) {
      decision = this.decide(skill, d, signal);
      this.decided.set(skill.name, decision);
    }
    return decision;
  }

  private async decide(skill: Skill, d: SkillTrustDeps, signal: AbortSignal): Promise<boolean> {
    if (d.trustProject) return true;
    const subject: TrustSubject = {
      kind: 'skills',
      projectDir: d.cwd,
      name: skill.name,
      fingerprint: fingerprintOf({ file: skill.file, body: skill.body, allowedTools: skill.allowedTools ?? [] }),
    };
    try {
      if (d.trust.isApproved(subject)) return true;
    } catch (e) {
      d.report('warning', `${(e as Error).message}; the skill's commands do not run`);
      return false;
    }
    const changed = d.trust.changedSinceApproval(subject);
    if (!d.askApproval) {
      d.report(
        'warning',
        `${skill.file} is a project skill${changed ? ' that changed since you approved it' : ''}; its commands and allowed-tools do not run in print mode without --hooks-trust`,
      );
      return false;
    }
    const lines = [
      ...SkillCatalog.commandsOf(skill.body).map((c) => `  !\`${c}\``),
      ...(skill.allowedTools?.length ? [`  allowed-tools: ${skill.allowedTools.join(', ')}`] : []),
    ];
    const question = `${skill.file} ${changed ? 'changed since you approved it' : 'is a project skill'} that runs code:\n${lines.join('\n')}\nLet it run in this project?`;
    const answer = await d.askApproval(question, { name: skill.name, file: skill.file, changed }, signal).catch(() => 'no' as const);
    if (answer === 'session') return true;
    if (answer === 'no') {
      d.report('info', `The commands of the skill ${skill.name} do not run in this session.`);
      return false;
    }
    try {
      d.trust.approve(subject);
    } catch (e) {
      d.report('warning', `the approval could not be saved, so you will be asked again next time: ${(e as Error).message}`);
    }
    return true;
  }
}

/** Every skill for a working directory (discovery.ts), with the trust that decides whether a project skill's code runs. */
export async function findSkills(cwd: string, env: NodeJS.ProcessEnv, trust?: SkillTrustDeps): Promise<SkillCatalog> {
  return new SkillCatalog(await loadSkills(skillDirs(cwd, env)), trust);
}
