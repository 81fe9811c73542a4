/**
 * The `manual-runs` family: create (selection `all` or `selected`), update, close, get, list,
 * with rollup counts per verdict; and the run's cases: list and update (quick verdict or detailed result).
 * A closed run refuses every change but `releaseId` (CONFLICT), and so do its cases.
 */
import { create } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  ManualRunSchema,
  RecordStatus,
  RunCaseSchema,
  type ManualRun,
  type ManualTestingService,
  type RunCase,
  type RunLink,
  type SelectionMode,
  CreateManualRunResponseSchema,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { withTransaction, type PoolClient } from '@assay/db';
import { conflict, notFound } from '@assay/errors';
import { pageInfo, paging, requireWriter, withIdempotency } from '@assay/service-kit';
import { recordStatus } from '@assay/contracts/manual-testing/common';
import { selectionMode as selectionModes, verdict } from '@assay/contracts/manual-testing/manual-runs';
import { MAX_RECORD_NAME, type SelectionModeName } from '@assay/contracts/manual-testing/values';
import type { Wiring } from '../wiring';
import {
  addRunCases,
  findRun,
  findRunCase,
  insertRun,
  listRunCases,
  listRuns,
  statsOf,
  updateRun,
  updateRunCase,
  type RunCaseFields,
  type RunCaseRow,
  type RunFields,
  type RunLinkData,
  type RunRow,
  type RunStatsRow,
  type StepResultData,
} from '../store/manual-runs';
import { resolveCaseRefs, selectCaseIds, suiteSubtreeIds } from '../store/manual-test-cases';
import { findSuite } from '../store/manual-test-suites';
import { sanitizeRichHtml } from '../domain/html';
import { resolveMember } from '../domain/members';
import { cleanTags, parseLinkedIssues } from '../domain/records';
import { HTTP_URL_MESSAGE, isHttpUrl } from '@assay/contracts/common/url';
import { checkName, enumName, invalid, Violations } from '../domain/violations';
import { authorOf, checkReleaseRef, member, requireSomeField, trail, ts } from './common';

export function toManualRun(r: RunRow, stats: RunStatsRow): ManualRun {
  return create(ManualRunSchema, {
    id: r.id,
    name: r.name,
    note: r.note,
    environment: r.environment ?? undefined,
    releaseId: r.releaseId ?? undefined,
    state: r.state ?? undefined,
    selectionMode: selectionModes.toProto(r.selectionMode),
    includeUnsorted: r.includeUnsorted,
    forecast: r.forecast ?? undefined,
    tags: r.tags,
    linkedIssues: r.linkedIssues,
    links: r.links,
    status: recordStatus.toProto(r.status),
    closedAt: ts(r.closedAt),
    stats,
    ...trail(r),
  });
}

export function toRunCase(r: RunCaseRow): RunCase {
  return create(RunCaseSchema, {
    id: r.id,
    runId: r.runId,
    testCase: {
      id: r.caseId,
      caseId: `TC-${r.caseNumber}`,
      title: r.caseTitle,
      suite: r.suiteId ? { id: r.suiteId, name: r.suiteName ?? '' } : undefined,
    },
    result: verdict.toProto(r.result),
    assignee: member(r.assignee),
    elapsed: r.elapsed ?? undefined,
    comment: r.comment,
    linkedIssues: r.linkedIssues,
    stepResults: r.stepResults.map((s) => ({ ...s, status: verdict.toProto(s.status) })),
    updatedAt: ts(r.updatedAt),
  });
}

async function runWithStats(c: PoolClient, projectId: string, id: string): Promise<ManualRun> {
  const row = (await findRun(c, projectId, id))!;
  return toManualRun(row, (await statsOf(c, [id])).get(id)!);
}

function checkForecast(forecast: number | undefined, v: Violations): void {
  if (forecast !== undefined && (!Number.isFinite(forecast) || forecast < 0)) v.add('body.forecast', 'must be a number, 0 or more');
}

function parseLinks(links: RunLink[], v: Violations): RunLinkData[] {
  return links.map((l, i) => {
    if (l.title.trim() === '') v.add(`body.links.${i}.title`, 'must not be empty');
    if (!isHttpUrl(l.url)) v.add(`body.links.${i}.url`, HTTP_URL_MESSAGE);
    return { title: l.title, url: l.url };
  });
}

function selectionMode(value: SelectionMode | undefined, v: Violations): SelectionModeName | undefined {
  return value === undefined ? undefined : enumName(selectionModes, value, 'body.selectionMode', v, 'must be all or selected');
}

const CLOSING_ONLY = 'must be closed (closing is the only status change)';

const QUICK_FIELDS = ['assigneeUserId', 'result', 'status', 'elapsed'] as const;
const DETAILED_FIELDS = ['comment', 'linkedIssues', 'stepResults'] as const;

type RunRpcs = Pick<
  ServiceImpl<typeof ManualTestingService>,
  'createManualRun' | 'updateManualRun' | 'getManualRun' | 'listManualRuns' | 'listRunCases' | 'updateRunCase'
>;

