/**
 * The web app's run list (GET /api/v1/app/projects/{projectId}/test-runs/{runId}/results, app-only): every
 * result of one run as a compact row, plus the run's spec files, in one answer.
 *
 * Why not the public list: GET /test-runs/{runId}/test-cases pages by at most 100, so a 10,000-test run would
 * take 100 requests (and the reads limit is 100 a minute), and a search over titles needs every row at once.
 * A row carries only what the list shows and filters on (about 150 bytes; the file is an index into `specs`),
 * and the answer is bounded by RUN_ROWS_LIMIT.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { ListRunRowsResponse } from '@assay/proto/assay/runs/v1/runs_pb';
import { literals, testStatus } from './test-runs';
import { TEST_STATUSES } from './values';

/** The most rows one answer holds (a run with more says so: `total` > rows). */
export const RUN_ROWS_LIMIT = 50_000;

export const RunRowsParams = Type.Object({ projectId: Type.String(), runId: Type.String() });

export const RunRowsSchema = Type.Object(
  {
    total: Type.Integer({ description: 'results in the run; more than `rows` when the bound cut them' }),
    specs: Type.Array(
      Type.Object({
        id: Type.String({ description: 'spec id (the debug bundle suiteId; the spec page of the run)' }),
        file: Type.String(),
        total: Type.Integer(),
        passed: Type.Integer(),
        failed: Type.Integer(),
        flaky: Type.Integer(),
        skipped: Type.Integer(),
        duration: Type.Integer({ description: 'sum of its results, ms' }),
      }),
      { description: 'spec files in the order they first appear in the report' },
    ),
    rows: Type.Array(
      Type.Object({
        id: Type.String({ description: 'caseId (GET /test-cases/{caseId})' }),
        title: Type.String({ description: 'full title (`describe › test`)' }),
        spec: Type.Integer({ description: 'index of its file in `specs`' }),
        projectName: Type.String(),
        status: literals(TEST_STATUSES),
        duration: Type.Integer({ description: 'ms' }),
        retries: Type.Integer(),
        quarantined: Type.Optional(Type.Boolean({ description: 'present (true) only when quarantined' })),
        errorGroupId: Type.Optional(Type.String({ description: 'failed and flaky results: the run detail errorGroups[].id' })),
      }),
      { description: `in report order; at most ${RUN_ROWS_LIMIT}` },
    ),
  },
  { title: 'RunRows' },
);
export type RunRowsJson = Static<typeof RunRowsSchema>;

export function runRowsToJson(res: ListRunRowsResponse): RunRowsJson {
  return {
    total: res.total,
    specs: res.specs.map((s) => ({
      id: s.id,
      file: s.file,
      total: s.total,
      passed: s.passed,
      failed: s.failed,
      flaky: s.flaky,
      skipped: s.skipped,
      duration: Number(s.durationMs),
    })),
    rows: res.rows.map((r) => ({
      id: r.id,
      title: r.title,
      spec: r.spec,
      projectName: r.projectName,
      status: testStatus.fromProto(r.status),
      duration: Number(r.durationMs),
      retries: r.retries,
      ...(r.quarantined ? { quarantined: true } : {}),
      ...(r.errorGroupId ? { errorGroupId: r.errorGroupId } : {}),
    })),
  };
}
