import { describe, expect, it } from 'vitest';
import { createKillShellTool } from '../../src/background/killShell.js';
import type { Shells } from '../../src/background/shells.js';
import { ToolInputError } from '../../src/tools/types.js';

// KillShell's input as the model sees it and as it is checked (src/background/killShell.ts): an id
// of at least one character, refused by the schema's words before any command is looked up.

describe("KillShell's input", () => {
  it('tells the model an id is never empty, and refuses an empty one in the schema’s words', () => {
    // parse() never reaches the shells
    const tool = createKillShellTool({} as Shells);
    // mutation: minLength(0) lets the model send '' (and tells it so)
    expect(tool.inputSchema).toMatchObject({ properties: { shell_id: { type: 'string', minLength: 1 } }, required: ['shell_id'] });
    expect(() => tool.parse({ shell_id: '' })).toThrow(
      new ToolInputError('KillShell: invalid input: "shell_id": Too small: expected string to have >=1 characters (got "")'),
    );
  });
});
