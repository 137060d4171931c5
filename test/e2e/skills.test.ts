import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSummarizer, runAgent, useFakeServer, workspace, type Workspace } from './inprocess.js';

// Agent Skills end to end in print mode, through the fake provider: SKILL.md folders found in
// the project (.claude/skills, .agents/skills) and the person's home, listed by name and
// description only, loaded by /name and by the model's Skill tool, re-attached after a
// compaction that keeps nothing, and a skill's own script run through Bash under its allowed-tools.

const server = useFakeServer();

function skill(root: string, rel: string, front: string, body: string): string {
  const dir = join(root, rel);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'SKILL.md'), `---\n${front}\n---\n${body}`);
  return dir;
}

const DEPLOY_BODY = 'DEPLOY-BODY: ship the build to the $ARGUMENTS environment, then check the health page.\n';
const LINT_BODY = 'LINT-BODY: run the linter with --fix on $1 and report what changed.\n';
const NOTES_BODY = 'NOTES-BODY: keep release notes in NOTES.md, newest first.\n';

function threeSkills(ws: Workspace): void {
  skill(ws.dir, '.claude/skills/deploy', 'name: deploy\ndescription: Deploys the app to an environment (DEPLOY-DESC)\nargument-hint: <env>', DEPLOY_BODY);
  skill(ws.dir, '.agents/skills/lint-fix', 'name: lint-fix\ndescription: Fixes lint errors in a folder (LINT-DESC)', LINT_BODY);
  skill(ws.home, '.claude/skills/notes', 'name: notes\ndescription: Writes release notes (NOTES-DESC)', NOTES_BODY);
}

const allText = (i: number): string => JSON.stringify(server.requests[i]?.view ?? {});

