// Model-facing prose (prompts, tool descriptions) lives in .md files beside the code that sends
// it, imported as text: esbuild's text loader in the bundle (scripts/build.ts), a plugin in
// vitest (vitest.config.ts), a loader hook under tsx (scripts/textImports.ts). Read it through
// promptText.ts, which drops the file's final newline and fills in its {{values}}.
declare module '*.md' {
  const text: string;
  export default text;
}