export function manualRunHandlers({ pool, members, clock }: Wiring): RunRpcs {
  return {
    async createManualRun(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      const v = new Violations();
      checkName(req.name, MAX_RECORD_NAME, 'body.name', v);
      checkForecast(req.forecast, v);
      const mode = selectionMode(req.selectionMode, v) ?? 'all';
      if (mode === 'all') {
        if (req.testCaseIds.length > 0) v.add('body.testCaseIds', 'is only used with selectionMode "selected"');
        if (req.suiteIds.length > 0) v.add('body.suiteIds', 'is only used with selectionMode "selected"');
      } else if (req.testCaseIds.length === 0 && req.suiteIds.length === 0 && !req.includeUnsorted) {
        v.add('body.selectionMode', 'selected needs testCaseIds, suiteIds or includeUnsorted');
      }
      const fields: RunFields = {
        name: req.name,
        note: sanitizeRichHtml(req.note ?? ''),
        environment: req.environment ?? null,
        releaseId: req.releaseId ?? null,
        state: req.state ?? null,
        selectionMode: mode,
        includeUnsorted: req.includeUnsorted ?? false,
        forecast: req.forecast ?? null,
        tags: cleanTags(req.tags),
        linkedIssues: parseLinkedIssues(req.linkedIssues, 'body.linkedIssues', v),
        links: parseLinks(req.links, v),
        status: 'open',
        closedAt: null,
      };
      v.throwIfAny();
      return withIdempotency(pool, ctx, CreateManualRunResponseSchema, async (c) => {
        await checkReleaseRef(c, req.projectId, fields.releaseId);
        const rv = new Violations();
        const caseIds = await resolveCaseRefs(c, req.projectId, req.testCaseIds);
        req.testCaseIds.forEach((ref, i) => {
          if (!caseIds.has(ref)) rv.add(`body.testCaseIds.${i}`, 'names no test case of this project');
        });
        for (const [i, id] of req.suiteIds.entries()) {
          if (!(await findSuite(c, req.projectId, id))) rv.add(`body.suiteIds.${i}`, 'names no suite of this project');
        }
        rv.throwIfAny();
        const selected = await selectCaseIds(c, req.projectId, {
          all: mode === 'all',
          suiteIds: await suiteSubtreeIds(c, req.projectId, req.suiteIds),
          includeUnsorted: fields.includeUnsorted,
          caseIds: [...caseIds.values()],
        });
        const id = await insertRun(c, req.projectId, fields, authorOf(caller));
        await addRunCases(c, id, selected);
        return { run: await runWithStats(c, req.projectId, id) };
      });
    },

    async updateManualRun(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      // A gateway older than forecast_value sends only the number.
      const forecast = req.forecastValue ? (req.forecastValue.value ?? null) : req.forecast;
      const sent = {
        name: req.name,
        note: req.note,
        environment: req.environment,
        releaseId: req.releaseId,
        state: req.state,
        selectionMode: req.selectionMode,
        forecast,
        tags: req.tags,
        linkedIssues: req.linkedIssues,
        links: req.links,
        status: req.status,
      };
      requireSomeField(Object.values(sent));
      const v = new Violations();
      if (req.name !== undefined) checkName(req.name, MAX_RECORD_NAME, 'body.name', v);
      checkForecast(forecast ?? undefined, v);
      const mode = selectionMode(req.selectionMode, v);
      if (req.status !== undefined && req.status !== RecordStatus.CLOSED) v.add('body.status', CLOSING_ONLY);
      const linkedIssues = req.linkedIssues ? parseLinkedIssues(req.linkedIssues.issues, 'body.linkedIssues', v) : undefined;
      const links = req.links ? parseLinks(req.links.links, v) : undefined;
      v.throwIfAny();
      const run = await withTransaction(pool, async (c) => {
        const current = await findRun(c, req.projectId, req.runId, true);
        if (!current) throw notFound('Manual run');
        if (current.status === 'closed') {
          const others = Object.entries(sent).filter(([k, val]) => k !== 'releaseId' && val !== undefined);
          if (others.length > 0)
            throw conflict(`The run is closed: only releaseId can change (refused: ${others.map(([k]) => k).join(', ')})`);
        }
        const f: RunFields = { ...current };
        if (req.name !== undefined) f.name = req.name;
        if (req.note !== undefined) f.note = sanitizeRichHtml(req.note);
        if (req.environment !== undefined) f.environment = req.environment;
        if (req.releaseId !== undefined) {
          f.releaseId = req.releaseId.value ?? null;
          await checkReleaseRef(c, req.projectId, f.releaseId);
        }
        if (req.state !== undefined) f.state = req.state;
        if (mode !== undefined) f.selectionMode = mode;
        if (forecast !== undefined) f.forecast = forecast;
        if (req.tags !== undefined) f.tags = cleanTags(req.tags.values);
        if (linkedIssues !== undefined) f.linkedIssues = linkedIssues;
        if (links !== undefined) f.links = links;
        if (req.status === RecordStatus.CLOSED) {
          f.status = 'closed';
          f.closedAt = clock();
        }
        await updateRun(c, current.id, f, authorOf(caller));
        // Switching to `all` brings in every case the run does not hold yet; verdicts are kept.
        if (mode === 'all') {
          await addRunCases(
            c,
            current.id,
            await selectCaseIds(c, req.projectId, { all: true, suiteIds: [], includeUnsorted: false, caseIds: [] }),
          );
        }
        return runWithStats(c, req.projectId, current.id);
      });
      return { run };
    },

    async getManualRun(req) {
      const row = await findRun(pool, req.projectId, req.runId);
      if (!row) throw notFound('Manual run');
      return { run: toManualRun(row, (await statsOf(pool, [row.id])).get(row.id)!) };
    },

    async listManualRuns(req) {
      const v = new Violations();
      const status = req.status === undefined ? undefined : enumName(recordStatus, req.status, 'query.status', v, 'must be open or closed');
      v.throwIfAny();
      const p = paging(req.page);
      const { rows, total } = await listRuns(pool, req.projectId, { status }, p.limit, p.offset);
      const stats = await statsOf(
        pool,
        rows.map((r) => r.id),
      );
      return { runs: rows.map((r) => toManualRun(r, stats.get(r.id)!)), page: pageInfo(p, total) };
    },

    async listRunCases(req) {
      const v = new Violations();
      const result = req.result !== undefined ? enumName(verdict, req.result, 'query.result', v) : undefined;
      v.throwIfAny();
      const run = await findRun(pool, req.projectId, req.runId);
      if (!run) throw notFound('Manual run');
      const p = paging(req.page);
      const { rows, total } = await listRunCases(pool, run.id, { result, assignee: req.assignee }, p.limit, p.offset);
      return { runCases: rows.map(toRunCase), page: pageInfo(p, total) };
    },

    async updateRunCase(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      const quick = { assigneeUserId: req.assigneeUserId, result: req.result, status: req.status, elapsed: req.elapsed };
      const detailed = { comment: req.comment, linkedIssues: req.linkedIssues, stepResults: req.stepResults };
      const quickSent = QUICK_FIELDS.filter((k) => quick[k] !== undefined);
      const detailedSent = DETAILED_FIELDS.filter((k) => detailed[k] !== undefined);
      requireSomeField([...Object.values(quick), ...Object.values(detailed)]);
      if (quickSent.length > 0 && detailedSent.length > 0) {
        invalid(
          'body',
          `a quick verdict (${quickSent.join(', ')}) and a detailed result (${detailedSent.join(', ')}) cannot be sent together`,
        );
      }
      const v = new Violations();
      const result = req.result !== undefined ? enumName(verdict, req.result, 'body.result', v) : undefined;
      const status = req.status !== undefined ? enumName(verdict, req.status, 'body.status', v) : undefined;
      if (result !== undefined && status !== undefined && result !== status)
        v.add('body.status', 'is an alias of result; send one of them (or both equal)');
      if (req.elapsed !== undefined && (!Number.isFinite(req.elapsed) || req.elapsed < 0))
        v.add('body.elapsed', 'must be a number of seconds, 0 or more');
      const assignee =
        req.assigneeUserId === undefined
          ? undefined
          : await resolveMember(members, caller.orgId, req.assigneeUserId.value, 'body.assigneeUserId', v);
      const linkedIssues = req.linkedIssues ? parseLinkedIssues(req.linkedIssues.issues, 'body.linkedIssues', v) : undefined;
      let stepResults: StepResultData[] | undefined;
      if (req.stepResults) {
        const seen = new Set<number>();
        stepResults = req.stepResults.results.map((s, i) => {
          if (!Number.isInteger(s.order) || s.order < 1) v.add(`body.stepResults.${i}.order`, 'must be a step number, 1 or more');
          else if (seen.has(s.order)) v.add(`body.stepResults.${i}.order`, 'appears twice');
          seen.add(s.order);
          // An unknown status is a violation (nothing is written), hence the placeholder.
          const st = enumName(verdict, s.status, `body.stepResults.${i}.status`, v) ?? 'untested';
          return { order: s.order, status: st, comment: sanitizeRichHtml(s.comment) };
        });
        stepResults.sort((a, b) => a.order - b.order);
      }
      v.throwIfAny();
      const runCase = await withTransaction(pool, async (c) => {
        const run = await findRun(c, req.projectId, req.runId, true);
        if (!run) throw notFound('Manual run');
        const current = await findRunCase(c, run.id, req.caseRef, true);
        if (!current) throw notFound('Test case in this run');
        if (run.status === 'closed') throw conflict('The run is closed: its verdicts cannot change');
        const f: RunCaseFields = { ...current };
        if (result ?? status) f.result = (result ?? status)!;
        if (assignee !== undefined) f.assignee = assignee;
        if (req.elapsed !== undefined) f.elapsed = req.elapsed;
        if (req.comment !== undefined) f.comment = sanitizeRichHtml(req.comment);
        if (linkedIssues !== undefined) f.linkedIssues = linkedIssues;
        if (stepResults !== undefined) f.stepResults = stepResults;
        await updateRunCase(c, current.id, f);
        return toRunCase((await findRunCase(c, run.id, current.id))!);
      });
      return { runCase };
    },
  };
}
