import { describe, expect, it } from 'vitest';
import { findCommand, isCommandLine } from '../../src/commands/registry.js';
import { commandWord, isCommandText } from '../../src/ui/completion.js';
import { COMMANDS } from '../ui/fakes.js';

describe('which lines are slash commands', () => {
  it('a known command, or one close to it, is a command', () => {
    expect(isCommandLine('/compact focus: the schema')).toBe(true);
    expect(isCommandLine('/cost')).toBe(true);
    expect(isCommandLine('/compcat')).toBe(true); // a typo still gets "did you mean"
  });

  it('a prompt that starts with a path is a prompt', () => {
    expect(isCommandLine('/etc/hosts is it fine?')).toBe(false);
    expect(isCommandLine('/usr/local/bin/node crashes, why?')).toBe(false);
    expect(isCommandLine('/tmp is full, what can I delete')).toBe(false);
    expect(isCommandLine('/')).toBe(false);
  });

  it('the UI decides the same way from the command list', () => {
    expect(isCommandText('/etc/hosts is it fine?', COMMANDS)).toBe(false);
    expect(isCommandText('/tmp is full', COMMANDS)).toBe(false);
    expect(isCommandText('/cost', COMMANDS)).toBe(true);
    expect(isCommandText('/co', COMMANDS)).toBe(true);
    // no completion hint ("Unknown command") while typing a path
    expect(commandWord('/etc/hosts', 10)).toBeNull();
    expect(commandWord('/comp', 5)).toBe('/comp');
  });

  it('/quit is /exit', () => {
    expect(findCommand('quit')).toBeDefined();
    expect(isCommandLine('/quit')).toBe(true);
  });
});
