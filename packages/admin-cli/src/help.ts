/** The help texts, generated from the command table (commands.ts), the environment table and the exit codes. */
import type { Command, Flag } from './commands';
import { ENV_VARS } from './env';
import { EXIT_CODES } from './exit-codes';

/** Two columns: every left cell padded to the widest. */
function columns(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

const flagName = (f: Flag) => (f.value ? `--${f.name} ${f.value}` : `--${f.name}`);

function footer(): string[] {
  return [
    'Output: one JSON value on stdout. On failure nothing on stdout, and {"error": {"code", "message"}} on stderr.',
    '',
    'Exit codes:',
    ...columns(EXIT_CODES.map((e) => [String(e.code), e.errorCodes.length ? `${e.meaning} (${e.errorCodes.join(', ')})` : e.meaning])),
  ];
}

export function mainHelp(commands: Record<string, Command>): string {
  return [
    'assay: the admin CLI of Assay. It talks to the running system through its internal admin RPCs.',
    '',
    'Usage: assay <command> [--flag value …]',
    '       assay <command> --help    the flags of one command',
    '       assay --version',
    '',
    'Commands:',
    ...columns(Object.entries(commands).map(([name, c]) => [name, c.summary])),
    '',
    'Environment (else the .data/local.env that `make up` writes):',
    ...columns(ENV_VARS.map((v) => [v.name, v.fallback ? `${v.description} (default ${v.fallback})` : v.description])),
    '',
    ...footer(),
    '',
  ].join('\n');
}

export function commandHelp(name: string, c: Command): string {
  const usage = c.flags.map((f) => (f.required ? flagName(f) : `[${flagName(f)}]`));
  return [
    `Usage: assay ${[name, ...usage].join(' ')}`,
    '',
    c.summary,
    '',
    'Flags:',
    ...columns([
      ...c.flags.map((f): [string, string] => [flagName(f), f.required ? `${f.description} (required)` : f.description]),
      ['--help, -h', 'show this help'],
    ]),
    '',
    `Prints: ${c.prints}`,
    '',
    ...footer(),
    '',
  ].join('\n');
}
