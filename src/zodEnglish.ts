// zod/mini loads no message locale (its errors would all read "Invalid input"); classic zod
// set English itself. Importing this module sets it once, for the .agentrc schema and the tools'
// input schemas alike (config/schema.ts and tools/inputSchema.ts import it). English alone, from
// its own file: the other locales stay out of the bundle.
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());
