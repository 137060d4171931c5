import { describe, expect, it } from 'vitest';
import { createTools, toolSpecs } from '../../src/tools/registry.js';
import { ToolInputError } from '../../src/tools/types.js';

// What the model sees of each tool's input and what it reads back when it gets one wrong, pinned
// byte for byte: the schemas are built by zod (zod/mini), and a change of zod's flavour, version or
// locale must not change a schema, its key order, or the wording of an error.

const tools = createTools({ bash: { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000 } });

const SCHEMAS: Record<string, unknown> = {
  FileRead: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: "The file's path.",
      },
      offset: {
        description: 'First line (1-based). Default 1.',
        type: 'integer',
        minimum: 1,
      },
      limit: {
        description: 'Lines to read. Default 2000.',
        type: 'integer',
        minimum: 1,
      },
    },
    required: ['path'],
  },
  Edit: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: "The file's path.",
      },
      old_string: {
        type: 'string',
        description: 'The exact text to replace.',
      },
      new_string: {
        type: 'string',
        description: 'Its replacement (must differ).',
      },
      replace_all: {
        description: 'Replace every occurrence. Default false.',
        type: 'boolean',
      },
    },
    required: ['path', 'old_string', 'new_string'],
  },
  Write: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        minLength: 1,
        description: "The file's path.",
      },
      content: {
        type: 'string',
        description: 'The whole new content.',
      },
    },
    required: ['path', 'content'],
  },
  Bash: {
    type: 'object',
    properties: {
      command: {
        type: 'string',
        minLength: 1,
        description: 'The command (bash syntax).',
      },
      timeout: {
        description: 'Timeout in milliseconds.',
        type: 'integer',
        minimum: 1,
      },
      description: {
        description: 'What it does in a few words, shown to the user ("Run the unit tests").',
        type: 'string',
      },
      run_in_background: {
        description: 'Run it in the background; the call answers at once with an id.',
        type: 'boolean',
      },
    },
    required: ['command'],
  },
  Grep: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        minLength: 1,
        description: 'E.g. "function\\s+load", "TODO|FIXME"; escape ( [ { . * + ? | \\ to match them literally.',
      },
      path: {
        description: 'File or directory to search. Default: the working directory.',
        type: 'string',
        minLength: 1,
      },
      glob: {
        description: 'Only files matching this glob: "*.ts" (any depth), "*.{ts,tsx}", "src/**/*.test.ts".',
        type: 'string',
        minLength: 1,
      },
      ignoreCase: {
        description: 'Case-insensitive search.',
        type: 'boolean',
      },
      outputMode: {
        description: 'Default "files".',
        type: 'string',
        enum: ['files', 'lines', 'count'],
      },
      contextLines: {
        description: 'With "lines": lines of context around each match.',
        type: 'integer',
        minimum: 0,
        maximum: 20,
      },
      maxResults: {
        description: 'Most files or lines returned. Default 100.',
        type: 'integer',
        minimum: 1,
        maximum: 2000,
      },
    },
    required: ['pattern'],
  },
  Glob: {
    type: 'object',
    properties: {
      pattern: {
        type: 'string',
        minLength: 1,
        description: 'E.g. "**/*.ts", "src/**/*.{ts,tsx}".',
      },
      path: {
        description: 'Directory to search. Default: the working directory.',
        type: 'string',
        minLength: 1,
      },
    },
    required: ['pattern'],
  },
  Recall: {
    type: 'object',
    properties: {
      query: {
        description: 'Words to search for. Give query or id.',
        type: 'string',
        minLength: 1,
      },
      id: {
        description: "An archived item's id (a hit's, a placeholder's, o12, b1) to read.",
        type: 'string',
        minLength: 1,
      },
      offset: {
        description: 'With query: hits to skip. With id: first line (1-based).',
        type: 'integer',
        minimum: 0,
      },
      limit: {
        description: 'With query: hits (default 10, at most 50). With id: lines (default 500).',
        type: 'integer',
        minimum: 1,
        maximum: 2000,
      },
      pattern: {
        description: 'With id: a regular expression; only the matching lines, with context.',
        type: 'string',
        minLength: 1,
      },
      context: {
        description: 'With pattern: lines of context (default 2).',
        type: 'integer',
        minimum: 0,
        maximum: 20,
      },
      since_last_read: {
        description: "With a background command's id: only its output since you last read it.",
        type: 'boolean',
      },
    },
  },
};

