import { describe, expect, it } from 'vitest';
import { personText } from '../../src/ledger/sections.js';
import type { Message } from '../../src/llm/messages.js';
import { user } from '../compaction/helpers.js';

// What the ledger quotes of the person's message (its pending request): the text without the
// white space around it, whether the message is one text block (the common shape, read without
// arrays) or several blocks; a skill body loaded into it is named, not repeated.

describe('personText', () => {
  it('trims a one-block message and a message of several blocks alike', () => {
    expect(personText(user('  \n fix the failing test \n\n'))).toBe('fix the failing test');
    const several: Message = {
      ...user(''),
      blocks: [
        { type: 'text', text: '\n  look at ' },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        { type: 'text', text: 'this screenshot  \n' },
      ],
    };
    expect(personText(several)).toBe('look at this screenshot');
    // one block that is not text: no words
    expect(personText({ ...user(''), blocks: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] })).toBe('');
  });

  it('names a skill body loaded into the message instead of quoting it', () => {
    const text = ' /deploy now\n<skill name="deploy" folder="/p/.agent/skills/deploy">\nstep one\nstep two\n</skill> ';
    expect(personText(user(text))).toBe('/deploy now\n[the skill "deploy", loaded here: its text is attached with the skills loaded]');
  });
});
