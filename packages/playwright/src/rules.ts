/**
 * Skip rules at run time: `GET /api/v1/ingest/{projectId}/skip-list` names the active skip rules (what each
 * matches on) and the known tests they match. A test is skipped when it is one of those tests, or when a rule
 * matches it as the server matches (every criterion the rule sets holds: `titlePattern` a case-insensitive
 * regular expression on the full title `describe › test`, `file` the file or a path suffix of it, `tag` one of the
 * test's tags, with or without `@`), so tests the server has never seen are skipped too.
 */
import type { AssayClient } from '@assay/client';

export interface SkipRule {
  id: string;
  name: string;
  titlePattern: string | null;
  file: string | null;
  tag: string | null;
}

export interface SkipList {
  rules: SkipRule[];
  tests: { file: string; titlePath: string[]; projectName: string }[];
}

/** A test as Assay names it: its file relative to the config's rootDir (with `/`), titles below the file, project. */
export interface TestIdentity {
  file: string;
  titlePath: string[];
  projectName: string;
  tags: string[];
}

const bare = (t: string) => t.replace(/^@/, '').toLowerCase();

function compile(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'i');
  } catch {
    return undefined; // RE2 syntax JavaScript does not have: the known-test list still applies
  }
}

/** The rule that skips `t`, if any. */
export function skipRuleFor(list: SkipList, t: TestIdentity): SkipRule | undefined {
  const key = JSON.stringify([t.file, t.titlePath, t.projectName]);
  const fullTitle = t.titlePath.join(' › ');
  for (const rule of list.rules) {
    if (!rule.titlePattern && !rule.file && !rule.tag) continue;
    if (rule.titlePattern) {
      const re = compile(rule.titlePattern);
      if (!re || !re.test(fullTitle)) continue;
    }
    if (rule.file) {
      const file = rule.file.replace(/^\.?\//, '');
      if (!(t.file === file || t.file.endsWith(`/${file}`))) continue;
    }
    if (rule.tag && !t.tags.some((x) => bare(x) === bare(rule.tag!))) continue;
    return rule;
  }
  const known = list.tests.some((x) => JSON.stringify([x.file, x.titlePath, x.projectName]) === key);
  return known ? (list.rules[0] ?? { id: '', name: 'skip list', titlePattern: null, file: null, tag: null }) : undefined;
}

export async function fetchSkipList(client: AssayClient, projectId: string, timeoutMs: number): Promise<SkipList> {
  const { data, error, response } = await client.GET('/api/v1/ingest/{projectId}/skip-list', {
    params: { path: { projectId } },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (error || !data) throw new Error(`the skip list answered HTTP ${response.status}${error ? ` ${error.error.code}` : ''}`);
  return data.data;
}
