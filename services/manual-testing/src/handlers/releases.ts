/** The `releases` family: create, update (lifecycle fields, move; nesting ≤ MAX_RELEASE_DEPTH), get, list. */
import { create } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  ReleaseSchema,
  type ManualTestingService,
  type Release,
  CreateReleaseResponseSchema,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { withTransaction } from '@assay/db';
import { notFound } from '@assay/errors';
import { pageInfo, paging, requireWriter, withIdempotency } from '@assay/service-kit';
import { platform } from '@assay/contracts/manual-testing/releases';
import { MAX_RECORD_NAME, MAX_RELEASE_DEPTH } from '@assay/contracts/manual-testing/values';
import type { Wiring } from '../wiring';
import {
  findRelease,
  insertRelease,
  listReleases,
  lockProjectReleases,
  moveRelease,
  releaseSubtree,
  updateRelease,
  type ReleaseFields,
  type ReleaseRow,
} from '../store/releases';
import { sanitizeRichHtml } from '../domain/html';
import { resolveMembers } from '../domain/members';
import { isoDate, parseBuildTarget, parseLinkedIssues } from '../domain/records';
import { checkName, invalid, Violations } from '../domain/violations';
import { authorOf, member, requireSomeField, trail, ts } from './common';

export function toRelease(r: ReleaseRow): Release {
  return create(ReleaseSchema, {
    id: r.id,
    name: r.name,
    description: r.description,
    note: r.note,
    type: r.type ?? undefined,
    parentReleaseId: r.parentId ?? undefined,
    depth: r.depth,
    startDate: r.startDate ?? undefined,
    endDate: r.endDate ?? undefined,
    branch: r.branch ?? undefined,
    environment: r.environment ?? undefined,
    linkedIssues: r.linkedIssues,
    buildTarget: r.buildTarget ? { ...r.buildTarget, platform: platform.toProto(r.buildTarget.platform) } : undefined,
    testers: r.testers.map((t) => member(t)!),
    isStarted: r.isStarted,
    startedAt: ts(r.startedAt),
    isCompleted: r.isCompleted,
    completedAt: ts(r.completedAt),
    ...trail(r),
  });
}

function checkDateOrder(f: ReleaseFields, v: Violations): void {
  if (f.startDate && f.endDate && Date.parse(f.endDate) < Date.parse(f.startDate)) v.add('body.endDate', 'must not be before startDate');
}

type ReleaseRpcs = Pick<ServiceImpl<typeof ManualTestingService>, 'createRelease' | 'updateRelease' | 'getRelease' | 'listReleases'>;

