import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Event } from '../../src/protocol/events.js';
import { SHELL_ROW_NAME, type ViewData } from '../../src/protocol/views.js';

// The protocol room is the vocabulary the session and its front ends share: the one event union
// (CONTRIBUTING.md, "Shape of the code") and the views a capability contributes. It holds types
// and one constant, so its unit tests pin them as they are: a member of the union added, renamed
// or dropped without the producers and front ends being told fails tsc here (npm test's first step).

describe('the protocol', () => {
  it('names every event type a front end may see, and nothing more', () => {
    expectTypeOf<Event['type']>().toEqualTypeOf<
      | 'turn_start'
      | 'request_start'
      | 'text_delta'
      | 'thinking_delta'
      | 'tool_call_streaming'
      | 'message'
      | 'tool_start'
      | 'tool_progress'
      | 'tool_end'
      | 'usage'
      | 'retry'
      | 'waiting'
      | 'continuation'
      | 'error'
      | 'turn_end'
      | 'compaction_start'
      | 'compaction_progress'
      | 'compaction_end'
      | 'compaction_skipped'
      | 'context'
      | 'notice'
      | 'permission_mode'
      | 'history_reset'
      | 'child'
      | 'prompt_refused'
      | 'prompt_returned'
      | 'activity'
      | 'unsaved'
      | 'provider_notice'
      | 'approval'
      | 'command_output'
      | 'session'
      | 'busy'
      | 'mcp_status'
      | 'status_command'
      | 'background_status'
      | 'goal'
      | 'exit'
    >();
  });

  it('offers the views the front ends ask for by name', () => {
    expectTypeOf<keyof ViewData>().toEqualTypeOf<'todos' | 'tasks' | 'child'>();
  });

  it("names a `!command`'s row Shell, as the TUI, print mode and stored origins show it", () => {
    expect(SHELL_ROW_NAME).toBe('Shell');
  });
});
