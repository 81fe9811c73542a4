/**
 * Bulk writes of normalized tests into a run, in chunks: one multi-row INSERT … SELECT FROM jsonb_to_recordset
 * per table per chunk (a few statements per thousand tests, whatever the report size). Ids are deterministic
 * (see domain/identity), so a re-sent batch lands on the same rows: results are upserted, attempts are
 * idempotent per (test, retry), and each result's status/outcome is then recomputed from all its attempts.
 *
 * Rows shared by the project (tests, error groups) are only ever inserted, never updated, here: an update would
 * lock a row every concurrent upload of the project touches until this (possibly long) transaction ends.
 */
import type { PoolClient } from '@assay/db';
import type { NormTest } from '../ingest/normalize';
import { errorGroupIdOf, fingerprintOf, fullTitleOf, resultIdOf, testIdOf } from '../domain/identity';
import { manualCaseRefs, type CompiledRule } from '../domain/rules';

export const CHUNK_SIZE = 1000;

export interface IngestOutcome {
  /** Results (tests of this run) that did not exist before: what usage counts. */
  newResults: number;
  tests: number;
  /** Manual case links queued (pending) by this write. */
  linksQueued: number;
}

interface Prepared {
  tests: object[];
  results: object[];
  attempts: object[];
  groups: Map<string, { id: string; fingerprint: string; message: string }>;
  links: object[];
  resultIds: string[];
}

function prepare(projectId: string, runId: string, chunk: NormTest[], seqStart: number, rules: CompiledRule[]): Prepared {
  const p: Prepared = { tests: [], results: [], attempts: [], groups: new Map(), links: [], resultIds: [] };
  const seenAttempt = new Set<string>();
  const seenResult = new Set<string>();
  chunk.forEach((t, i) => {
    const testId = testIdOf(projectId, t.file, t.titlePath, t.projectName);
    const resultId = resultIdOf(runId, testId);
    // The same test twice in one report (repeatEach): one result; its attempts merge (a repeated retry index is dropped).
    const repeated = seenResult.has(resultId);
    seenResult.add(resultId);
    const fullTitle = fullTitleOf(t.titlePath);
    let quarantined = false;
    const tags = new Set(t.tags);
    for (const r of rules) {
      if (!r.matches({ file: t.file, fullTitle, tags: t.tags })) continue;
      if (r.rule.operations.includes('quarantine')) quarantined = true;
      if (r.rule.operations.includes('tag') && r.rule.tag) tags.add(r.rule.tag);
    }
    // The error of the last attempt that failed names the group.
    const failing = [...t.attempts].sort((a, b) => b.retry - a.retry).find((a) => a.errors.length > 0);
    const message = failing?.errors[0]?.message;
    let errorGroupId: string | null = null;
    if (message) {
      const fingerprint = fingerprintOf(message);
      errorGroupId = errorGroupIdOf(projectId, fingerprint);
      p.groups.set(errorGroupId, { id: errorGroupId, fingerprint, message: message.split('\n')[0]!.slice(0, 1000) });
    }
    if (!repeated) p.tests.push({ id: testId, file: t.file, title_path: t.titlePath, project_name: t.projectName, full_title: fullTitle });
    if (!repeated)
      p.results.push({
        id: resultId,
        test_id: testId,
        seq: seqStart + i,
        file: t.file,
        title_path: t.titlePath,
        project_name: t.projectName,
        expected_status: t.expectedStatus,
        quarantined,
        tags: [...tags],
        annotations: t.annotations,
        location: t.location ?? null,
        error_group_id: errorGroupId,
        shard: t.shard ?? null,
      });
    if (!repeated) p.resultIds.push(resultId);
    for (const a of t.attempts) {
      const key = `${resultId}:${a.retry}`;
      if (seenAttempt.has(key)) continue;
      seenAttempt.add(key);
      p.attempts.push({
        result_id: resultId,
        retry: a.retry,
        status: a.status,
        duration_ms: a.durationMs,
        started_at: a.startTime ?? null,
        worker_index: a.workerIndex ?? null,
        errors: a.errors,
        steps: a.steps,
        stdout: a.stdout,
        stderr: a.stderr,
        attachments: a.attachments,
      });
    }
    for (const ref of manualCaseRefs(t.annotations, t.tags)) p.links.push({ test_id: testId, case_ref: ref, full_title: fullTitle });
  });
  return p;
}