export function releaseHandlers({ pool, members, clock }: Wiring): ReleaseRpcs {
  return {
    async createRelease(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      const v = new Violations();
      checkName(req.name, MAX_RECORD_NAME, 'body.name', v);
      const fields: ReleaseFields = {
        name: req.name,
        description: req.description ?? '',
        note: sanitizeRichHtml(req.note ?? ''),
        type: req.type ?? null,
        startDate: req.startDate !== undefined ? (isoDate(req.startDate, 'body.startDate', v) ?? null) : null,
        endDate: req.endDate !== undefined ? (isoDate(req.endDate, 'body.endDate', v) ?? null) : null,
        branch: req.branch ?? null,
        environment: req.environment ?? null,
        linkedIssues: parseLinkedIssues(req.linkedIssues, 'body.linkedIssues', v),
        buildTarget: (req.buildTarget && parseBuildTarget(req.buildTarget, v)) ?? null,
        testers: await resolveMembers(members, caller.orgId, req.testers, 'body.testers', v),
        isStarted: false,
        startedAt: null,
        isCompleted: false,
        completedAt: null,
      };
      checkDateOrder(fields, v);
      v.throwIfAny();
      return withIdempotency(pool, ctx, CreateReleaseResponseSchema, async (c) => {
        await lockProjectReleases(c, req.projectId);
        let depth = 1;
        if (req.parentReleaseId !== undefined) {
          const parent = await findRelease(c, req.projectId, req.parentReleaseId);
          if (!parent) invalid('body.parentReleaseId', 'names no release of this project');
          depth = parent.depth + 1;
          if (depth > MAX_RELEASE_DEPTH)
            invalid('body.parentReleaseId', `releases nest at most ${MAX_RELEASE_DEPTH} levels (this one would be at level ${depth})`);
        }
        const id = await insertRelease(c, {
          projectId: req.projectId,
          parentId: req.parentReleaseId ?? null,
          depth,
          fields,
          author: authorOf(caller),
        });
        return { release: toRelease((await findRelease(c, req.projectId, id))!) };
      });
    },

    async updateRelease(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      requireSomeField([
        req.name,
        req.description,
        req.note,
        req.type,
        req.parentReleaseId,
        req.startDate,
        req.endDate,
        req.branch,
        req.environment,
        req.linkedIssues,
        req.buildTarget,
        req.testers,
        req.isStarted,
        req.startedAt,
        req.isCompleted,
        req.completedAt,
      ]);
      const v = new Violations();
      if (req.name !== undefined) checkName(req.name, MAX_RECORD_NAME, 'body.name', v);
      const startDate = req.startDate !== undefined ? isoDate(req.startDate, 'body.startDate', v) : undefined;
      const endDate = req.endDate !== undefined ? isoDate(req.endDate, 'body.endDate', v) : undefined;
      const linkedIssues = req.linkedIssues ? parseLinkedIssues(req.linkedIssues.issues, 'body.linkedIssues', v) : undefined;
      const buildTarget = req.buildTarget ? parseBuildTarget(req.buildTarget, v) : undefined;
      const testers = req.testers ? await resolveMembers(members, caller.orgId, req.testers.values, 'body.testers', v) : undefined;
      v.throwIfAny();

      const row = await withTransaction(pool, async (c) => {
        await lockProjectReleases(c, req.projectId);
        const current = await findRelease(c, req.projectId, req.releaseId, true);
        if (!current) throw notFound('Release');
        const f: ReleaseFields = { ...current };
        if (req.name !== undefined) f.name = req.name;
        if (req.description !== undefined) f.description = req.description;
        if (req.note !== undefined) f.note = sanitizeRichHtml(req.note);
        if (req.type !== undefined) f.type = req.type;
        if (startDate !== undefined) f.startDate = startDate;
        if (endDate !== undefined) f.endDate = endDate;
        if (req.branch !== undefined) f.branch = req.branch;
        if (req.environment !== undefined) f.environment = req.environment;
        if (linkedIssues !== undefined) f.linkedIssues = linkedIssues;
        if (buildTarget !== undefined) f.buildTarget = buildTarget;
        if (testers !== undefined) f.testers = testers;
        // Lifecycle: a flag turned on stamps its time unless one is sent; turned off clears it unless one is sent.
        const now = clock();
        if (req.isStarted !== undefined) {
          f.isStarted = req.isStarted;
          if (req.startedAt === undefined) f.startedAt = req.isStarted ? (current.startedAt ?? now) : null;
        }
        if (req.startedAt !== undefined) f.startedAt = req.startedAt.value ? timestampDate(req.startedAt.value) : null;
        if (req.isCompleted !== undefined) {
          f.isCompleted = req.isCompleted;
          if (req.completedAt === undefined) f.completedAt = req.isCompleted ? (current.completedAt ?? now) : null;
        }
        if (req.completedAt !== undefined) f.completedAt = req.completedAt.value ? timestampDate(req.completedAt.value) : null;
        const dv = new Violations();
        checkDateOrder(f, dv);
        dv.throwIfAny();

        if (req.parentReleaseId !== undefined) {
          const parentId = req.parentReleaseId.value ?? null;
          if (parentId !== current.parentId) {
            const subtree = await releaseSubtree(c, current.id);
            let depth = 1;
            if (parentId !== null) {
              if (subtree.ids.includes(parentId)) invalid('body.parentReleaseId', 'is the release itself or one of its sub-releases');
              const parent = await findRelease(c, req.projectId, parentId);
              if (!parent) invalid('body.parentReleaseId', 'names no release of this project');
              depth = parent.depth + 1;
            }
            if (depth + subtree.height > MAX_RELEASE_DEPTH)
              invalid(
                'body.parentReleaseId',
                `releases nest at most ${MAX_RELEASE_DEPTH} levels (this move would reach level ${depth + subtree.height})`,
              );
            await moveRelease(c, current.id, parentId, subtree.ids, depth - current.depth);
          }
        }
        await updateRelease(c, current.id, f, authorOf(caller));
        return (await findRelease(c, req.projectId, current.id))!;
      });
      return { release: toRelease(row) };
    },

    async getRelease(req) {
      const row = await findRelease(pool, req.projectId, req.releaseId);
      if (!row) throw notFound('Release');
      return { release: toRelease(row) };
    },

    async listReleases(req) {
      const p = paging(req.page);
      const { rows, total } = await listReleases(
        pool,
        req.projectId,
        { search: req.search, isCompleted: req.isCompleted },
        p.limit,
        p.offset,
      );
      return { releases: rows.map(toRelease), page: pageInfo(p, total) };
    },
  };
}
