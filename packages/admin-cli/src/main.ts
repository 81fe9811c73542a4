#!/usr/bin/env node
/**
 * `assay <command> [--flags]` (from a checkout: `npm run admin -- <command> [--flags]`): prints one JSON value on
 * stdout; on failure prints `{"error": {"code", "message"}}` on stderr and exits with the code of exit-codes.ts.
 * The commands, their flags and the help all come from the one table in commands.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Code, ConnectError } from '@connectrpc/connect';
import { fromConnectError } from '@assay/errors';
import { commands, UsageError, type Flags } from './commands';
import { cliEnv } from './env';
import { exitCodeOf, USAGE } from './exit-codes';
import { commandHelp, mainHelp } from './help';

function fail(code: string, message: string): never {
  process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  process.exit(exitCodeOf(code));
}

function version(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp(commands));
    return;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`${version()}\n`);
    return;
  }
  if (name === undefined) fail(USAGE, 'no command given; `assay --help` lists the commands');
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) fail(USAGE, `unknown command "${name}"; commands: ${Object.keys(commands).join(', ')}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(name, command));
    return;
  }
  let flags: Flags;
  try {
    flags = parseArgs({
      args: rest,
      options: Object.fromEntries(command.flags.map((f) => [f.name, { type: f.value ? ('string' as const) : ('boolean' as const) }])),
      strict: true,
      allowPositionals: false,
    }).values as Flags;
    for (const [k, v] of Object.entries(flags)) if (v === (true as unknown)) flags[k] = 'true';
  } catch (err) {
    fail(USAGE, `${(err as Error).message}; \`assay ${name} --help\` lists its flags`);
  }
  const missing = command.flags.find((f) => f.required && (flags[f.name] === undefined || flags[f.name] === ''));
  if (missing) fail(USAGE, `--${missing.name} is required; \`assay ${name} --help\` lists its flags`);
  const env = cliEnv();
  if (!env.internalToken) fail(USAGE, 'INTERNAL_AUTH_TOKEN is not set (run `make up`, or export it)');
  try {
    const result = await command.run(flags, env);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } catch (err) {
    if (err instanceof UsageError) fail(USAGE, err.message);
    // A credential the services do not know (the shared table reads it as an internal error: for the gateway it is one).
    if (err instanceof ConnectError && err.code === Code.Unauthenticated)
      fail('UNAUTHORIZED', `${err.rawMessage}: INTERNAL_AUTH_TOKEN is not the admin credential`);
    const appErr = fromConnectError(err);
    const unreachable = `cannot reach the system at ${env.adminUrl}, ${env.runsUrl} or ${env.analyticsUrl}: is it running?`;
    fail(appErr.reason, appErr.reason === 'SERVICE_UNAVAILABLE' ? unreachable : appErr.message);
  }
}

void main(process.argv.slice(2));
