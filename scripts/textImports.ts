import { register } from 'node:module';

// Under tsx (bench/ and scripts import src/ directly), `import text from './x.md'` gives the
// file's text, as esbuild's text loader does in the bundle (src/textModules.d.ts): a load hook,
// registered with `node --import tsx --import ./scripts/textImports.ts`.
const hook = `
import { readFile } from 'node:fs/promises';
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.md')) return next(url, context);
  const text = await readFile(new URL(url), 'utf8');
  return { format: 'module', source: 'export default ' + JSON.stringify(text) + ';', shortCircuit: true };
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
