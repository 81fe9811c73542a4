/** Body parts that releases, sessions, manual runs and run cases share: linked issues, build targets, dates, members. */
import type { BuildTarget, LinkedIssue } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import type { BuildTargetData, LinkedIssueData } from '../store/releases';
import type { UserSnapshot } from '../store/common';
import type { Members } from './members';
import { enumValue, PLATFORMS } from './values';
import type { Violations } from './violations';

export const MAX_RECORD_NAME = 255;

export function parseLinkedIssues(issues: LinkedIssue[], path: string, v: Violations): LinkedIssueData[] {
  return issues.map((i, n) => {
    if (!i.displayId?.trim() && !i.url?.trim()) v.add(`${path}.${n}`, 'a linked issue needs displayId or url');
    const out: LinkedIssueData = {};
    if (i.provider !== undefined) out.provider = i.provider;
    if (i.displayId !== undefined) out.displayId = i.displayId;
    if (i.url !== undefined) out.url = i.url;
    if (i.title !== undefined) out.title = i.title;
    return out;
  });
}

export function parseBuildTarget(b: BuildTarget, v: Violations): BuildTargetData {
  const platform = enumValue(b.platform, PLATFORMS, 'body.buildTarget.platform', v) ?? b.platform;
  const out: BuildTargetData = { platform };
  if (b.version !== undefined) out.version = b.version;
  if (b.buildNumber !== undefined) out.buildNumber = b.buildNumber;
  if (b.source !== undefined) out.source = b.source;
  if (b.deployUrl !== undefined) out.deployUrl = b.deployUrl;
  return out;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/** An ISO 8601 date (`2025-03-01`) or date-time; date-times are stored in UTC (`toISOString`). */
export function isoDate(value: string, path: string, v: Violations): string | undefined {
  const ok = (DATE.test(value) || DATE_TIME.test(value)) && !Number.isNaN(Date.parse(value));
  if (!ok) {
    v.add(path, 'must be an ISO 8601 date (YYYY-MM-DD) or date-time');
    return undefined;
  }
  return DATE.test(value) ? value : new Date(value).toISOString();
}

/**
 * Resolves user ids or e-mails against the organization's members; each ref that names no member is a
 * violation at `<path>.<i>` (or `path` itself when `single`).
 */
export async function resolveMembers(
  members: Members,
  orgId: string,
  refs: string[],
  path: string,
  v: Violations,
  single = false,
): Promise<UserSnapshot[]> {
  const found = await members.resolve(orgId, refs);
  const out: UserSnapshot[] = [];
  refs.forEach((ref, i) => {
    const m = found.get(ref);
    if (!m) v.add(single ? path : `${path}.${i}`, "is not a member of the project's organization");
    else if (!out.some((o) => o.id === m.id)) out.push({ id: m.id, name: m.name, email: m.email });
  });
  return out;
}