/** [tool, input the model sent, the error it reads back] */
const INVALID: Array<[string, unknown, string]> = [
  ['FileRead', {}, 'FileRead: invalid input: missing required field "path"'],
  ['FileRead', { path: '' }, 'FileRead: invalid input: "path": Too small: expected string to have >=1 characters (got "")'],
  ['FileRead', { path: 1 }, 'FileRead: invalid input: "path": Invalid input: expected string, received number (got 1)'],
  ['FileRead', { path: 'a', offset: 0 }, 'FileRead: invalid input: "offset": Too small: expected number to be >=1 (got 0)'],
  ['FileRead', { path: 'a', offset: 1.5 }, 'FileRead: invalid input: "offset": Invalid input: expected int, received number (got 1.5)'],
  ['FileRead', { path: 'a', offset: 'x' }, 'FileRead: invalid input: "offset": Invalid input: expected number, received string (got "x")'],
  ['FileRead', { path: 'a', limit: -1 }, 'FileRead: invalid input: "limit": Too small: expected number to be >=1 (got -1)'],
  ['FileRead', { path: 'a', limit: 0 }, 'FileRead: invalid input: "limit": Too small: expected number to be >=1 (got 0)'],
  ['FileRead', null, 'FileRead: the input must be a JSON object'],
  ['FileRead', [], 'FileRead: the input must be a JSON object'],
  ['Edit', { path: 'a' }, 'Edit: invalid input: missing required field "old_string"; missing required field "new_string"'],
  ['Edit', { path: 'a', old_string: 1, new_string: 'x' }, 'Edit: invalid input: "old_string": Invalid input: expected string, received number (got 1)'],
  [
    'Edit',
    { path: 'a', old_string: 'x', new_string: 'y', replace_all: 'yes' },
    'Edit: invalid input: "replace_all": Invalid input: expected boolean, received string (got "yes")',
  ],
  ['Write', { path: 'a' }, 'Write: invalid input: missing required field "content"'],
  ['Write', { content: 'x' }, 'Write: invalid input: missing required field "path"'],
  ['Write', { path: '', content: 'x' }, 'Write: invalid input: "path": Too small: expected string to have >=1 characters (got "")'],
  ['Bash', {}, 'Bash: invalid input: missing required field "command"'],
  ['Bash', { command: '' }, 'Bash: invalid input: "command": Too small: expected string to have >=1 characters (got "")'],
  ['Bash', { command: 'x', timeout: 0 }, 'Bash: invalid input: "timeout": Too small: expected number to be >=1 (got 0)'],
  ['Bash', { command: 'x', description: 5 }, 'Bash: invalid input: "description": Invalid input: expected string, received number (got 5)'],
  ['Bash', { command: 'x', timeout: 1e20 }, 'Bash: invalid input: "timeout": Too big: expected int to be <=9007199254740991 (got 100000000000000000000)'],
  ['Grep', { pattern: 'x', outputMode: 'bad' }, 'Grep: invalid input: "outputMode": Invalid option: expected one of "files"|"lines"|"count" (got "bad")'],
  ['Grep', { pattern: 'x', contextLines: 21 }, 'Grep: invalid input: "contextLines": Too big: expected number to be <=20 (got 21)'],
  ['Grep', { pattern: 'x', contextLines: -1 }, 'Grep: invalid input: "contextLines": Too small: expected number to be >=0 (got -1)'],
  ['Grep', { pattern: 'x', maxResults: 2001 }, 'Grep: invalid input: "maxResults": Too big: expected number to be <=2000 (got 2001)'],
  ['Grep', { pattern: 'x', maxResults: 0 }, 'Grep: invalid input: "maxResults": Too small: expected number to be >=1 (got 0)'],
  ['Grep', { pattern: 'x', ignoreCase: 'yes' }, 'Grep: invalid input: "ignoreCase": Invalid input: expected boolean, received string (got "yes")'],
  ['Grep', { pattern: '' }, 'Grep: invalid input: "pattern": Too small: expected string to have >=1 characters (got "")'],
  ['Glob', {}, 'Glob: invalid input: missing required field "pattern"'],
  ['Glob', { pattern: 'x', path: '' }, 'Glob: invalid input: "path": Too small: expected string to have >=1 characters (got "")'],
  ['Glob', { pattern: 5 }, 'Glob: invalid input: "pattern": Invalid input: expected string, received number (got 5)'],
  ['Recall', {}, 'Recall: give "query" (to search) or "id" (to read one item)'],
  ['Recall', { query: '' }, 'Recall: invalid input: "query": Too small: expected string to have >=1 characters (got "")'],
  ['Recall', { query: 'a', id: 'b' }, 'Recall: give either "query" or "id", not both'],
  ['Recall', { query: 'a', pattern: 'b' }, 'Recall: "pattern" reads matching lines of one item: give "id" with it'],
  ['Recall', { id: 'x', offset: -1 }, 'Recall: invalid input: "offset": Too small: expected number to be >=0 (got -1)'],
  ['Recall', { id: 'x', limit: 2001 }, 'Recall: invalid input: "limit": Too big: expected number to be <=2000 (got 2001)'],
  ['Recall', { id: 'x', limit: 0 }, 'Recall: invalid input: "limit": Too small: expected number to be >=1 (got 0)'],
];

