import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BASH_CAVEAT, formatRewindTargets, REWIND_USAGE, rewindCommand, TREE_NOTE } from '../../src/commands/rewind.js';
import { createTokenCounter, type TokenCounter } from '../../src/compaction/tokens.js';
import { loadConfig } from '../../src/config/config.js';
import { OutsideChangesError } from '../../src/session/rewind.js';
import { Session } from '../../src/session/session.js';
import { openStore } from '../../src/store/index.js';
import { createTools } from '../../src/tools/registry.js';
import { checkpointsCapability } from '../../src/checkpoints/capability.js';
import { ScriptedProvider } from '../compaction/helpers.js';
import { tempDir } from '../tempDirs.js';

// /rewind's own words over a real session with the project's checkpoints (a real shadow store in
// the data folder): the code rewind's lines, a refusal for files changed outside turned into the
// picker's question or left an error, --force, and /rewind undo's lines. The plain list print
// mode shows is formatRewindTargets's.

let counter: TokenCounter;
beforeAll(async () => {
  counter = await createTokenCounter();
});

function open(checkpoints = true): { session: Session; dir: string; close: () => void } {
  const dir = tempDir('agent-rewind-cmd-');
  const data = tempDir('agent-rewind-data-');
  const config = loadConfig({ cwd: dir, home: data, env: { ANTHROPIC_API_KEY: 'k', AGENT_DB: join(data, 'agent.db') }, flags: { model: 'claude-sonnet-4-5' } });
  const store = openStore(config.dbPath);
  const session = Session.open({
    config,
    store,
    provider: new ScriptedProvider(() => ({ text: 'ok' })),
    tools: (lent) => createTools({ bash: config.bash }, lent),
    // eager: a checkpoint at each turn's start and end, as with hooks (the lazy path is test/checkpoints/lazy.test.ts's)
    capabilities: checkpoints ? [checkpointsCapability(dir, data, { maxFiles: 1000, maxStoreMB: 2048, keepDays: 30 }, true)] : [],
    counter,
  });
  return {
    session,
    dir,
    close: () => {
      session.close();
      store.close();
    },
  };
}

const text = (out: Awaited<ReturnType<typeof rewindCommand>>): string => (out.kind === 'text' ? out.text : `(${out.kind})`);