/** Writes `tests` into `runId` (inside the caller's transaction). */
export async function writeTests(
  client: PoolClient,
  run: { id: string; projectId: string },
  tests: NormTest[],
  rules: CompiledRule[],
): Promise<IngestOutcome> {
  const { rows: seqRows } = await client.query('SELECT coalesce(max(seq) + 1, 0)::int AS next FROM results WHERE run_id = $1', [run.id]);
  let seq: number = seqRows[0].next;
  const outcome: IngestOutcome = { newResults: 0, tests: tests.length, linksQueued: 0 };
  for (let start = 0; start < tests.length; start += CHUNK_SIZE) {
    const chunk = tests.slice(start, start + CHUNK_SIZE);
    const p = prepare(run.projectId, run.id, chunk, seq, rules);
    seq += chunk.length;

    await client.query(
      `INSERT INTO tests (id, project_id, file, title_path, project_name, full_title)
       SELECT x.id, $2, x.file, ARRAY(SELECT jsonb_array_elements_text(x.title_path)), x.project_name, x.full_title
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, file text, title_path jsonb, project_name text, full_title text)
       ON CONFLICT (id) DO NOTHING`,
      [JSON.stringify(p.tests), run.projectId],
    );
    if (p.groups.size > 0) {
      await client.query(
        `INSERT INTO error_groups (id, project_id, fingerprint, message)
         SELECT x.id, $2, x.fingerprint, x.message
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, fingerprint text, message text)
         ON CONFLICT (project_id, fingerprint) DO NOTHING`,
        [JSON.stringify([...p.groups.values()]), run.projectId],
      );
    }
    const { rows: inserted } = await client.query(
      `INSERT INTO results (id, run_id, project_id, test_id, seq, file, title_path, project_name, expected_status, quarantined,
         tags, annotations, location, error_group_id, shard)
       SELECT x.id, $2, $3, x.test_id, x.seq, x.file, ARRAY(SELECT jsonb_array_elements_text(x.title_path)), x.project_name,
              x.expected_status, x.quarantined, ARRAY(SELECT jsonb_array_elements_text(x.tags)), x.annotations, x.location,
              x.error_group_id, x.shard
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, test_id text, seq int, file text, title_path jsonb, project_name text,
              expected_status text, quarantined boolean, tags jsonb, annotations jsonb, location jsonb, error_group_id text, shard int)
       ON CONFLICT (id) DO UPDATE SET
         quarantined = results.quarantined OR EXCLUDED.quarantined,
         tags = ARRAY(SELECT DISTINCT unnest(results.tags || EXCLUDED.tags)),
         annotations = EXCLUDED.annotations,
         location = coalesce(EXCLUDED.location, results.location),
         error_group_id = coalesce(EXCLUDED.error_group_id, results.error_group_id),
         shard = coalesce(EXCLUDED.shard, results.shard)
       RETURNING (xmax = 0) AS inserted`,
      [JSON.stringify(p.results), run.id, run.projectId],
    );
    outcome.newResults += inserted.filter((r) => r.inserted).length;
    await client.query(
      `INSERT INTO attempts (result_id, retry, run_id, status, duration_ms, started_at, worker_index, errors, steps, stdout, stderr, attachments)
       SELECT x.result_id, x.retry, $2, x.status, x.duration_ms, x.started_at, x.worker_index, x.errors, x.steps, x.stdout, x.stderr,
              x.attachments
         FROM jsonb_to_recordset($1::jsonb) AS x(result_id text, retry int, status text, duration_ms bigint, started_at timestamptz,
              worker_index int, errors jsonb, steps jsonb, stdout jsonb, stderr jsonb, attachments jsonb)
       ON CONFLICT (result_id, retry) DO NOTHING`,
      [JSON.stringify(p.attempts), run.id],
    );
    // Status = the last attempt's; outcome as Playwright computes it (interrupted attempts ignored).
    await client.query(
      `UPDATE results r SET
         status = a.last_status,
         outcome = CASE WHEN a.non_skipped = 0 THEN 'skipped'
                        WHEN a.failures = 0 THEN 'expected'
                        WHEN a.failures = a.considered THEN 'unexpected'
                        ELSE 'flaky' END,
         duration_ms = a.duration_ms,
         attempt_count = a.n,
         started_at = a.started_at,
         error_message = a.error_message
       FROM (
         SELECT t.result_id,
                count(*)::int AS n,
                (array_agg(t.status ORDER BY t.retry DESC))[1] AS last_status,
                count(*) FILTER (WHERE t.status <> 'interrupted') AS considered,
                count(*) FILTER (WHERE t.status NOT IN ('interrupted', 'skipped')) AS non_skipped,
                count(*) FILTER (WHERE t.status <> 'interrupted' AND t.status <> rr.expected_status) AS failures,
                sum(t.duration_ms) AS duration_ms,
                min(t.started_at) AS started_at,
                (array_agg(t.errors -> 0 ->> 'message' ORDER BY t.retry DESC) FILTER (WHERE jsonb_array_length(t.errors) > 0))[1] AS error_message
           FROM attempts t JOIN results rr ON rr.id = t.result_id
          WHERE t.result_id = ANY($1::text[])
          GROUP BY t.result_id) a
      WHERE r.id = a.result_id`,
      [p.resultIds],
    );
    if (p.links.length > 0) {
      const { rowCount } = await client.query(
        `INSERT INTO manual_links (project_id, test_id, case_ref, full_title)
         SELECT $2, x.test_id, x.case_ref, x.full_title FROM jsonb_to_recordset($1::jsonb) AS x(test_id text, case_ref text, full_title text)
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(p.links), run.projectId],
      );
      outcome.linksQueued += rowCount ?? 0;
    }
  }
  return outcome;
}