const tool = (name: string) => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};

describe('tool input schemas', () => {
  it('are sent to the model exactly as pinned, key order included', () => {
    const specs = toolSpecs(tools);
    expect(specs.map((s) => s.name)).toEqual(Object.keys(SCHEMAS));
    for (const s of specs) expect(JSON.stringify(s.inputSchema, null, 1), s.name).toBe(JSON.stringify(SCHEMAS[s.name], null, 1));
  });

  it('are made once a schema, frozen: tools made again share them', () => {
    const again = toolSpecs(createTools({ bash: { timeoutMs: 120_000, maxTimeoutMs: 600_000, maxOutputChars: 30_000 } }));
    const specs = toolSpecs(tools);
    // mutation: the schema made not kept makes it again for every tool list (a session's, a sub-agent's)
    again.forEach((s, i) => expect(s.inputSchema, s.name).toBe(specs[i]!.inputSchema));
    expect(specs.every((s) => Object.isFrozen(s.inputSchema) && Object.isFrozen(s.inputSchema.properties))).toBe(true);
  });

  it.each(INVALID)('%s %j is refused with the same words', (name, input, message) => {
    let thrown: unknown;
    try {
      tool(name).parse(input);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ToolInputError);
    expect((thrown as Error).message).toBe(message);
  });

  it('drops unknown fields, converts numbers and booleans sent as strings, and caps the Bash timeout', () => {
    expect(tool('FileRead').parse({ path: 'a', extra: 1 })).toStrictEqual({ path: 'a' });
    expect(tool('FileRead').parse({ path: 'a', offset: '3' })).toStrictEqual({ path: 'a', offset: 3 });
    expect(tool('Edit').parse({ path: 'a', old_string: 'x', new_string: 'y', replace_all: 'true' })).toStrictEqual({
      path: 'a',
      old_string: 'x',
      new_string: 'y',
      replace_all: true,
    });
    expect(tool('Bash').parse({ command: 'x', timeout: '10' })).toStrictEqual({ command: 'x', timeout: 10 });
    expect(tool('Bash').parse({ command: 'x', timeout: 99_999_999 })).toStrictEqual({ command: 'x', timeout: 600_000 });
  });
});
