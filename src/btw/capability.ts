// /btw as a capability: one slash command, nothing for the session (no tool, no prompt section,
// no state). A side question is answered from the session's context in one request without
// tools and kept out of the history (ask.ts).
import type { Capability, CapabilityFactory } from '../capability/capability.js';
import { askAside } from './ask.js';

function btwCapability(): Capability {
  return {
    name: 'btw',
    open: () => ({}),
    commands: [
      {
        name: 'btw',
        args: '<question>',
        description: 'ask a side question about the work so far: answered from the context, without tools, and kept out of the conversation',
        run: async (session, args, signal) => {
          const question = args.trim();
          if (question === '') throw new Error('usage: /btw <question> (a side question, answered without tools and kept out of the conversation)');
          return { kind: 'text', text: await askAside(session, question, signal) };
        },
      },
    ],
  };
}

export const btw: CapabilityFactory = () => btwCapability();
