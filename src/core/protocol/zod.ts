// zod, configured once for every schema of ours (import `z` from here, not from 'zod').
//
// jitless: zod would otherwise compile each object schema into a function (`new Function`) on its first parse.
// Our schemas each parse a handful of messages per job (output lines have their own decoder, client/events.ts), so
// that compile is pure cost: ~6 ms of every `kernel-runner submit`, more than all its parses together. It also
// keeps zod from probing for eval where a strict Content-Security-Policy forbids it (the webviews).
import { z } from 'zod';

z.config({ jitless: true });

export { z };
