/**
 * One test result as a reporter streams it (POST /api/v1/ingest/{projectId}/runs/{runId}/results, `results[]`):
 * a first attempt of `status` in `file`, 10 ms, a failure with one error message; `extra` overrides any field.
 */
export function resultItem(
  file: string,
  titlePath: string[],
  status: 'passed' | 'failed' | 'skipped',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    file,
    titlePath,
    projectName: 'chromium',
    status,
    duration: 10,
    retry: 0,
    errors: status === 'failed' ? [{ message: 'boom' }] : [],
    steps: [],
    attachments: [],
    annotations: [],
    tags: [],
    ...extra,
  };
}
