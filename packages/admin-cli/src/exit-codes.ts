/** The CLI's exit codes: one table, read by main.ts (which code an error exits with) and by the help's footer. */

/** The `error.code` of a mistake in the command line itself (nothing was sent). */
export const USAGE = 'USAGE';

export const EXIT_CODES: { code: number; meaning: string; errorCodes: string[] }[] = [
  { code: 0, meaning: 'done: the answer is on stdout', errorCodes: [] },
  { code: 1, meaning: 'the system failed or could not be reached', errorCodes: ['SERVICE_UNAVAILABLE', 'INTERNAL_ERROR', '…'] },
  {
    code: 2,
    meaning: 'usage: no or unknown command, unknown flag, missing or invalid flag value, no INTERNAL_AUTH_TOKEN',
    errorCodes: [USAGE],
  },
  { code: 3, meaning: 'not found: the system knows no such organization, user, project, token or rule', errorCodes: ['NOT_FOUND'] },
  { code: 4, meaning: 'refused: the system rejected the input or the change', errorCodes: ['VALIDATION_ERROR', 'CONFLICT'] },
  { code: 5, meaning: 'denied: INTERNAL_AUTH_TOKEN is not the admin credential', errorCodes: ['UNAUTHORIZED', 'FORBIDDEN'] },
];

/** The exit code of an `error.code`: any code the table does not name is a failure of the system (1). */
export const exitCodeOf = (errorCode: string): number => EXIT_CODES.find((e) => e.errorCodes.includes(errorCode))?.code ?? 1;