describe('skills in print mode', () => {
  // mutations: listing left out of the system prompt, a discovery root dropped, bodies put in the listing, a broken file aborting the rest
  it('lists a project, an .agents/skills and a user skill by description, no body; a broken SKILL.md is named and the rest load', async () => {
    const ws = workspace();
    threeSkills(ws);
    skill(ws.dir, '.claude/skills/broken', 'name: broken\ndescription: [unclosed', 'never loaded\n');
    server.enqueue({ text: 'hi' });
    const r = await runAgent(['-p', 'hello'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    const view = server.requests[0]!.view!;
    for (const d of ['DEPLOY-DESC', 'LINT-DESC', 'NOTES-DESC']) expect(view.system).toContain(d);
    expect(view.toolNames).toContain('Skill');
    for (const b of ['DEPLOY-BODY', 'LINT-BODY', 'NOTES-BODY']) expect(allText(0)).not.toContain(b);
    expect(r.stderr).toMatch(/\.claude\/skills\/broken\/SKILL\.md: the frontmatter is not valid YAML.*the skill is skipped/);
  });

  // mutations: /name not a command, $ARGUMENTS not substituted, the skill marker missing
  it('/deploy prod sends the body with the argument; the model’s Skill call loads another body as its result', async () => {
    const ws = workspace();
    threeSkills(ws);
    // mutation: the custom command winning the clash, or no notice of it
    mkdirSync(join(ws.dir, '.claude/commands'), { recursive: true });
    writeFileSync(join(ws.dir, '.claude/commands/deploy.md'), 'COMMAND-BODY $ARGUMENTS\n');
    server.enqueue({ text: 'deployed' });
    const r = await runAgent(['-p', '/deploy prod'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\.claude\/commands\/deploy\.md: \/deploy is also the skill .*\.claude\/skills\/deploy\/SKILL\.md, which wins/);
    expect(JSON.stringify(server.requests[0]!.view!.messages)).not.toContain('COMMAND-BODY');
    const first = JSON.stringify(server.requests[0]!.view!.messages);
    expect(first).toContain('DEPLOY-BODY: ship the build to the prod environment');
    expect(first).toContain(`Base directory for this skill: ${join(ws.dir, '.claude/skills/deploy')}`);

    server.enqueue({ toolCalls: [{ name: 'Skill', input: { skill: 'lint-fix', args: 'src' } }] }, { text: 'linted' });
    const t = await runAgent(['-p', 'fix the lint', '--continue'], { ws, server });
    expect(t.code, t.stderr).toBe(0);
    const after = JSON.stringify(server.requests[2]!.view!.messages.at(-1));
    expect(after).toContain('tool_result');
    expect(after).toContain('LINT-BODY: run the linter with --fix on src');

    // mutation: a second copy of a loaded body instead of the note
    server.enqueue({ toolCalls: [{ name: 'Skill', input: { skill: 'deploy', args: 'prod' } }] }, { text: 'again' });
    expect((await runAgent(['-p', 'deploy again', '--continue'], { ws, server })).code).toBe(0);
    const again = JSON.stringify(server.requests[4]!.view!.messages.at(-1));
    expect(again).toContain('is already loaded in this conversation');
    expect(again).not.toContain('DEPLOY-BODY');
  });

  // mutations: context: fork loading the body into the parent; a project skill's !`command` run without trust in -p
  it('a context: fork skill runs as a sub-agent whose task is the body; a project skill’s !`command` needs --hooks-trust in -p', async () => {
    const ws = workspace();
    skill(ws.dir, '.claude/skills/survey', 'name: survey\ndescription: Surveys the code\ncontext: fork', 'SURVEY-BODY: list the modules of $ARGUMENTS.\n');
    skill(ws.dir, '.claude/skills/stamp', 'name: stamp\ndescription: Stamps\nallowed-tools: Bash(echo:*)', 'Stamp: !`echo STAMP-OUTPUT`\n');
    server.enqueue({ toolCalls: [{ name: 'Skill', input: { skill: 'survey', args: 'src' } }] }, { text: 'CHILD-REPORT' }, { text: 'done' });
    const r = await runAgent(['-p', 'survey src'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[1]!.view!.system).toContain('You are a sub-agent');
    expect(JSON.stringify(server.requests[1]!.view!.messages)).toContain('SURVEY-BODY: list the modules of src.');
    const parent = JSON.stringify(server.requests[2]!.view!.messages.at(-1));
    expect(parent).toContain('CHILD-REPORT');
    expect(parent).not.toContain('SURVEY-BODY');

    const before = server.requests.length;
    const refused = await runAgent(['-p', '/stamp'], { ws, server });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--hooks-trust');
    expect(server.requests.length).toBe(before);
    server.enqueue({ text: 'stamped' });
    const trusted = await runAgent(['-p', '/stamp', '--hooks-trust'], { ws, server });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)!.view!.messages)).toContain('Stamp: STAMP-OUTPUT');

    // issue 49: --hooks-trust is the approval of the skill's commands: no allowed-tools, no Bash grant needed
    skill(ws.dir, '.claude/skills/plain', 'name: plain\ndescription: Stamps plainly', 'Plain: !`echo PLAIN-OUTPUT`\n');
    server.enqueue({ text: 'stamped plainly' });
    const plain = await runAgent(['-p', '/plain', '--hooks-trust'], { ws, server });
    expect(plain.code, plain.stderr).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)!.view!.messages)).toContain('Plain: PLAIN-OUTPUT');
    // the model's Skill call too
    server.enqueue({ toolCalls: [{ name: 'Skill', input: { skill: 'plain' } }] }, { text: 'loaded' });
    const byModel = await runAgent(['-p', 'use the plain skill', '--hooks-trust'], { ws, server });
    expect(byModel.code, byModel.stderr).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)!.view!.messages.at(-1))).toContain('Plain: PLAIN-OUTPUT');
    // plan mode still holds: a command that is not read-only is refused even so
    skill(ws.dir, '.claude/skills/toucher', 'name: toucher\ndescription: Touches', 'Touched: !`touch touched.txt`\n');
    const planned = await runAgent(['-p', '/toucher', '--hooks-trust', '--permission-mode', 'plan'], { ws, server });
    expect(planned.code).not.toBe(0);
    expect(existsSync(join(ws.dir, 'touched.txt'))).toBe(false);
  });
  // Mutation: a skill's !`command` authorized without `preapproved` (applySkill passing approved: false) fails the
  // plain skill's runs (refused: "needs a Bash grant"); preapproved checked before plan mode in ToolGate.decide
  // would run the toucher's touch.

  // mutations: user skill folders left out of the read boundary; READ_ONLY_TOOLS without Skill (a child without the listing); /skills missing in -p
  it('a user skill’s reference file is read with FileRead without a grant; a sub-agent gets the listing; -p /skills lists them', async () => {
    const ws = workspace();
    threeSkills(ws);
    writeFileSync(join(ws.home, '.claude/skills/notes/reference.md'), 'REFERENCE-TEXT of the notes skill\n');
    server.enqueue(
      { toolCalls: [{ name: 'FileRead', input: { path: join(ws.home, '.claude/skills/notes/reference.md') } }] },
      { toolCalls: [{ name: 'Task', input: { description: 'look around', prompt: 'Look around.' } }] },
      { text: 'child report' },
      { text: 'done' },
    );
    const r = await runAgent(['-p', 'read the reference'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.stringify(server.requests[1]!.view!.messages.at(-1))).toContain('REFERENCE-TEXT of the notes skill');
    const child = server.requests[2]!.view!;
    expect(child.system).toContain('You are a sub-agent');
    expect(child.system).toContain('NOTES-DESC');
    expect(child.toolNames).toContain('Skill');

    const list = await runAgent(['-p', '/skills'], { ws, server });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/deploy {2}project \.claude\/skills · \/deploy, model · listing ≈\d+ · body ≈\d+ tokens/);
    expect(list.stdout).toMatch(/notes {2}user ~\/\.claude\/skills/);
  });

  // mutation: nested folders never searched, or the system prompt not rebuilt when they add a skill
  it('a nested .claude/skills folder is found once the model works on a file under it, and listed from the next turn (never inside a tool loop)', async () => {
    const ws = workspace();
    threeSkills(ws);
    skill(ws.dir, 'packages/web/.claude/skills/web-build', 'name: web-build\ndescription: Builds the web package (WEB-DESC)', 'WEB-BODY\n');
    writeFileSync(join(ws.dir, 'packages/web/index.ts'), 'export {};\n');
    server.enqueue({ toolCalls: [{ name: 'FileRead', input: { path: 'packages/web/index.ts' } }] }, { text: 'read it' });
    const r = await runAgent(['-p', 'look at the web package'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests[1]!.view!.system).not.toContain('WEB-DESC');
    server.enqueue({ text: 'ok' });
    expect((await runAgent(['-p', 'and now?', '--continue'], { ws, server })).code).toBe(0);
    expect(server.requests[2]!.view!.system).toContain('WEB-DESC');
  });

  // mutation: skillsAfterCompaction not called after a commit, the listing built outside the system prompt, or the skills' ledger section not opened
  it('after a compaction whose summary keeps nothing, the listing and both invoked bodies are in the first request after', async () => {
    const ws = workspace({ compaction: { tailTurns: 1 } });
    threeSkills(ws);
    const long = 'This answer goes on at some length about the files and what they contain. '.repeat(60);
    server.enqueue({ text: long });
    expect((await runAgent(['-p', '/deploy prod'], { ws, server })).code).toBe(0);
    server.enqueue({ toolCalls: [{ name: 'Skill', input: { skill: 'notes' } }] }, { text: long });
    expect((await runAgent(['-p', 'write the notes', '--continue'], { ws, server })).code).toBe(0);
    server.enqueue({ text: long });
    expect((await runAgent(['-p', 'something else', '--continue'], { ws, server })).code).toBe(0);
    server.enqueue({ text: '## Goal\nnothing' });
    const c = await runAgent(['-p', '/compact', '--continue'], { ws, server });
    expect(c.code, c.stderr + c.stdout).toBe(0);
    expect(server.requests.some((q) => q.view && isSummarizer(q.view))).toBe(true);
    const before = server.requests.length;
    server.enqueue({ text: 'ok' });
    expect((await runAgent(['-p', 'go on', '--continue'], { ws, server })).code).toBe(0);
    const view = server.requests[before]!.view!;
    expect(view.system).toContain('DEPLOY-DESC');
    // the turns that loaded them are archived: what carries them is the re-attached note, newest first
    const sent = JSON.stringify(view.messages);
    expect(sent).not.toContain('"tool_use"');
    const note = sent.slice(sent.indexOf('skills loaded earlier in this conversation, attached again after a compaction'));
    expect(note).toMatch(/NOTES-BODY[\s\S]*DEPLOY-BODY: ship the build to the prod environment/);
    // once: the ledger quotes the person's /deploy with the skill named, not its body again
    // (mutation: the person's text quoted whole puts the body in the request twice)
    expect(sent.split('DEPLOY-BODY').length - 1).toBe(1);
    expect(sent).toContain('[the skill \\"deploy\\", loaded here: its text is attached with the skills loaded]');
    // and the working-state ledger names both, newest first, whatever the bodies' budget
    expect(sent).toMatch(/### Skills loaded[\s\S]*notes \(folder [^)]*\)[\s\S]*deploy \(folder/);
  }, 60_000);

  // mutations: allowed-tools not let through while the skill runs; a project skill's allowed-tools honoured without trust
  it('a skill folder with a script: the model loads it and runs its script through Bash, pre-approved by allowed-tools (project skills need --hooks-trust)', async () => {
    const ws = workspace();
    const dir = skill(
      ws.dir,
      '.claude/skills/greet',
      'name: greet\ndescription: Greets through its script\nallowed-tools: Bash(bash:*)',
      'Run `bash scripts/greet.sh` from this folder.\n',
    );
    mkdirSync(join(dir, 'scripts'));
    writeFileSync(join(dir, 'scripts', 'greet.sh'), 'echo GREETING-FROM-SCRIPT; touch "$(dirname "$0")/ran"\n');
    const script = `bash ${join(dir, 'scripts', 'greet.sh')}`;
    const calls = () =>
      server.enqueue(
        { toolCalls: [{ name: 'Skill', input: { skill: 'greet' } }] },
        { toolCalls: [{ name: 'Bash', input: { command: script } }] },
        { text: 'greeted' },
      );
    calls();
    const untrusted = await runAgent(['-p', 'greet me'], { ws, server });
    expect(untrusted.code, untrusted.stderr).toBe(0);
    expect(existsSync(join(dir, 'scripts', 'ran'))).toBe(false);
    expect(untrusted.stderr).toContain('--hooks-trust');

    calls();
    const r = await runAgent(['-p', 'greet me', '--hooks-trust'], { ws, server });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'scripts', 'ran'))).toBe(true);
    expect(JSON.stringify(server.requests.at(-1)!.view!.messages.at(-1))).toContain('GREETING-FROM-SCRIPT');
  });
});
