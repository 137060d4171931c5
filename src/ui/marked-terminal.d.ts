// marked-terminal 7 ships no type declarations (and the DefinitelyTyped ones describe an older
// API): this is the part the UI uses.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export function markedTerminal(options?: Record<string, unknown>, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
