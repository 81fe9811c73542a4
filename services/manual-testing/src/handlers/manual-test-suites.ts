/** The `manual-test-suites` family: create (depth ≤ MAX_SUITE_DEPTH, root = 1), update/move, and list as trees. */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
import {
  SuiteSchema,
  type ManualTestingService,
  type Suite,
  CreateSuiteResponseSchema,
} from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { withTransaction } from '@assay/db';
import { notFound, validation } from '@assay/errors';
import { pageInfo, paging, requireWriter, withIdempotency } from '@assay/service-kit';
import { MAX_SUITE_DEPTH, MAX_SUITE_DESCRIPTION, MAX_SUITE_NAME } from '@assay/contracts/manual-testing/values';
import type { Wiring } from '../wiring';
import {
  countRootSuites,
  findSuite,
  insertSuite,
  listSuiteTrees,
  lockProjectSuites,
  moveSuite,
  suiteSubtree,
  updateSuiteText,
  type SuiteRow,
} from '../store/manual-test-suites';
import { checkLength, checkName, Violations } from '../domain/violations';
import { authorOf, requireSomeField } from './common';
import { characterCount } from '@assay/contracts/common/text';

function toSuite(row: SuiteRow, children: Suite[] = []): Suite {
  return create(SuiteSchema, {
    id: row.id,
    name: row.name,
    description: row.description,
    lastModifiedBy: row.lastModifiedBy ?? undefined,
    parentSuite: row.parentId ? { id: row.parentId, name: row.parentName ?? '' } : undefined,
    order: row.position,
    depth: row.depth,
    childSuitesCount: children.length,
    children,
    updatedAt: timestampFromDate(row.updatedAt),
  });
}

/** Builds trees from rows ordered by depth then position; roots are top-level suites, or `rootId` only. */
function buildTrees(rows: SuiteRow[], rootId?: string): Suite[] {
  const childrenOf = new Map<string, SuiteRow[]>();
  const roots: SuiteRow[] = [];
  for (const r of rows) {
    if (rootId !== undefined ? r.id === rootId : r.parentId === null) roots.push(r);
    else if (r.parentId !== null) childrenOf.set(r.parentId, [...(childrenOf.get(r.parentId) ?? []), r]);
  }
  const build = (r: SuiteRow): Suite => toSuite(r, (childrenOf.get(r.id) ?? []).map(build));
  return roots.map(build);
}

type SuiteRpcs = Pick<ServiceImpl<typeof ManualTestingService>, 'createSuite' | 'listSuites' | 'updateSuite'>;

export function manualTestSuiteHandlers({ pool }: Wiring): SuiteRpcs {
  return {
    async createSuite(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      const name = req.name;
      if (name.trim().length === 0 || characterCount(name) > MAX_SUITE_NAME) {
        throw validation(`name must be 1-${MAX_SUITE_NAME} characters`, [
          { path: 'body.name', message: `must be 1-${MAX_SUITE_NAME} characters` },
        ]);
      }
      const description = req.description ?? '';
      if (characterCount(description) > MAX_SUITE_DESCRIPTION) {
        throw validation(`description must be at most ${MAX_SUITE_DESCRIPTION} characters`, [
          { path: 'body.description', message: 'too long' },
        ]);
      }
      return withIdempotency(pool, ctx, CreateSuiteResponseSchema, async (c) => {
        await lockProjectSuites(c, req.projectId);
        let depth = 1;
        if (req.parentSuiteId !== undefined) {
          const parent = await findSuite(c, req.projectId, req.parentSuiteId);
          if (!parent)
            throw validation('parentSuiteId names no suite of this project', [{ path: 'body.parentSuiteId', message: 'unknown suite' }]);
          depth = parent.depth + 1;
          if (depth > MAX_SUITE_DEPTH) {
            throw validation(`suites nest at most ${MAX_SUITE_DEPTH} levels deep`, [
              { path: 'body.parentSuiteId', message: `nesting depth would be ${depth} (max ${MAX_SUITE_DEPTH})` },
            ]);
          }
        }
        const id = await insertSuite(c, {
          projectId: req.projectId,
          parentId: req.parentSuiteId ?? null,
          name,
          description,
          depth,
          author: authorOf(caller),
        });
        return { suite: toSuite((await findSuite(c, req.projectId, id))!) };
      });
    },

    async updateSuite(req, ctx: HandlerContext) {
      const caller = requireWriter(ctx);
      requireSomeField([req.name, req.description, req.parentSuiteId]);
      const v = new Violations();
      if (req.name !== undefined) checkName(req.name, MAX_SUITE_NAME, 'body.name', v);
      checkLength(req.description, MAX_SUITE_DESCRIPTION, 'body.description', v);
      v.throwIfAny();
      const rows = await withTransaction(pool, async (c) => {
        await lockProjectSuites(c, req.projectId);
        const suite = await findSuite(c, req.projectId, req.suiteId);
        if (!suite) throw notFound('Suite');
        if (req.parentSuiteId !== undefined) {
          const newParentId = req.parentSuiteId.value ?? null;
          if (newParentId !== suite.parentId) {
            const subtree = await suiteSubtree(c, req.projectId, suite.id);
            let newDepth = 1;
            if (newParentId !== null) {
              if (subtree.some((s) => s.id === newParentId)) {
                throw validation('a suite cannot move under itself or one of its sub-suites', [
                  { path: 'body.parentSuiteId', message: 'is the suite itself or one of its sub-suites' },
                ]);
              }
              const parent = await findSuite(c, req.projectId, newParentId);
              if (!parent)
                throw validation('parentSuiteId names no suite of this project', [
                  { path: 'body.parentSuiteId', message: 'unknown suite' },
                ]);
              newDepth = parent.depth + 1;
            }
            const delta = newDepth - suite.depth;
            const deepest = Math.max(...subtree.map((s) => s.depth)) + delta;
            if (deepest > MAX_SUITE_DEPTH) {
              throw validation(`suites nest at most ${MAX_SUITE_DEPTH} levels deep`, [
                { path: 'body.parentSuiteId', message: `nesting depth would be ${deepest} (max ${MAX_SUITE_DEPTH})` },
              ]);
            }
            await moveSuite(
              c,
              suite,
              newParentId,
              subtree.map((s) => s.id),
              delta,
            );
          }
        }
        await updateSuiteText(c, suite.id, {
          name: req.name ?? suite.name,
          description: req.description ?? suite.description,
          author: authorOf(caller),
        });
        return suiteSubtree(c, req.projectId, suite.id);
      });
      const [tree] = buildTrees(rows, rows[0]!.id);
      return { suite: tree };
    },

    async listSuites(req) {
      const p = paging(req.page);
      const [total, rows] = await Promise.all([
        countRootSuites(pool, req.projectId),
        listSuiteTrees(pool, req.projectId, p.limit, p.offset),
      ]);
      return { suites: buildTrees(rows), page: pageInfo(p, total) };
    },
  };
}