describe('/rewind over a session with checkpoints', () => {
  it("a code rewind lists the files it put back and says Bash's changes were included; /rewind undo brings them back", async () => {
    const { session, dir, close } = open();
    try {
      expect(text(await rewindCommand(session, ''))).toBe('Nothing to rewind yet: no earlier turn in this session.');
      await session.prompt('first');
      // made between the turns (by the person): in the checkpoint before the second turn, not before the first
      writeFileSync(join(dir, 'notes.md'), 'notes\n');
      await session.prompt('second');
      const listed = await rewindCommand(session, '');
      expect(listed.kind === 'rewind' && listed.targets.map((t) => t.index)).toEqual([1, 2]);
      await expect(rewindCommand(session, '1 code extra')).rejects.toThrow(REWIND_USAGE);
      await expect(rewindCommand(session, '1 everything')).rejects.toThrow(REWIND_USAGE);
      const rewound = text(await rewindCommand(session, '1 code'));
      expect(rewound.split('\n')).toEqual([expect.stringMatching(/^Rewound to before turn 1 \(“first”\)\.$/), '  − notes.md removed', TREE_NOTE]);
      expect(existsSync(join(dir, 'notes.md'))).toBe(false);
      const undone = text(await rewindCommand(session, 'undo'));
      expect(undone.split('\n')).toEqual(['Undid the last rewind.', 'Code: the files are back as they were just before the rewind:', '  ↺ notes.md restored']);
      expect(existsSync(join(dir, 'notes.md'))).toBe(true);
      expect(text(await rewindCommand(session, 'undo'))).toContain('Nothing to undo');
    } finally {
      close();
    }
  });

  it('files changed outside since the last turn refuse it: the picker asks (ask), elsewhere an error; --force as the last word overwrites them', async () => {
    const { session, dir, close } = open();
    try {
      await session.prompt('first');
      writeFileSync(join(dir, 'late.md'), 'late\n');
      await expect(rewindCommand(session, '1 code')).rejects.toThrow(OutsideChangesError);
      const asked = await rewindCommand(session, ' 1 code ', true);
      expect(asked.kind === 'rewind' && asked.overwrite).toEqual({ files: ['late.md'], command: '/rewind 1 code' });
      expect(asked.kind === 'rewind' && asked.targets.map((t) => t.index)).toEqual([1]);
      // another error is not the picker's question
      await expect(rewindCommand(session, '9 code', true)).rejects.not.toThrow(OutsideChangesError);
      await expect(rewindCommand(session, '9 code', true)).rejects.toThrow();
      // --force only as the last word
      await expect(rewindCommand(session, '--force 1 code')).rejects.toThrow(REWIND_USAGE);
      const forced = text(await rewindCommand(session, '1 code --force'));
      expect(forced.split('\n').slice(1)).toEqual(['  − late.md removed', TREE_NOTE]);
      expect(existsSync(join(dir, 'late.md'))).toBe(false);
    } finally {
      close();
    }
  });

  it('a conversation rewind says how many messages it archived and no code lines; both says both', async () => {
    const { session, close } = open();
    try {
      for (const p of ['one', 'two', 'three']) await session.prompt(p);
      const conversation = text(await rewindCommand(session, '3 conversation')).split('\n');
      expect(conversation).toEqual([expect.stringMatching(/^Rewound to before turn 3/), 'Conversation: 2 messages archived (still searchable with /history).']);
      const both = text(await rewindCommand(session, '2 both')).split('\n');
      expect(both).toEqual([
        expect.stringMatching(/^Rewound to before turn 2/),
        'Code: no file differed from the checkpoint before that turn.',
        'Conversation: 2 messages archived (still searchable with /history).',
        TREE_NOTE,
      ]);
      expect(text(await rewindCommand(session, 'undo')).split('\n')).toEqual([
        expect.stringMatching(/^Undid the last rewind: 2 messages back in the conversation, the context is now [\d,]+ tokens\.$/),
        'Code: no file differed from just before the rewind.',
      ]);
    } finally {
      close();
    }
  });

  it('without checkpoints: only Edit and Write are restored, and the caveat says so', async () => {
    const { session, close } = open(false);
    try {
      await session.prompt('one');
      await session.prompt('two');
      const code = text(await rewindCommand(session, '2 code')).split('\n');
      expect(code.slice(1)).toEqual(['Code: no file was changed by Edit or Write since then.', BASH_CAVEAT]);
      expect(text(await rewindCommand(session, '1 conversation'))).toContain('Conversation: 4 messages archived');
      expect(text(await rewindCommand(session, 'undo'))).toMatch(
        /^Undid the last rewind: 4 messages back in the conversation, the context is now [\d,]+ tokens\. Files stay as they are now \(without checkpoints, a code rewind is not taken back\)\.$/,
      );
    } finally {
      close();
    }
  });
});

describe("print mode's list of turns", () => {
  const at = Date.UTC(2026, 11, 4, 9, 30);
  const turn = (index: number, over: Partial<Parameters<typeof formatRewindTargets>[0][number]> = {}) => ({
    index,
    turnId: `t${index}`,
    text: `turn ${index}`,
    createdAt: at,
    inConversation: true,
    files: [],
    ...over,
  });

  it('numbers each turn with its time and text; says what left the conversation, the files changed since, a missing checkpoint; ends with the usage and the note', () => {
    const lines = formatRewindTargets([
      turn(1, { inConversation: false, gone: 'rewound', files: ['a', 'b', 'c', 'd', 'e', 'f'], checkpoint: { ok: false, missing: 'too many files' } }),
      turn(2, { inConversation: false, files: ['only.md'], checkpoint: { ok: true } }),
      turn(12, { text: `a long\n  prompt ${'x'.repeat(80)}` }),
    ]).split('\n');
    expect(lines).toEqual([
      '  1. 2026-12-04 09:30 turn 1 (rewound: code only) — 6 files changed since: a, b, c, d, e, … — no checkpoint: too many files',
      '  2. 2026-12-04 09:30 turn 2 (compacted: code only) — 1 file changed since: only.md',
      ` 12. 2026-12-04 09:30 a long prompt ${'x'.repeat(55)}…`,
      '',
      REWIND_USAGE,
      TREE_NOTE,
    ]);
    // five files named: no ellipsis; no checkpoint kept anywhere: the Bash caveat
    expect(formatRewindTargets([turn(1, { files: ['a', 'b', 'c', 'd', 'e'] })]).split('\n')).toEqual([
      '  1. 2026-12-04 09:30 turn 1 — 5 files changed since: a, b, c, d, e',
      '',
      REWIND_USAGE,
      BASH_CAVEAT,
    ]);
  });
});
