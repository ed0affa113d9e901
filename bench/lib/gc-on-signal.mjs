// Bench-only preload (`node --import`), loaded into every server the bench starts: SIGUSR2 runs a full garbage
// collection, so P11 reads a server's RSS without the garbage its requests left (bench/README.md, P11). `gc` is
// taken from a fresh context, so nothing is added to the server's own globals.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
process.on('SIGUSR2', () => gc());
