/** Body parts that releases, sessions, manual runs and run cases share: linked issues, build targets, dates, tags. */
import type { BuildTarget, LinkedIssue } from '@assay/proto/assay/manualtesting/v1/manual_testing_pb';
import { platform } from '@assay/contracts/manual-testing/releases';
import type { BuildTargetData, LinkedIssueData } from '../store/releases';
import { enumName, type Violations } from './violations';

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

/** A build target; undefined (and a violation) when its platform is not one of the contract's. */
export function parseBuildTarget(b: BuildTarget, v: Violations): BuildTargetData | undefined {
  const name = enumName(platform, b.platform, 'body.buildTarget.platform', v);
  if (name === undefined) return undefined;
  const out: BuildTargetData = { platform: name };
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

/** Tags of a session or run: trimmed, blanks dropped, each once. */
export const cleanTags = (tags: string[]) => [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
